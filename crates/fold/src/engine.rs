//! The one place that runs tree-sitter: parsing under a time budget, running the definition query,
//! and walking trees without recursion. Every public feature (outline, folding ranges, symbols)
//! is built on these functions.

use std::cell::{Cell, RefCell};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{
    Node, ParseOptions, ParseState, Parser, QueryCursor, QueryCursorOptions, QueryCursorState,
    StreamingIterator, Tree,
};

use crate::language::CaptureRole;
use crate::{DefinitionKind, Language, Position, Span};

thread_local! {
    /// One parser per language per thread: parsers are cheap to keep and costly to rebuild.
    static PARSERS: RefCell<[Option<Parser>; crate::language::COUNT]> =
        const { RefCell::new([const { None }; crate::language::COUNT]) };
    static QUERY_CURSOR: RefCell<Option<QueryCursor>> = const { RefCell::new(None) };
}

/// The instant a budget starting now runs out (far in the future for huge budgets).
pub(crate) fn deadline_after(budget: Duration) -> Instant {
    let now = Instant::now();
    now.checked_add(budget)
        .unwrap_or_else(|| now + Duration::from_secs(60 * 60 * 24 * 365))
}

/// True when `source` holds nothing but whitespace and a byte-order mark: there is nothing to
/// outline, and some grammars (TLA+) would call the empty file a syntax error.
pub(crate) fn is_blank(source: &str) -> bool {
    source
        .chars()
        .all(|character| character.is_whitespace() || character == '\u{feff}')
}

/// Parse `source`, giving up (and returning `None`) once `deadline` has passed.
pub(crate) fn parse(language: Language, source: &str, deadline: Instant) -> Option<Tree> {
    PARSERS.with_borrow_mut(|parsers| {
        let parser = parsers[language.index()].get_or_insert_with(|| {
            let mut parser = Parser::new();
            parser
                .set_language(&language.grammar())
                .expect("bundled grammars are ABI-compatible (checked by a unit test)");
            parser
        });
        // Grammar scanners are C code that is not safe on every code point (tree-sitter-bash
        // crashes on `{` before a plane-14 character): parse the ASCII shadow, whose byte
        // ranges, lines and columns are the source's.
        let shadow = roo_context_core::grammar_input::ascii_shadow(source);
        // A language embedded in another document (Vue's `<script>`) parses only its regions;
        // a document without any parses as empty.
        let mut bytes = shadow.as_bytes();
        if let Some(find_regions) = language.region_finder() {
            let regions = find_regions(&shadow, deadline)?;
            if regions.is_empty() || parser.set_included_ranges(&regions).is_err() {
                // Regions come from one tree walk, in order and disjoint; were they not, the
                // file reads as having no code rather than stopping the process.
                bytes = &[];
                let _ = parser.set_included_ranges(&[]);
            }
        }
        // The request's cancellation flag (`$/cancelRequest`) stops the parse like its deadline.
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
            // A cancelled parser resumes its old parse on the next call unless reset.
            parser.reset();
        }
        tree
    })
}

/// One match of the definition query, before filtering and naming.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub(crate) kind: DefinitionKind,
    pub(crate) range: Span,
    pub(crate) name: Option<Span>,
    pub(crate) trait_bytes: Option<std::ops::Range<usize>>,
    pub(crate) pattern_index: usize,
}

