//! Languages whose code sits inside another document: the `<script>` blocks of a Vue single-file
//! component, the template text of `.ejs`/`.erb` files. A host grammar finds the regions; the
//! engine then parses only those byte ranges with the row's grammar (tree-sitter's included
//! ranges), so every position is already a position in the whole file.

// With one of the two features off, half of the helpers have no caller.
#![cfg_attr(not(all(feature = "more", feature = "rare")), allow(dead_code))]

use std::cell::RefCell;
use std::ops::ControlFlow;
use std::time::Instant;

use tree_sitter::{Node, ParseOptions, ParseState, Parser, Range, Tree};

/// Finds the regions of a file that the row's grammar parses. `None` when the deadline passed.
pub(crate) type RegionFinder = fn(&str, Instant) -> Option<Vec<Range>>;

thread_local! {
    /// One parser per host grammar per thread (index: [`Host`]).
    static HOST_PARSERS: RefCell<[Option<Parser>; 2]> = const { RefCell::new([None, None]) };
}

#[derive(Clone, Copy)]
enum Host {
    Html = 0,
    EmbeddedTemplate = 1,
}

impl Host {
    fn grammar(self) -> tree_sitter::Language {
        match self {
            Host::Html => tree_sitter_html::LANGUAGE.into(),
            Host::EmbeddedTemplate => embedded_template_grammar(),
        }
    }
}

#[cfg(feature = "rare")]
fn embedded_template_grammar() -> tree_sitter::Language {
    tree_sitter_embedded_template::LANGUAGE.into()
}

#[cfg(not(feature = "rare"))]
fn embedded_template_grammar() -> tree_sitter::Language {
    unreachable!("the embedded-template grammar is only used with the `rare` feature")
}

/// Parse `shadow` (the ASCII shadow of the file) with a host grammar, under the deadline.
fn parse_host(host: Host, shadow: &str, deadline: Instant) -> Option<Tree> {
    HOST_PARSERS.with_borrow_mut(|parsers| {
        let parser = parsers[host as usize].get_or_insert_with(|| {
            let mut parser = Parser::new();
            parser
                .set_language(&host.grammar())
                .expect("bundled grammars are ABI-compatible (checked by a unit test)");
            parser
        });
        let bytes = shadow.as_bytes();
        let mut progress = |_: &ParseState| {
            if Instant::now() >= deadline || roo_context_core::cancel::cancelled() {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let tree = parser.parse_with_options(
            &mut |offset, _| &bytes[offset.min(bytes.len())..],
            None,
            Some(ParseOptions::new().progress_callback(&mut progress)),
        );
        if tree.is_none() {
            parser.reset();
        }
        tree
    })
}

/// Script languages a Vue `<script lang="...">` may name that the TypeScript (TSX) grammar reads.
const VUE_SCRIPT_LANGS: &[&str] = &[
    "",
    "ts",
    "js",
    "tsx",
    "jsx",
    "mts",
    "mjs",
    "typescript",
    "javascript",
];

/// The contents of a Vue component's `<script>` and `<script setup>` blocks, in file order.
/// Blocks inside `<template>` (Vue ignores them), blocks in another language
/// (`lang="coffee"`) and `src=` blocks without text are left out.
pub(crate) fn vue_scripts(shadow: &str, deadline: Instant) -> Option<Vec<Range>> {
    let tree = parse_host(Host::Html, shadow, deadline)?;
    let mut regions = Vec::new();
    crate::engine::walk_tree(&tree, |node| {
        if node.kind() == "element" && start_tag_name(node, shadow) == Some("template") {
            return crate::engine::Walk::Skip;
        }
        if node.kind() != "script_element" {
            return crate::engine::Walk::Descend;
        }
        let lang = start_tag(node)
            .and_then(|tag| attribute_value(tag, "lang", shadow))
            .unwrap_or("");
        if VUE_SCRIPT_LANGS.contains(&lang.to_ascii_lowercase().as_str()) {
            let mut cursor = node.walk();
            regions.extend(
                node.children(&mut cursor)
                    .filter(|child| child.kind() == "raw_text")
                    .map(|raw_text| raw_text.range()),
            );
        }
        crate::engine::Walk::Skip
    });
    Some(regions)
}

/// The template text of an `.ejs`/`.erb` file: everything outside `<% ... %>` tags.
pub(crate) fn template_text(shadow: &str, deadline: Instant) -> Option<Vec<Range>> {
    let tree = parse_host(Host::EmbeddedTemplate, shadow, deadline)?;
    let root = tree.root_node();
    let mut cursor = root.walk();
    let regions = root
        .children(&mut cursor)
        .filter(|child| child.kind() == "content" && child.end_byte() > child.start_byte())
        .map(|content| content.range())
        .collect();
    Some(regions)
}

fn start_tag(element: Node<'_>) -> Option<Node<'_>> {
    element.child(0).filter(|child| child.kind() == "start_tag")
}

fn start_tag_name<'source>(element: Node<'_>, source: &'source str) -> Option<&'source str> {
    let tag = start_tag(element)?;
    let mut cursor = tag.walk();
    let name = tag
        .children(&mut cursor)
        .find(|child| child.kind() == "tag_name")?;
    source.get(name.byte_range())
}

/// The value of attribute `wanted` on a start tag, without quotes (`""` for a bare attribute).
fn attribute_value<'source>(
    tag: Node<'_>,
    wanted: &str,
    source: &'source str,
) -> Option<&'source str> {
    let mut cursor = tag.walk();
    for attribute in tag.children(&mut cursor) {
        if attribute.kind() != "attribute" {
            continue;
        }
        let mut inner = attribute.walk();
        let mut children = attribute.named_children(&mut inner);
        let Some(name) = children.next() else {
            continue;
        };
        if !source
            .get(name.byte_range())
            .is_some_and(|name| name.eq_ignore_ascii_case(wanted))
        {
            continue;
        }
        let value = match children.next() {
            Some(value) if value.kind() == "quoted_attribute_value" => value
                .named_child(0)
                .map_or("", |text| source.get(text.byte_range()).unwrap_or("")),
            Some(value) => source.get(value.byte_range()).unwrap_or(""),
            None => "",
        };
        return Some(value.trim());
    }
    None
}
