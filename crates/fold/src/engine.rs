//! The one place that runs tree-sitter: parsing under a time budget, running the definition query,
//! and walking trees without recursion. Every public feature (outline, folding ranges, symbols)
//! is built on these functions.
//! One file on purpose: every parse of the crate goes through `parse_bounded` here (embedded
//! templates too), and parsing and the definition query share the private per-thread `PARSERS`
//! and `QUERY_CURSOR`.
//!
//! ## Decision: Data has a name, values are not functions
//!
//! TypeScript/JavaScript queries capture multi-line top-level `const`/`let`/`export const` whose
//! value is an object, array, call, `new`, class expression or template as `constant`; when a node
//! is both (`const B = memo(() => ...)`), the function pattern wins (`engine::candidates` sorts
//! data last). A call holding a function is a function only for known wrappers (`memo`,
//! `forwardRef`, `observer`, `lazy`, `useCallback`, `with*`, `connect`), so `useMemo(...)`,
//! `Array.from(...)` and `setTimeout(...)` are never labelled functions. Go `const (`/`var (` lines
//! carry their names (capped at 120 characters, then `…+N`).
//!
//! ## Decision: Grammar limitations are not syntax errors
//!
//! tree-sitter-typescript 0.23.2 is the newest release on crates.io (checked with `cargo info`); it
//! still misreads import types inside type arguments (`Promise<import("x").T[]>`; `typeof
//! import("os")` parses) and `&name=` in JSX attribute strings. `engine::first_syntax_error` finds
//! the innermost error node (so a tree that is one big `ERROR` is not reported on line 1) and, when
//! every error of the file is one of these known constructs, reports `grammarLimitation` with the
//! construct and its line.

use std::cell::{Cell, RefCell};
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{
    Node, ParseOptions, ParseState, Parser, QueryCursor, QueryCursorOptions, QueryCursorState,
    StreamingIterator, Tree,
};

use crate::language::CaptureRole;
use crate::{DefinitionKind, Language, OutlineDiagnostic, Position, Span};

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

/// Why a parse gave no tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ParseStop {
    /// The deadline passed or the request was cancelled.
    Deadline,
    /// The parse grew the process by more than this many bytes (see [`ParseLimits`]).
    Memory(usize),
    /// The source nests brackets deeper than this: it was not parsed.
    TooDeep(usize),
}

/// What one parse may take besides time.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ParseLimits {
    pub(crate) deadline: Instant,
    /// Most bytes the process may grow by during the parse (resident set, sampled).
    pub(crate) max_memory: usize,
    /// Deepest bracket nesting parsed at all.
    pub(crate) max_nesting: usize,
}

impl ParseLimits {
    /// The limits `options` set, the deadline starting now.
    pub(crate) fn of(options: &crate::OutlineOptions) -> ParseLimits {
        ParseLimits {
            deadline: deadline_after(options.parse_timeout),
            max_memory: options.max_parse_memory,
            max_nesting: options.max_nesting,
        }
    }
}

impl ParseStop {
    /// The diagnostic that tells why the file has no tree.
    pub(crate) fn diagnostic(self, options: &crate::OutlineOptions) -> OutlineDiagnostic {
        match self {
            ParseStop::Deadline => OutlineDiagnostic::Timeout {
                budget: options.parse_timeout,
                during_query: false,
            },
            ParseStop::Memory(limit) => OutlineDiagnostic::MemoryLimit { limit },
            ParseStop::TooDeep(limit) => OutlineDiagnostic::TooDeep { limit },
        }
    }
}

