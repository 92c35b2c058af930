//! Snapshot tests of outlines per language: the exact outline text plus each definition's kind,
//! name and nesting.

use expect_test::{Expect, expect};
use roo_context_fold::{Language, OutlineOptions, outline};

/// Outline `source` and render the outline text, then `kind name` per definition indented by
/// nesting depth, then any diagnostics.
fn check(language: Language, source: &str, expected: Expect) {
    let result = outline(language, source, &OutlineOptions::default());
    let mut rendered = result.to_text();
    rendered.push_str("---\n");
    let mut depths = Vec::new();
    for definition in &result.definitions {
        let depth = definition.parent.map_or(0, |parent| depths[parent] + 1);
        depths.push(depth);
        rendered.push_str(&format!(
            "{}{} {}\n",
            "  ".repeat(depth),
            definition.kind.as_str(),
            definition.name
        ));
    }
    for diagnostic in &result.diagnostics {
        rendered.push_str(&format!("! {diagnostic}\n"));
    }
    expected.assert_eq(&rendered);
}

#[test]
fn typescript_outline_lists_classes_functions_interfaces_types_and_enums() {
    check(
        Language::TypeScript,
        r#"import { x } from "y";

export interface User {
  id: string;
  name: string;
}

type Pair = {
  left: number;
  right: number;
};

export enum Color {
  Red,
  Green,
}

export class UserService {
  private cache = new Map<string, User>();

  constructor(private readonly db: Db) {
    this.ready = true;
    this.count = 0;
  }

  async find(id: string): Promise<User> {
    const user = await this.db.get(id);
    return user;
  }

  handle = (event: Event) => {
    console.log(event);
    return event;
  };
}

export function createUser(name: string): User {
  const id = newId();
  return { id, name };
}

export const toUpper = (value: string) => {
  const result = value.toUpperCase();
  return result;
};

function short() { return 1; }

namespace Geometry {
  export const origin = 0;
  export const unit = 1;
}
"#,
        expect![[r#"
            3--6 | export interface User {
            8--11 | type Pair = {
            13--16 | export enum Color {
            18--35 | export class UserService {
            21--24 |   constructor(private readonly db: Db) {
            26--29 |   async find(id: string): Promise<User> {
            31--34 |   handle = (event: Event) => {
            37--40 | export function createUser(name: string): User {
            42--45 | export const toUpper = (value: string) => {
            49--52 | namespace Geometry {
            ---
            interface User
            type Pair
            enum Color
            class UserService
              constructor constructor
              method find
              method handle
            function createUser
            function toUpper
            module Geometry
        "#]],
    );
}

#[test]
fn tsx_outline_lists_components_and_hocs_but_not_jsx_elements() {
    check(
        Language::Tsx,
        r#"import React from "react";

export function Greeting({ name }: Props) {
  return (
    <div className="greeting">
      <span>{name}</span>
    </div>
  );
}

export const Button = memo((props: ButtonProps) => {
  return (
    <button onClick={props.onClick}>
      {props.label}
    </button>
  );
});
"#,
        expect![[r#"
            3--9 | export function Greeting({ name }: Props) {
            11--17 | export const Button = memo((props: ButtonProps) => {
            ---
            function Greeting
            function Button
        "#]],
    );
}

#[test]
fn javascript_outline_lists_classes_methods_functions_and_tests() {
    check(
        Language::JavaScript,
        r#"class Queue {
  #items = [];

  push(item) {
    this.#items.push(item);
    return this;
  }
}

exports.handler = async function (event) {
  const body = JSON.parse(event.body);
  return body;
};

describe("queue", () => {
  it("pushes", () => {
    const q = new Queue();
    q.push(1);
  });
});
"#,
        expect![[r#"
            1--8 | class Queue {
            4--7 |   push(item) {
            10--13 | exports.handler = async function (event) {
            15--20 | describe("queue", () => {
            16--19 |   it("pushes", () => {
            ---
            class Queue
              method push
            function handler
            test queue
              test pushes
        "#]],
    );
}

#[test]
fn rust_outline_lists_items_impls_and_methods() {
    check(
        Language::Rust,
        r#"use std::fmt;

/// A point.
#[derive(Debug)]
pub struct Point {
    x: i32,
    y: i32,
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

pub trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> String {
        String::from("shape")
    }
}

enum Direction {
    Up,
    Down,
}

mod tests {
    #[test]
    fn works() {
        assert_eq!(1 + 1, 2);
    }
}

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}
"#,
        expect![[r#"
            5--8 | pub struct Point {
            10--14 | impl fmt::Display for Point {
            16--21 | pub trait Shape {
            23--26 | enum Direction {
            28--33 | mod tests {
            35--39 | macro_rules! square {
            ---
            struct Point
            impl fmt::Display for Point
            trait Shape
            enum Direction
            module tests
            macro square
        "#]],
    );
}

#[test]
fn python_outline_lists_classes_methods_and_functions() {
    check(
        Language::Python,
        r#"import os


@dataclass
class Config:
    path: str

    @property
    def name(self):
        base = os.path.basename(self.path)
        return base

    def load(self):
        with open(self.path) as handle:
            return handle.read()


def main():
    config = Config("x")
    print(config.name)
    return 0
"#,
        expect![[r#"
            5--15 | class Config:
            18--21 | def main():
            ---
            class Config
            function main
        "#]],
    );
}

#[test]
fn go_outline_lists_each_declaration_instead_of_one_whole_file_line() {
    check(
        Language::Go,
        r#"// Package declaration test
package main

import (
	"fmt"
	"os"
)

type Server struct {
	Addr string
	Port int
}

type Handler interface {
	Serve() error
	Close() error
}

const (
	A = iota
	B
)

func (s *Server) Start() error {
	fmt.Println(s.Addr)
	return nil
}

func main() {
	s := &Server{}
	os.Exit(0)
}
"#,
        expect![[r#"
            9--12 | type Server struct {
            14--17 | type Handler interface {
            19--22 | const ( A, B )
            24--27 | func (s *Server) Start() error {
            29--32 | func main() {
            ---
            struct Server
            interface Handler
            constant A
            method Start
            function main
        "#]],
    );
}

#[test]
fn definitions_shorter_than_four_lines_are_left_out() {
    check(
        Language::TypeScript,
        "function one() {}\nfunction two() {\n  return 2;\n}\nfunction four() {\n  const a = 1;\n  return a;\n}\n",
        expect![[r#"
            5--8 | function four() {
            ---
            function four
        "#]],
    );
}

#[test]
fn syntax_errors_still_give_a_best_effort_outline() {
    check(
        Language::TypeScript,
        r#"export class Broken {
  method() {
    if (x {
      return 1;
    }
  }
}

export function fine(a: number) {
  const b = a + 1;
  return b;
}
"#,
        expect![[r#"
            1--7 | export class Broken {
            2--6 |   method() {
            9--12 | export function fine(a: number) {
            ---
            class Broken
              method method
            function fine
            ! syntax errors (first on line 3); outline is best effort
        "#]],
    );
}

#[test]
fn crlf_line_endings_do_not_leak_into_outline_lines() {
    check(
        Language::Rust,
        "fn main() {\r\n    let a = 1;\r\n    let b = 2;\r\n}\r\n",
        expect![[r#"
            1--4 | fn main() {
            ---
            function main
        "#]],
    );
}

#[test]
fn markdown_headers_own_their_sections_as_in_the_specs_example() {
    // Headers on lines 1, 6, 11 and 16; the trailing newline makes a 20th, empty line.
    let source = "# Main Header\nintro\nmore\nmore\n\n## Section 1\na\nb\nc\n\n### Subsection 1.1\nd\ne\nf\n\n## Section 2\ng\nh\ni\n";
    check(
        Language::Markdown,
        source,
        expect![[r#"
            1--5 | # Main Header
            6--10 | ## Section 1
            11--15 | ### Subsection 1.1
            16--20 | ## Section 2
            ---
            heading Main Header
            heading Section 1
            heading Subsection 1.1
            heading Section 2
        "#]],
    );
}

#[test]
fn markdown_setext_headers_crlf_and_short_sections() {
    // Setext headers start on their text line; CRLF line ends do not hide ATX headers (the
    // original's regex missed them); a section shorter than four lines is dropped; `#tag` without
    // a space and an underline after a blank line are not headers.
    let source = "Title\r\n=====\r\nbody\r\nbody\r\n#tag\r\n\r\n---\r\n## Short\r\nx\r\nSub\r\n---\r\n1\r\n2\r\n3\r\n";
    check(
        Language::Markdown,
        source,
        expect![[r#"
            1--7 | Title
            10--15 | Sub
            ---
            heading Title
            heading Sub
        "#]],
    );
}

#[test]
fn markdown_without_headers_has_no_outline() {
    check(
        Language::Markdown,
        "just text\n\nand more text\nand more\nand more\n",
        expect![[r#"
            ---
        "#]],
    );
    check(
        Language::Markdown,
        "   \n\n",
        expect![[r#"
        ---
    "#]],
    );
}

/// A cancelled request (`$/cancelRequest` sets the flag the server runs its work with) stops
/// every parse, on the calling thread and on the parallel cold path's workers, and reports it
/// like a timeout, which the outline cache never keeps.
#[test]
fn a_cancelled_request_stops_parsing_on_every_thread() {
    use roo_context_fold::{OutlineDiagnostic, OutlineJob, outline_many};
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    let source = "export class A {\n  a() {\n    return 1;\n  }\n}\n".repeat(200);
    let jobs: Vec<OutlineJob<'_>> = (0..4)
        .map(|_| OutlineJob {
            language: Language::TypeScript,
            source: &source,
        })
        .collect();
    let options = OutlineOptions::default();
    let timed_out = |outline: &roo_context_fold::Outline| {
        outline
            .diagnostics
            .iter()
            .any(|d| matches!(d, OutlineDiagnostic::Timeout { .. }))
    };

    let cancelled = Some(Arc::new(AtomicBool::new(true)));
    let outlines = roo_context_core::cancel::with_flag(cancelled, || {
        let mut all = outline_many(&jobs, &options, 2);
        all.push(outline(Language::TypeScript, &source, &options));
        all
    });
    assert!(
        outlines
            .iter()
            .all(|o| timed_out(o) && o.definitions.is_empty())
    );

    let running = Some(Arc::new(AtomicBool::new(false)));
    let outlines =
        roo_context_core::cancel::with_flag(running, || outline_many(&jobs, &options, 2));
    assert!(
        outlines
            .iter()
            .all(|o| !timed_out(o) && o.definitions.len() == 200)
    );
}
