//! Languages whose code sits inside another document: the `<script>` blocks of a Vue single-file
//! component, the template text of `.ejs`/`.erb` files. A host grammar finds the regions; the
//! engine then parses only those byte ranges with the row's grammar (tree-sitter's included
//! ranges), so every position is already a position in the whole file.

// With one of the two features off, half of the helpers have no caller.
#![cfg_attr(not(all(feature = "more", feature = "rare")), allow(dead_code))]

use std::time::Instant;

use tree_sitter::{Point, Range};

use crate::engine::{ParseLimits, ParseStop};
#[cfg(feature = "rare")]
use {
    std::cell::RefCell,
    tree_sitter::{Parser, Tree},
};

#[cfg(feature = "rare")]
thread_local! {
    /// One embedded-template parser per thread.
    static TEMPLATE_PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Parse `shadow` (the ASCII shadow of the file) with the embedded-template grammar.
#[cfg(feature = "rare")]
fn parse_template(shadow: &str, limits: &ParseLimits) -> Result<Tree, ParseStop> {
    TEMPLATE_PARSER.with_borrow_mut(|parser| {
        let parser = parser.get_or_insert_with(|| {
            let mut parser = Parser::new();
            parser
                .set_language(&tree_sitter_embedded_template::LANGUAGE.into())
                .expect("bundled grammars are ABI-compatible (checked by a unit test)");
            parser
        });
        crate::engine::parse_bounded(parser, shadow.as_bytes(), limits)
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

#[cfg(feature = "more")]
/// The contents of a Vue component's `<script>` and `<script setup>` blocks, in file order.
/// Blocks inside `<template>` (Vue ignores them), blocks in another language (`lang="coffee"`)
/// and `src=` blocks without text are left out.
///
/// The top level of a single-file component is scanned by hand, as Vue's compiler reads it: a
/// block runs to its first closing tag, except `<template>`, which nests. An HTML grammar is not
/// used because its scanner keeps a bounded stack of open tags: 10,000 nested `<div>`s in the
/// template made it lose the template's end and with it every script after it.
pub(crate) fn vue_scripts(shadow: &str, limits: &ParseLimits) -> Result<Vec<Range>, ParseStop> {
    let deadline = limits.deadline;
    let bytes = shadow.as_bytes();
    let mut regions = Vec::new();
    let mut lines = LineCounter::default();
    let mut at = 0;
    while let Some(offset) = find(bytes, b"<", at) {
        if Instant::now() >= deadline {
            return Err(ParseStop::Deadline);
        }
        if bytes[offset..].starts_with(b"<!--") {
            at = find(bytes, b"-->", offset + 4).map_or(bytes.len(), |end| end + 3);
            continue;
        }
        let name_start = offset + 1;
        let name_end = name_start
            + bytes[name_start..]
                .iter()
                .take_while(|byte| byte.is_ascii_alphanumeric() || **byte == b'-')
                .count();
        if name_end == name_start {
            at = name_start;
            continue;
        }
        let name = shadow[name_start..name_end].to_ascii_lowercase();
        let Some(tag_end) = start_tag_end(bytes, name_end) else {
            break;
        };
        let self_closing = bytes[..tag_end].ends_with(b"/>");
        let content_start = tag_end;
        if self_closing {
            at = content_start;
            continue;
        }
        let content_end = if name == "template" {
            matching_template_end(bytes, content_start)
        } else {
            find_closing_tag(bytes, &name, content_start)
        };
        if name == "script" && content_end > content_start {
            let lang = attribute_value(&shadow[name_end..tag_end], "lang").unwrap_or_default();
            if VUE_SCRIPT_LANGS.contains(&lang.to_ascii_lowercase().as_str()) {
                regions.push(Range {
                    start_byte: content_start,
                    end_byte: content_end,
                    start_point: lines.point(bytes, content_start),
                    end_point: lines.point(bytes, content_end),
                });
            }
        }
        at = find(bytes, b">", content_end).map_or(bytes.len(), |end| end + 1);
    }
    Ok(regions)
}

/// The byte after the `>` that ends a start tag whose name ends at `from` (quotes respected).
fn start_tag_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut quote = None;
    for (index, &byte) in bytes.iter().enumerate().skip(from) {
        match quote {
            Some(open) if byte == open => quote = None,
            Some(_) => {}
            None if byte == b'"' || byte == b'\'' => quote = Some(byte),
            None if byte == b'>' => return Some(index + 1),
            None => {}
        }
    }
    None
}

/// Where `</name` (any case) first starts at or after `from`, or the end of the text.
fn find_closing_tag(bytes: &[u8], name: &str, from: usize) -> usize {
    let mut at = from;
    while let Some(offset) = find(bytes, b"</", at) {
        let after = offset + 2;
        let candidate = &bytes[after..bytes.len().min(after + name.len())];
        let ends_name = bytes
            .get(after + name.len())
            .is_none_or(|byte| !byte.is_ascii_alphanumeric() && *byte != b'-');
        if candidate.eq_ignore_ascii_case(name.as_bytes()) && ends_name {
            return offset;
        }
        at = after;
    }
    bytes.len()
}

/// Where the `</template>` closing the template whose content starts at `from` starts: nested
/// `<template>`s (`v-if`, slots) open and close in between; comments are skipped.
fn matching_template_end(bytes: &[u8], from: usize) -> usize {
    let mut depth = 1usize;
    let mut at = from;
    while let Some(offset) = find(bytes, b"<", at) {
        let rest = &bytes[offset..];
        if rest.starts_with(b"<!--") {
            at = find(bytes, b"-->", offset + 4).map_or(bytes.len(), |end| end + 3);
            continue;
        }
        let (closing, name_at) = if rest.starts_with(b"</") {
            (true, offset + 2)
        } else {
            (false, offset + 1)
        };
        let is_template = bytes
            .get(name_at..name_at + 8)
            .is_some_and(|name| name.eq_ignore_ascii_case(b"template"))
            && bytes
                .get(name_at + 8)
                .is_none_or(|byte| !byte.is_ascii_alphanumeric() && *byte != b'-');
        if is_template {
            if closing {
                depth -= 1;
                if depth == 0 {
                    return offset;
                }
            } else if !start_tag_end(bytes, name_at + 8)
                .is_some_and(|end| bytes[..end].ends_with(b"/>"))
            {
                depth += 1;
            }
        }
        at = name_at;
    }
    bytes.len()
}

/// The value of attribute `wanted` in a start tag's attribute text, without quotes (`""` for a
/// bare attribute).
fn attribute_value(attributes: &str, wanted: &str) -> Option<String> {
    let bytes = attributes.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        while at < bytes.len() && (bytes[at].is_ascii_whitespace() || bytes[at] == b'/') {
            at += 1;
        }
        let name_start = at;
        while at < bytes.len() && !bytes[at].is_ascii_whitespace() && !b"=>/".contains(&bytes[at]) {
            at += 1;
        }
        let name = &attributes[name_start..at];
        if name.is_empty() {
            at += 1;
            continue;
        }
        let mut value = "";
        if bytes.get(at) == Some(&b'=') {
            at += 1;
            match bytes.get(at) {
                Some(&quote) if quote == b'"' || quote == b'\'' => {
                    let end = find(bytes, &[quote], at + 1).unwrap_or(bytes.len());
                    value = &attributes[at + 1..end];
                    at = end + 1;
                }
                _ => {
                    let start = at;
                    while at < bytes.len() && !bytes[at].is_ascii_whitespace() && bytes[at] != b'>'
                    {
                        at += 1;
                    }
                    value = &attributes[start..at];
                }
            }
        }
        if name.eq_ignore_ascii_case(wanted) {
            return Some(value.trim().to_owned());
        }
    }
    None
}

/// The first occurrence of `needle` in `bytes` at or after `from`.
fn find(bytes: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    if from >= bytes.len() {
        return None;
    }
    bytes[from..]
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|position| from + position)
}

/// Rows and columns of increasing byte offsets, counted once over the text.
#[derive(Default)]
struct LineCounter {
    offset: usize,
    row: usize,
    line_start: usize,
}

impl LineCounter {
    fn point(&mut self, bytes: &[u8], offset: usize) -> Point {
        for (index, byte) in bytes.iter().enumerate().take(offset).skip(self.offset) {
            if *byte == b'\n' {
                self.row += 1;
                self.line_start = index + 1;
            }
        }
        self.offset = self.offset.max(offset);
        Point {
            row: self.row,
            column: offset - self.line_start,
        }
    }
}

#[cfg(feature = "rare")]
/// The template text of an `.ejs`/`.erb` file: everything outside `<% ... %>` tags.
pub(crate) fn template_text(shadow: &str, limits: &ParseLimits) -> Result<Vec<Range>, ParseStop> {
    let tree = parse_template(shadow, limits)?;
    let root = tree.root_node();
    let mut cursor = root.walk();
    let regions = root
        .children(&mut cursor)
        .filter(|child| child.kind() == "content" && child.end_byte() > child.start_byte())
        .map(|content| content.range())
        .collect();
    Ok(regions)
}