/// Parse `source` within `limits`.
pub(crate) fn parse(
    language: Language,
    source: &str,
    limits: &ParseLimits,
) -> Result<Tree, ParseStop> {
    // Some grammar scanners recurse once per nesting level (OCaml's comments): a file nested
    // deeper than any real code is refused before the grammar sees it.
    if nesting_beyond(source.as_bytes(), limits.max_nesting).is_some() {
        return Err(ParseStop::TooDeep(limits.max_nesting));
    }
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
            let regions = find_regions(&shadow, limits)?;
            if regions.is_empty() || parser.set_included_ranges(&regions).is_err() {
                // Regions come from one tree walk, in order and disjoint; were they not, the
                // file reads as having no code rather than stopping the process.
                bytes = &[];
                let _ = parser.set_included_ranges(&[]);
            }
        }
        parse_bounded(parser, bytes, limits)
    })
}

/// The first bracket depth past `limit` in `bytes` (`(`, `[`, `{` open, their pairs close; a
/// closer without an opener is ignored), or `None`. Strings and comments are not skipped, so
/// this over-counts, which only matters past a limit no real file reaches. One pass, no
/// allocation.
pub(crate) fn nesting_beyond(bytes: &[u8], limit: usize) -> Option<usize> {
    let mut depth = 0usize;
    for byte in bytes {
        match byte {
            b'(' | b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return Some(depth);
                }
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// How many progress callbacks pass between two samples of the resident set (a callback comes
/// every 100 parse operations; a sample is one `pread` of `/proc/self/statm`). A callback that
/// comes more than [`SAMPLE_AFTER`] after the last sample samples anyway: slow operations are
/// the ones that grow.
const CALLBACKS_PER_MEMORY_SAMPLE: u32 = 16;

/// See [`CALLBACKS_PER_MEMORY_SAMPLE`].
const SAMPLE_AFTER: std::time::Duration = std::time::Duration::from_millis(1);

/// Growth a parse may always reach, whatever its size.
const MEMORY_FLOOR: usize = 64 << 20;

/// Most bytes of growth per byte of source read so far, past [`MEMORY_FLOOR`]. A tree takes
/// tens of bytes per source byte; error recovery gone quadratic takes tens of thousands (16 KB
/// of Python took 1 GB), and tree-sitter checks progress only every 100 operations, each of
/// which grows with the recovery's stack: waiting for the absolute limit lets one operation
/// run seconds past the deadline. Stopping at the floor keeps those operations small.
const MAX_GROWTH_PER_SOURCE_BYTE: usize = 1024;

/// Parses `bytes` with `parser`, stopped by the deadline, the request's cancellation flag
/// (`$/cancelRequest`) or the memory limits; the one bounded parse of every grammar, embedded
/// templates included.
pub(crate) fn parse_bounded(
    parser: &mut Parser,
    bytes: &[u8],
    limits: &ParseLimits,
) -> Result<Tree, ParseStop> {
    let memory = crate::memory::Growth::start();
    let allowed_at = |offset: usize| {
        limits
            .max_memory
            .min(MEMORY_FLOOR.max(offset.saturating_mul(MAX_GROWTH_PER_SOURCE_BYTE)))
    };
    let mut callbacks = 0u32;
    let mut last_sample = Instant::now();
    let mut stop = ParseStop::Deadline;
    let mut progress = |state: &ParseState| {
        let now = Instant::now();
        if now >= limits.deadline || roo_context_core::cancel::cancelled() {
            return ControlFlow::Break(());
        }
        callbacks += 1;
        let allowed = allowed_at(state.current_byte_offset());
        // The counted peak is a thread-local read: every callback. The resident set is a
        // system call: sampled.
        let sample_resident = callbacks.is_multiple_of(CALLBACKS_PER_MEMORY_SAMPLE)
            || now.duration_since(last_sample) > SAMPLE_AFTER;
        let grown = if sample_resident {
            last_sample = now;
            memory.grown()
        } else {
            memory.counted_peak()
        };
        if grown > allowed {
            stop = ParseStop::Memory(allowed);
            return ControlFlow::Break(());
        }
        ControlFlow::Continue(())
    };
    let tree = parser.parse_with_options(
        &mut |offset, _| &bytes[offset.min(bytes.len())..],
        None,
        Some(ParseOptions::new().progress_callback(&mut progress)),
    );
    match tree {
        // A parse can grow past its limit between two callbacks (one operation of error
        // recovery gone quadratic allocates tens of megabytes) and finish before the next: a
        // limit reached is never a pass, so the peak is judged once more at the end.
        Some(_) if memory.counted_peak() > allowed_at(bytes.len()) => {
            parser.reset();
            Err(ParseStop::Memory(allowed_at(bytes.len())))
        }
        Some(tree) => Ok(tree),
        None => {
            // A cancelled parser resumes its old parse on the next call unless reset; the reset
            // frees what the parse held.
            parser.reset();
            Err(stop)
        }
    }
}

/// One match of the definition query, before filtering and naming.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub(crate) kind: DefinitionKind,
    pub(crate) range: Span,
    pub(crate) name: Option<Span>,
    pub(crate) trait_bytes: Option<std::ops::Range<usize>>,
    pub(crate) pattern_index: usize,
    /// The names declared by a grouped declaration (Go's `const ( ... )` / `var ( ... )`),
    /// joined with `, ` and cut to [`GROUP_NAMES_MAX_CHARS`], so its first line names something.
    pub(crate) group_names: Option<String>,
}

/// Longest list of names shown for a grouped declaration, in characters (before ` …+N`).
pub(crate) const GROUP_NAMES_MAX_CHARS: usize = 120;

/// Node kinds whose children declare several names under one keyword line.
const GROUPED_DECLARATIONS: &[&str] = &["const_declaration", "var_declaration"];

/// The names of a grouped declaration's specs, joined and capped (linear in the names kept:
/// a block of 100,000 names costs one pass over its children, no more).
fn group_names(node: Node<'_>, source: &str) -> Option<String> {
    let mut names = String::new();
    let mut shown = 0usize;
    let mut total = 0usize;
    let mut cursor = node.walk();
    let mut specs: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
    // Go's `var ( ... )` holds its specs in one `var_spec_list`.
    if let [list] = specs[..]
        && list.kind().ends_with("_list")
    {
        let mut list_cursor = list.walk();
        specs = list.named_children(&mut list_cursor).collect();
    }
    for spec in specs {
        let mut spec_cursor = spec.walk();
        let spec_names = spec.children_by_field_name("name", &mut spec_cursor);
        // The field also yields the commas between names (`a, b = 1, 2`).
        for name in spec_names.filter(|name| name.is_named()) {
            total += 1;
            let text = source.get(name.byte_range()).unwrap_or("");
            if names.chars().count() + text.chars().count() <= GROUP_NAMES_MAX_CHARS {
                if !names.is_empty() {
                    names.push_str(", ");
                }
                names.push_str(text);
                shown += 1;
            }
        }
    }
    if total == 0 {
        return None;
    }
    if shown < total {
        names.push_str(&format!(", …+{}", total - shown));
    }
    Some(names)
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
            if let Some(field) = &compiled.name_fields[query_match.pattern_index]
                && name.is_none()
                && let Some((_, node)) = definition
            {
                match node.child_by_field_name(field).filter(|n| n.is_named()) {
                    Some(named) => name = Some(span_of(named)),
                    // As `field: (_) @name` would: no named child there, no match.
                    None => continue,
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
                    group_names: None,
                });
            }
        }
    });
    found.sort_by_key(|candidate| {
        (
            candidate.range.start_byte,
            std::cmp::Reverse(candidate.range.end_byte),
            // A node that is both data and a function (`const Button = memo(() => ...)`) is
            // a function: the data patterns only name what no other pattern names.
            matches!(
                candidate.kind,
                DefinitionKind::Constant | DefinitionKind::Variable
            ),
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
    for candidate in &mut found {
        if !matches!(
            candidate.kind,
            DefinitionKind::Constant | DefinitionKind::Variable
        ) {
            continue;
        }
        let node = tree
            .root_node()
            .descendant_for_byte_range(candidate.range.start_byte, candidate.range.end_byte);
        if let Some(node) = node.filter(|node| GROUPED_DECLARATIONS.contains(&node.kind())) {
            candidate.group_names = group_names(node, source);
        }
    }
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
    walk_tree_with_ancestors(tree, |node, _| visit(node));
}

/// [`walk_tree`], also passing each node's ancestors (root first, parent last), which the walk
/// keeps itself. Never ask a node for its `parent()`: tree-sitter finds a parent by descending
/// from the root, recursively (in C) for a zero-width node, so on a deep tree it is quadratic
/// and overflows the stack (issue 25: a `MISSING` node 4,000 levels down).
pub(crate) fn walk_tree_with_ancestors(
    tree: &Tree,
    mut visit: impl FnMut(Node<'_>, &[Node<'_>]) -> Walk,
) {
    let mut cursor = tree.walk();
    let mut ancestors: Vec<Node<'_>> = Vec::new();
    loop {
        let node = cursor.node();
        let descend = match visit(node, &ancestors) {
            Walk::Descend => true,
            Walk::Skip => false,
            Walk::Stop => return,
        };
        if descend && cursor.goto_first_child() {
            ancestors.push(node);
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            ancestors.pop();
        }
    }
}

/// The first syntax error of a tree: where it is, and whether it is a construct the grammar
/// cannot read although the language allows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// 0-based line of the innermost error node (or missing node), or of the construct the
    /// grammar cannot read.
    pub(crate) line: u32,
    /// Set when every error of the tree is a known grammar limitation (valid source).
    pub(crate) limitation: Option<&'static str>,
}