/// Run the language's definition query over the tree. Returns the candidates sorted by start
/// (outer before inner, then query order), one per distinct node, and whether the query ran out
/// of time (the candidates are then partial).
pub(crate) fn candidates(
    language: Language,
    tree: &Tree,
    source: &str,
    deadline: Instant,
) -> (Vec<Candidate>, bool) {
    let compiled = language.query();
    let timed_out = Cell::new(false);
    let mut found = Vec::new();
    QUERY_CURSOR.with_borrow_mut(|cursor| {
        let cursor = cursor.get_or_insert_with(QueryCursor::new);
        let mut progress = |_: &QueryCursorState| {
            if Instant::now() >= deadline || roo_context_core::cancel::cancelled() {
                timed_out.set(true);
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let mut matches = cursor.matches_with_options(
            &compiled.query,
            tree.root_node(),
            source.as_bytes(),
            QueryCursorOptions::new().progress_callback(&mut progress),
        );
        while let Some(query_match) = matches.next() {
            let mut definition = None;
            let mut name = None;
            let mut trait_bytes = None;
            for capture in query_match.captures() {
                match compiled.roles[capture.index as usize] {
                    CaptureRole::Definition(kind) => definition = Some((kind, capture.node)),
                    CaptureRole::Name => name = Some(span_of(capture.node)),
                    CaptureRole::Trait => trait_bytes = Some(capture.node.byte_range()),
                    CaptureRole::Ignored => {}
                }
            }
            if let Some((kind, node)) = definition {
                found.push(Candidate {
                    kind,
                    range: without_trailing_whitespace(
                        definition_span(node, language.attribute_kinds()),
                        source,
                    ),
                    name,
                    trait_bytes,
                    pattern_index: query_match.pattern_index,
                });
            }
        }
    });
    found.sort_by_key(|candidate| {
        (
            candidate.range.start_byte,
            std::cmp::Reverse(candidate.range.end_byte),
            candidate.pattern_index,
            candidate.name.as_ref().map(|name| name.start_byte),
        )
    });
    // The same node matched by several patterns (or once per name, as Go's `const ( ... )`):
    // the first pattern in the query file wins.
    found.dedup_by(|later, earlier| {
        later.range.start_byte == earlier.range.start_byte
            && later.range.end_byte == earlier.range.end_byte
    });
    (found, timed_out.get() || Instant::now() >= deadline)
}

/// The span of a definition node, starting after any leading annotations, attributes or
/// decorators (`attributes`, possibly nested in a modifiers node), so that its first line is the
/// declaration itself.
fn definition_span(node: Node<'_>, attributes: &[&str]) -> Span {
    let mut span = without_trailing_extras(node);
    if attributes.is_empty() {
        return span;
    }
    // The first leaf of the node that is not inside an attribute starts the declaration.
    let mut start = None;
    let mut cursor = node.walk();
    'walk: loop {
        let current = cursor.node();
        let skipped = attributes.contains(&current.kind()) || current.is_extra();
        if !skipped {
            if current.child_count() == 0 {
                start = Some(current);
                break;
            }
            if cursor.goto_first_child() {
                continue;
            }
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() || cursor.node() == node {
                break 'walk;
            }
        }
    }
    if let Some(start) = start.filter(|start| start.start_byte() > span.start_byte) {
        let position = start.start_position();
        span.start = Position {
            line: to_u32(position.row),
            column: to_u32(position.column),
        };
        span.start_byte = start.start_byte();
    }
    span
}

/// The span of a definition node, ending at its last token that is not a comment. Grammars of
/// indentation-delimited blocks (Scala 3, Python) let a block own the comments that follow it,
/// which document the next definition.
fn without_trailing_extras(node: Node<'_>) -> Span {
    let mut span = span_of(node);
    let mut last = node;
    while let Some(child) = (0..last.child_count())
        .rev()
        .filter_map(|index| last.child(index))
        .find(|child| !child.is_extra())
    {
        last = child;
    }
    if last != node && last.end_byte() < span.end_byte {
        let end = last.end_position();
        span.end = Position {
            line: to_u32(end.row),
            column: to_u32(end.column),
        };
        span.end_byte = last.end_byte();
    }
    span
}

/// A span ends at its last non-blank character: a node that owns its final newline (C's
/// `#define`) or the blank lines after it (a TOML table) ends on the last line it shows.
fn without_trailing_whitespace(mut span: Span, source: &str) -> Span {
    let kept = text_end(source, span.start_byte, span.end_byte);
    if kept == span.end_byte || kept == span.start_byte {
        return span;
    }
    let removed = source.get(kept..span.end_byte).unwrap_or("");
    let line = span.end.line - to_u32(removed.matches('\n').count());
    let line_start = source[..kept].rfind('\n').map_or(0, |newline| newline + 1);
    span.end_byte = kept;
    span.end = Position {
        line,
        column: to_u32(kept - line_start),
    };
    span
}

/// The end of `source[start..end]` without its trailing whitespace (scans only that whitespace).
fn text_end(source: &str, start: usize, end: usize) -> usize {
    let bytes = source.as_bytes();
    let mut kept = end.min(bytes.len());
    while kept > start && bytes[kept - 1].is_ascii_whitespace() {
        kept -= 1;
    }
    kept
}

/// The last line that holds some of a node's text, not counting trailing whitespace it owns.
pub(crate) fn last_line(node: Node<'_>, source: &str) -> usize {
    let end = node.end_position();
    let kept = text_end(source, node.start_byte(), node.end_byte());
    if kept == node.end_byte() || kept == node.start_byte() {
        return end.row;
    }
    let removed = source.get(kept..node.end_byte()).unwrap_or("");
    end.row - removed.matches('\n').count()
}

/// The span of a node.
pub(crate) fn span_of(node: Node<'_>) -> Span {
    let start = node.start_position();
    let end = node.end_position();
    Span {
        start: Position {
            line: to_u32(start.row),
            column: to_u32(start.column),
        },
        end: Position {
            line: to_u32(end.row),
            column: to_u32(end.column),
        },
        start_byte: node.start_byte(),
        end_byte: node.end_byte(),
    }
}

pub(crate) fn to_u32(value: usize) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

/// What a tree walk should do after visiting a node.
pub(crate) enum Walk {
    /// Visit the node's children.
    Descend,
    /// Skip the node's children.
    Skip,
    /// End the walk.
    Stop,
}

/// Visit every node in document order (pre-order) with a cursor: no recursion, so arbitrarily
/// deep trees cannot overflow the stack.
pub(crate) fn walk_tree(tree: &Tree, mut visit: impl FnMut(Node<'_>) -> Walk) {
    let mut cursor = tree.walk();
    loop {
        let descend = match visit(cursor.node()) {
            Walk::Descend => true,
            Walk::Skip => false,
            Walk::Stop => return,
        };
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

/// The 0-based line of the first syntax error (an `ERROR` or missing node), if any.
pub(crate) fn first_syntax_error_line(tree: &Tree) -> Option<u32> {
    if !tree.root_node().has_error() {
        return None;
    }
    let mut line = None;
    walk_tree(tree, |node| {
        if node.is_error() || node.is_missing() {
            line = Some(to_u32(node.start_position().row));
            Walk::Stop
        } else if node.has_error() {
            Walk::Descend
        } else {
            Walk::Skip
        }
    });
    line.or(Some(0))
}
