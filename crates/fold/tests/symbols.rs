//! Snapshot tests of folding ranges and document symbols (the LSP features) per language.

use expect_test::{Expect, expect};
use roo_context_fold::{
    DocumentSymbol, Language, OutlineOptions, document_symbols, folding_ranges,
};

/// Render each folding range as `start..end kind | first line` (1-based lines).
fn check_folding(language: Language, source: &str, expected: Expect) {
    let result = folding_ranges(language, source, &OutlineOptions::default());
    let lines: Vec<&str> = source.lines().collect();
    let rendered: String = result
        .ranges
        .iter()
        .map(|range| {
            format!(
                "{}..{} {:?} | {}\n",
                range.start_line + 1,
                range.end_line + 1,
                range.kind,
                lines[range.start_line as usize]
            )
        })
        .collect();
    expected.assert_eq(&rendered);
}

/// Render the symbol tree: `kind name [start..end] @name-line:col`, indented by depth.
fn check_symbols(language: Language, source: &str, expected: Expect) {
    let result = document_symbols(language, source, &OutlineOptions::default());
    let mut rendered = String::new();
    let mut stack: Vec<(&DocumentSymbol, usize)> = result
        .symbols
        .iter()
        .rev()
        .map(|symbol| (symbol, 0))
        .collect();
    while let Some((symbol, depth)) = stack.pop() {
        rendered.push_str(&format!(
            "{}{} {} [{}..{}] @{}:{}\n",
            "  ".repeat(depth),
            symbol.kind.as_str(),
            symbol.name,
            symbol.range.start.line + 1,
            symbol.range.end.line + 1,
            symbol.selection_range.start.line + 1,
            symbol.selection_range.start.column,
        ));
        stack.extend(symbol.children.iter().rev().map(|child| (child, depth + 1)));
    }
    expected.assert_eq(&rendered);
}

const TYPESCRIPT: &str = r#"import { a } from "a";
import { b } from "b";
import { c } from "c";

/**
 * Docs.
 */
export class Service {
  run(): void {}

  stop(
    force: boolean,
  ): void {
    if (force) {
      halt();
    }
  }
}
"#;

#[test]
fn typescript_folding_covers_imports_comments_definitions_and_blocks() {
    check_folding(
        Language::TypeScript,
        TYPESCRIPT,
        expect![[r#"
        1..3 Imports | import { a } from "a";
        5..7 Comment | /**
        8..17 Region | export class Service {
        11..16 Region |   stop(
        13..16 Region |   ): void {
        14..15 Region |     if (force) {
    "#]],
    );
}

#[test]
fn typescript_symbols_nest_methods_in_classes_including_one_liners() {
    check_symbols(
        Language::TypeScript,
        TYPESCRIPT,
        expect![[r#"
        class Service [8..18] @8:13
          method run [9..9] @9:2
          method stop [11..17] @11:2
    "#]],
    );
}

const RUST: &str = r#"use std::fmt;
use std::io;

// One.
// Two.
struct Wrapper(u8);

impl fmt::Display for Wrapper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

mod inner {
    pub fn helper() -> u8 {
        match 1 {
            _ => 0,
        }
    }
}
"#;

#[test]
fn rust_folding_groups_uses_and_line_comments() {
    check_folding(
        Language::Rust,
        RUST,
        expect![[r#"
        1..2 Imports | use std::fmt;
        4..5 Comment | // One.
        8..11 Region | impl fmt::Display for Wrapper {
        9..10 Region |     fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        14..19 Region | mod inner {
        15..18 Region |     pub fn helper() -> u8 {
        16..17 Region |         match 1 {
    "#]],
    );
}

#[test]
fn rust_symbols_name_trait_impls_and_nest_modules() {
    check_symbols(
        Language::Rust,
        RUST,
        expect![[r#"
        struct Wrapper [6..6] @6:7
        impl fmt::Display for Wrapper [8..12] @8:22
          method fmt [9..11] @9:7
        module inner [14..20] @14:4
          function helper [15..19] @15:11
    "#]],
    );
}

const PYTHON: &str = r#"import os
import sys


class Box:
    def get(self):
        if self.ready:
            return 1
        return 0
"#;

#[test]
fn python_folding_covers_classes_functions_and_compound_statements() {
    check_folding(
        Language::Python,
        PYTHON,
        expect![[r#"
        1..2 Imports | import os
        5..9 Region | class Box:
        6..9 Region |     def get(self):
        7..8 Region |         if self.ready:
    "#]],
    );
}

#[test]
fn python_symbols_nest_methods() {
    check_symbols(
        Language::Python,
        PYTHON,
        expect![[r#"
        class Box [5..9] @5:6
          method get [6..9] @6:8
    "#]],
    );
}

#[test]
fn go_symbols_list_types_and_methods() {
    check_symbols(
        Language::Go,
        "package main\n\ntype T struct{ a int }\n\nfunc (t T) Get() int { return t.a }\n",
        expect![[r#"
            struct T [3..3] @3:5
            method Get [5..5] @5:11
        "#]],
    );
}

#[test]
fn symbol_selection_ranges_point_at_the_name_inside_the_range() {
    let source = "export function hello() {\n  return 1;\n}\n";
    let result = document_symbols(Language::TypeScript, source, &OutlineOptions::default());
    let symbol = &result.symbols[0];
    assert_eq!(&source[symbol.selection_range.bytes()], "hello");
    assert!(symbol.range.start_byte <= symbol.selection_range.start_byte);
    assert!(symbol.selection_range.end_byte <= symbol.range.end_byte);
    assert_eq!(symbol.kind.lsp_symbol_kind(), 12);
}