/// What [`grammar_limitation`] reports (a closed set, so a parse worker's answer names one by
/// its index).
pub(crate) const GRAMMAR_LIMITATIONS: [&str; 2] = [
    "an import type (`import(\"…\")`) in type arguments",
    "`&` in JSX text or an attribute string (read as an HTML entity)",
];

/// Known gaps of the bundled grammars (tree-sitter-typescript 0.23.2, the newest release):
/// valid TypeScript they misread: what, and the byte where the construct is. `None` when the
/// error node is not one of them.
fn grammar_limitation(
    language: Language,
    error: Node<'_>,
    ancestors: &[Node<'_>],
    source: &str,
) -> Option<(&'static str, usize)> {
    if !matches!(language, Language::TypeScript | Language::Tsx) {
        return None;
    }
    // Bytes, not `str` slicing: the error starts where the ASCII shadow says, and newlines are
    // always character boundaries of the source.
    let bytes = source.as_bytes();
    let at = error.start_byte().min(bytes.len());
    let line_start = bytes[..at]
        .iter()
        .rposition(|byte| *byte == b'\n')
        .map_or(0, |newline| newline + 1);
    let line_end = bytes[at..]
        .iter()
        .position(|byte| *byte == b'\n')
        .map_or(bytes.len(), |newline| at + newline);
    let line = source.get(line_start..line_end).unwrap_or("");
    // `Promise<import("x").T[]>`, `f<typeof import("x")>()`: an import type inside type
    // arguments, which the grammar reads as comparisons.
    // `x: import("y").T[]` in a type annotation likewise.
    if let Some(import) = line.find("import(")
        && ((line[..import].contains('<') && line[import..].contains('>'))
            || line[..import].trim_end().ends_with(':')
            || line[..import].trim_end().ends_with('|'))
    {
        return Some((GRAMMAR_LIMITATIONS[0], line_start + import));
    }
    // `a &b` in JSX text, `href="?a=1&name=x"`: read as the start of an HTML entity. The
    // innermost error may open where the element does, before the `&`: the whole erroneous
    // region (the outermost error around it) is what must hold one.
    let region = ancestors
        .iter()
        .rev()
        .take_while(|ancestor| ancestor.is_error())
        .last()
        .copied()
        .unwrap_or(error);
    let region_text = source
        .get(region.start_byte()..region.end_byte().min(region.start_byte() + 64 * 1024))
        .unwrap_or("");
    // The `&` itself: on the error's line, else the first one of the region.
    let ampersand = match line.find('&') {
        Some(offset) => line_start + offset,
        None => region.start_byte() + region_text.find('&')?,
    };
    let mut cursor = error.walk();
    let jsx_child = error
        .named_children(&mut cursor)
        .any(|child| child.kind().starts_with("jsx_"));
    let jsx_ancestor = ancestors
        .iter()
        .rev()
        .take(4)
        .any(|node| node.kind().starts_with("jsx_"));
    (jsx_child || jsx_ancestor).then_some((GRAMMAR_LIMITATIONS[1], ampersand))
}

/// How many error nodes are classified at most (a file of garbage has one per token).
const MAX_CLASSIFIED_ERRORS: usize = 64;

/// The first syntax error, if any: the innermost error node of the first erroneous region (so a
/// file whose whole tree is one `ERROR` is not reported on line 1), and whether every error is a
/// known grammar limitation.
pub(crate) fn first_syntax_error(
    language: Language,
    tree: &Tree,
    source: &str,
) -> Option<SyntaxError> {
    if !tree.root_node().has_error() {
        return None;
    }
    let mut first: Option<u32> = None;
    let mut first_unknown: Option<u32> = None;
    let mut limitation = None;
    // Errors inside the top-level statement that holds a known limitation are its cascade (the
    // grammar recovers badly after it), not errors of their own.
    let mut cascade_end = 0usize;
    let mut seen = 0usize;
    walk_tree_with_ancestors(tree, |node, ancestors| {
        let is_error = node.is_error() || node.is_missing();
        if is_error && !has_error_child(node) {
            let line = to_u32(node.start_position().row);
            first.get_or_insert(line);
            if node.start_byte() >= cascade_end {
                match grammar_limitation(language, node, ancestors, source) {
                    Some((construct, at)) => {
                        let line = to_u32(
                            source.as_bytes()[..at.min(source.len())]
                                .iter()
                                .filter(|byte| **byte == b'\n')
                                .count(),
                        );
                        limitation.get_or_insert((construct, line));
                        // The root's child holding the node: how far the cascade may reach.
                        let statement = ancestors.get(1).copied().unwrap_or(node);
                        cascade_end = cascade_end.max(statement.end_byte());
                    }
                    None => {
                        first_unknown = Some(line);
                        return Walk::Stop;
                    }
                }
            }
            seen += 1;
            if seen >= MAX_CLASSIFIED_ERRORS {
                // Too many to be a grammar gap: a real error, reported where the first is.
                first_unknown = first;
                return Walk::Stop;
            }
            Walk::Skip
        } else if node.has_error() || is_error {
            Walk::Descend
        } else {
            Walk::Skip
        }
    });
    Some(match (first_unknown, limitation) {
        (None, Some((construct, line))) => SyntaxError {
            line,
            limitation: Some(construct),
        },
        _ => SyntaxError {
            line: first_unknown.or(first).unwrap_or(0),
            limitation: None,
        },
    })
}

/// The diagnostic for a tree's syntax errors (one owner for outlines and folding ranges).
pub(crate) fn syntax_diagnostic(
    language: Language,
    tree: &Tree,
    source: &str,
) -> Option<OutlineDiagnostic> {
    let error = first_syntax_error(language, tree, source)?;
    Some(match error.limitation {
        Some(construct) => OutlineDiagnostic::GrammarLimitation {
            line: error.line,
            construct,
        },
        None => OutlineDiagnostic::SyntaxErrors {
            first_error_line: error.line,
        },
    })
}

/// True when some child of `node` is (or holds) an error: the error is further in.
fn has_error_child(node: Node<'_>) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .any(|child| child.has_error() || child.is_error() || child.is_missing())
}
