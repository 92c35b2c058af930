//! Outlines: the definitions of one file, filtered and ordered by the original's rules, and their
//! `start--end | first line` text form.

use std::fmt;
use std::time::Duration;

use crate::Language;
use crate::engine::{self, Candidate};
use crate::text::{LineIndex, shorten_line};

/// What a definition is. Names follow the query captures (`@definition.<kind>`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefinitionKind {
    /// A class (TypeScript, JavaScript, Python).
    Class,
    /// A TypeScript or Go interface.
    Interface,
    /// A Rust or Go struct (or Rust union).
    Struct,
    /// An enum.
    Enum,
    /// A Rust trait.
    Trait,
    /// A Rust `impl` block; its name is `Type` or `Trait for Type`.
    Impl,
    /// A module or namespace.
    Module,
    /// A free function (including named arrow functions).
    Function,
    /// A function inside a class, impl, trait or interface.
    Method,
    /// A TypeScript/JavaScript `constructor`.
    Constructor,
    /// A class field that does not hold a function.
    Field,
    /// A type alias.
    Type,
    /// A constant or static.
    Constant,
    /// A variable (Go `var ( ... )` groups).
    Variable,
    /// A `macro_rules!` macro.
    Macro,
    /// A test or test group (`describe`, `it`, `test`).
    Test,
    /// A property (C# properties; JSON keys holding an object or array).
    Property,
    /// A CSS rule set, named by its selectors.
    Rule,
    /// An HTML landmark element, `<script>` or `<style>`.
    Element,
    /// A capture kind this version does not know.
    Other,
    /// A Markdown header and its section.
    Heading,
}

impl DefinitionKind {
    pub(crate) fn from_capture_suffix(suffix: &str) -> DefinitionKind {
        match suffix {
            "class" => DefinitionKind::Class,
            "interface" => DefinitionKind::Interface,
            "struct" => DefinitionKind::Struct,
            "enum" => DefinitionKind::Enum,
            "trait" => DefinitionKind::Trait,
            "impl" => DefinitionKind::Impl,
            "module" => DefinitionKind::Module,
            "function" => DefinitionKind::Function,
            "method" => DefinitionKind::Method,
            "constructor" => DefinitionKind::Constructor,
            "field" => DefinitionKind::Field,
            "type" => DefinitionKind::Type,
            "constant" => DefinitionKind::Constant,
            "variable" => DefinitionKind::Variable,
            "macro" => DefinitionKind::Macro,
            "test" => DefinitionKind::Test,
            "property" => DefinitionKind::Property,
            "rule" => DefinitionKind::Rule,
            "element" => DefinitionKind::Element,
            _ => DefinitionKind::Other,
        }
    }

    /// Kinds whose directly nested functions are methods.
    fn holds_methods(self) -> bool {
        matches!(
            self,
            DefinitionKind::Class
                | DefinitionKind::Interface
                | DefinitionKind::Struct
                | DefinitionKind::Enum
                | DefinitionKind::Trait
                | DefinitionKind::Impl
        )
    }

    /// A short lowercase name (`class`, `function`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            DefinitionKind::Class => "class",
            DefinitionKind::Interface => "interface",
            DefinitionKind::Struct => "struct",
            DefinitionKind::Enum => "enum",
            DefinitionKind::Trait => "trait",
            DefinitionKind::Impl => "impl",
            DefinitionKind::Module => "module",
            DefinitionKind::Function => "function",
            DefinitionKind::Method => "method",
            DefinitionKind::Constructor => "constructor",
            DefinitionKind::Field => "field",
            DefinitionKind::Type => "type",
            DefinitionKind::Constant => "constant",
            DefinitionKind::Variable => "variable",
            DefinitionKind::Macro => "macro",
            DefinitionKind::Test => "test",
            DefinitionKind::Property => "property",
            DefinitionKind::Rule => "rule",
            DefinitionKind::Element => "element",
            DefinitionKind::Other => "other",
            DefinitionKind::Heading => "heading",
        }
    }

    /// The LSP `SymbolKind` number for this kind (the server converts it to its own type).
    pub fn lsp_symbol_kind(self) -> u32 {
        match self {
            DefinitionKind::Module => 2,
            DefinitionKind::Property => 7,
            // As VS Code's CSS and HTML services: selectors are classes, elements are fields.
            DefinitionKind::Rule => 5,
            DefinitionKind::Element => 8,
            DefinitionKind::Class => 5,
            DefinitionKind::Method => 6,
            DefinitionKind::Field => 8,
            DefinitionKind::Constructor => 9,
            DefinitionKind::Enum => 10,
            DefinitionKind::Interface | DefinitionKind::Trait => 11,
            DefinitionKind::Function | DefinitionKind::Macro | DefinitionKind::Test => 12,
            DefinitionKind::Variable | DefinitionKind::Other => 13,
            DefinitionKind::Constant => 14,
            DefinitionKind::Impl => 19,
            DefinitionKind::Struct => 23,
            DefinitionKind::Heading => 15,
            DefinitionKind::Type => 26,
        }
    }
}

/// A position: 0-based line and 0-based **byte** column (the server converts to UTF-16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Position {
    /// 0-based line (lines end at `\n`).
    pub line: u32,
    /// 0-based byte offset within the line.
    pub column: u32,
}

/// A range of source text, as positions and as byte offsets into the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// Where the range starts.
    pub start: Position,
    /// Where the range ends (exclusive).
    pub end: Position,
    /// Byte offset of `start` in the source.
    pub start_byte: usize,
    /// Byte offset of `end` in the source (exclusive).
    pub end_byte: usize,
}

impl Span {
    /// The byte range of this span.
    pub fn bytes(&self) -> std::ops::Range<usize> {
        self.start_byte..self.end_byte
    }

    fn contains(&self, other: &Span) -> bool {
        self.start_byte <= other.start_byte && other.end_byte <= self.end_byte
    }
}

/// One definition found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    /// What it is.
    pub kind: DefinitionKind,
    /// Its name, single-line (`Trait for Type` for Rust trait impls, the text of a test's title).
    pub name: String,
    /// The whole definition.
    pub range: Span,
    /// The name (an empty span at the start of `range` when the definition has no name).
    pub selection_range: Span,
    /// The raw text of the definition's first line (untrimmed, without `\r`; very long lines are
    /// cut, see [`OutlineOptions::max_line_chars`]).
    pub first_line: String,
    /// Index (in the same list) of the innermost definition containing this one.
    pub parent: Option<usize>,
    /// Tests (`it`, `test`) directly inside this definition that are too short to be listed
    /// themselves; they still count in a test summary.
    pub short_tests: u32,
}

impl Definition {
    /// 0-based first line.
    pub fn start_line(&self) -> u32 {
        self.range.start.line
    }

    /// 0-based last line (inclusive).
    pub fn end_line(&self) -> u32 {
        self.range.end.line
    }

    /// Number of lines spanned (`end - start + 1`).
    pub fn line_count(&self) -> u32 {
        self.end_line() - self.start_line() + 1
    }

    /// The outline line `"<start>--<end> | <first line>\n"` with 1-based line numbers.
    pub fn outline_line(&self) -> String {
        format!(
            "{}--{} | {}\n",
            self.start_line() + 1,
            self.end_line() + 1,
            self.first_line
        )
    }
}

/// Limits and rules for outlining one file.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct OutlineOptions {
    /// Definitions spanning fewer lines are left out (the original's `MIN_COMPONENT_LINES`, 4).
    pub min_lines: u32,
    /// Time allowed for parsing and querying one file; past it the outline is empty (or partial)
    /// with a [`OutlineDiagnostic::Timeout`].
    pub parse_timeout: Duration,
    /// Larger sources are not parsed at all ([`OutlineDiagnostic::TooLarge`]).
    pub max_source_bytes: usize,
    /// First lines longer than this (in UTF-16 units) are cut and marked with ` …`.
    pub max_line_chars: usize,
    /// Most bytes a parse may grow the process by (the resident set, sampled while it runs);
    /// past it the parse stops with [`OutlineDiagnostic::MemoryLimit`]. Some grammars' error
    /// recovery grows memory with the square of the input.
    pub max_parse_memory: usize,
    /// Deepest bracket nesting (`(`, `[`, `{`, counted in one pass over the bytes) that is
    /// parsed at all; deeper sources get [`OutlineDiagnostic::TooDeep`]. Grammar scanners that
    /// recurse per level (OCaml's comments) stay far inside the parse thread's stack.
    pub max_nesting: usize,
    /// Most document symbols, folding ranges or outline definitions in one answer; past it the
    /// first ones (in source order) are kept with [`OutlineDiagnostic::Truncated`].
    pub max_results: usize,
    /// Where tree-sitter runs: in this process (the default), or in a capped worker process
    /// ([`crate::isolation`]), the only bound that holds for a parse that takes gigabytes
    /// between two progress callbacks.
    pub isolation: crate::isolation::Isolation,
}

/// Default [`OutlineOptions::max_parse_memory`]: 384 MiB.
pub const DEFAULT_MAX_PARSE_MEMORY: usize = 384 << 20;

/// Default [`OutlineOptions::max_nesting`]: 100,000 levels.
pub const DEFAULT_MAX_NESTING: usize = 100_000;

/// Default [`OutlineOptions::max_results`]: 20,000 items.
pub const DEFAULT_MAX_RESULTS: usize = 20_000;

impl Default for OutlineOptions {
    fn default() -> OutlineOptions {
        OutlineOptions {
            min_lines: 4,
            parse_timeout: Duration::from_secs(2),
            max_source_bytes: 16 * 1024 * 1024,
            max_line_chars: 1000,
            max_parse_memory: DEFAULT_MAX_PARSE_MEMORY,
            max_nesting: DEFAULT_MAX_NESTING,
            max_results: DEFAULT_MAX_RESULTS,
            isolation: crate::isolation::Isolation::in_process(),
        }
    }
}

/// Something worth telling about an outline. Degraded input is not an error: the outline is
/// still returned, possibly empty or partial.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutlineDiagnostic {
    /// The source exceeds [`OutlineOptions::max_source_bytes`]; nothing was parsed.
    TooLarge {
        /// Size of the source.
        bytes: usize,
        /// The limit it exceeds.
        limit: usize,
    },
    /// Parsing (`during_query == false`, outline empty) or the query (`true`, outline partial)
    /// did not finish within [`OutlineOptions::parse_timeout`].
    Timeout {
        /// The budget that ran out.
        budget: Duration,
        /// Whether the parse finished and the query was cut short.
        during_query: bool,
    },
    /// The parse grew the process by more than [`OutlineDiagnostic::MemoryLimit::limit`] bytes
    /// and was stopped; the outline is empty.
    MemoryLimit {
        /// The limit ([`OutlineOptions::max_parse_memory`]).
        limit: usize,
    },
    /// The source nests brackets deeper than [`OutlineOptions::max_nesting`]; nothing was
    /// parsed.
    TooDeep {
        /// The limit it exceeds.
        limit: usize,
    },
    /// The answer holds only the first [`OutlineDiagnostic::Truncated::kept`] items (symbols,
    /// folding ranges or definitions): the file has more than [`OutlineOptions::max_results`].
    Truncated {
        /// How many were kept.
        kept: usize,
    },
    /// The source has syntax errors; the outline is best effort.
    SyntaxErrors {
        /// 0-based line of the first error.
        first_error_line: u32,
    },
    /// The source is valid but uses a construct the bundled grammar cannot read (every error
    /// of the tree is one); the outline is best effort around it.
    GrammarLimitation {
        /// 0-based line of the first such construct.
        line: u32,
        /// What the grammar cannot read.
        construct: &'static str,
    },
    /// The request was cancelled while the file was being read; the outline is empty.
    Cancelled,
    /// The parse worker ([`crate::isolation`]) could not be started, died, or answered
    /// something unreadable; the outline is empty.
    ParseWorkerFailed {
        /// What happened (the exit status or signal, and the worker's last words).
        reason: String,
    },
}

impl OutlineDiagnostic {
    /// True when the outline could not be computed at all (too large, or parse timeout).
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            OutlineDiagnostic::TooLarge { .. }
                | OutlineDiagnostic::MemoryLimit { .. }
                | OutlineDiagnostic::TooDeep { .. }
                | OutlineDiagnostic::Cancelled
                | OutlineDiagnostic::ParseWorkerFailed { .. }
                | OutlineDiagnostic::Timeout {
                    during_query: false,
                    ..
                }
        )
    }
}

impl fmt::Display for OutlineDiagnostic {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OutlineDiagnostic::TooLarge { bytes, limit } => {
                write!(
                    formatter,
                    "file too large to outline ({bytes} bytes, limit {limit})"
                )
            }
            OutlineDiagnostic::Timeout {
                budget,
                during_query: false,
            } => write!(formatter, "parse timed out after {} ms", budget.as_millis()),
            OutlineDiagnostic::MemoryLimit { limit } => write!(
                formatter,
                "parse stopped at its memory limit ({} MiB)",
                limit >> 20
            ),
            OutlineDiagnostic::Cancelled => formatter.write_str("the request was cancelled"),
            OutlineDiagnostic::ParseWorkerFailed { reason } => {
                write!(formatter, "parse worker failed: {reason}")
            }
            OutlineDiagnostic::TooDeep { limit } => write!(
                formatter,
                "file nested too deeply to outline (more than {limit} levels of brackets)"
            ),
            OutlineDiagnostic::Truncated { kept } => {
                write!(formatter, "too many items; the first {kept} are shown")
            }
            OutlineDiagnostic::Timeout {
                budget,
                during_query: true,
            } => write!(
                formatter,
                "definition query timed out after {} ms; outline is partial",
                budget.as_millis()
            ),
            OutlineDiagnostic::GrammarLimitation { line, construct } => write!(
                formatter,
                "grammar limitation on line {}: {construct}; outline is best effort",
                line + 1
            ),
            OutlineDiagnostic::SyntaxErrors { first_error_line } => write!(
                formatter,
                "syntax errors (first on line {}); outline is best effort",
                first_error_line + 1
            ),
        }
    }
}

/// The definitions of one file, in outline order (by start, outer before inner).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outline {
    /// The language the file was parsed as.
    pub language: Language,
    /// The definitions that passed the filters.
    pub definitions: Vec<Definition>,
    /// What went wrong, if anything.
    pub diagnostics: Vec<OutlineDiagnostic>,
    /// Tests outside every listed definition that are too short to be listed themselves: how
    /// many, and the 0-based lines from the first one's start to the last one's end.
    pub short_tests_outside: Option<(u32, u32, u32)>,
}

impl Outline {
    /// The outline lines, each `"<start>--<end> | <first line>\n"` (1-based), concatenated;
    /// empty when there are no definitions.
    pub fn to_text(&self) -> String {
        self.definitions
            .iter()
            .map(Definition::outline_line)
            .collect()
    }

    /// True when an outline could not be computed at all (see [`OutlineDiagnostic::is_fatal`]).
    pub fn failed(&self) -> bool {
        self.diagnostics.iter().any(OutlineDiagnostic::is_fatal)
    }
}

/// The outline of one file: definitions spanning at least `min_lines` lines, one per distinct
/// line range, ordered by start.
pub fn outline(language: Language, source: &str, options: &OutlineOptions) -> Outline {
    use crate::isolation::{Answer, Reader, isolated};
    if let Some(Answer::Outline(outline)) = isolated(Reader::Outline, language, source, options) {
        return outline;
    }
    crate::memory::on_grammar_stack(|| outline_here(language, source, options))
}

/// [`outline`] on the current thread's stack.
fn outline_here(language: Language, source: &str, options: &OutlineOptions) -> Outline {
    let (candidates, diagnostics) = analyze(language, source, options);
    let mut short_tests_outside = None;
    let mut diagnostics = diagnostics;
    let definitions =
        build_definitions(candidates, source, options, true, &mut short_tests_outside);
    if definitions.len() >= options.max_results {
        diagnostics.push(OutlineDiagnostic::Truncated {
            kept: definitions.len(),
        });
    }
    Outline {
        language,
        definitions,
        diagnostics,
        short_tests_outside,
    }
}

/// Parse and query one file, returning the raw candidates plus diagnostics.
pub(crate) fn analyze(
    language: Language,
    source: &str,
    options: &OutlineOptions,
) -> (Vec<Candidate>, Vec<OutlineDiagnostic>) {
    let mut diagnostics = Vec::new();
    if source.len() > options.max_source_bytes {
        diagnostics.push(OutlineDiagnostic::TooLarge {
            bytes: source.len(),
            limit: options.max_source_bytes,
        });
        return (Vec::new(), diagnostics);
    }
    if language == Language::Markdown {
        return (crate::markdown::header_candidates(source), diagnostics);
    }
    if engine::is_blank(source) {
        return (Vec::new(), diagnostics);
    }
    // Compiling a query (once per process) is not this file's cost: it stays out of its budget.
    language.query();
    let limits = engine::ParseLimits::of(options);
    let tree = match engine::parse(language, source, &limits) {
        Ok(tree) => tree,
        Err(stop) => {
            diagnostics.push(stop.diagnostic(options));
            return (Vec::new(), diagnostics);
        }
    };
    diagnostics.extend(engine::syntax_diagnostic(language, &tree, source));
    let (candidates, query_timed_out) =
        engine::candidates(language, &tree, source, limits.deadline);
    if query_timed_out {
        diagnostics.push(OutlineDiagnostic::Timeout {
            budget: options.parse_timeout,
            during_query: true,
        });
    }
    (candidates, diagnostics)
}

/// Turn sorted, node-deduplicated candidates into definitions. With `outline_rules`, apply the
/// original's minimum line count and one-definition-per-line-range rule; without, keep every
/// candidate (document symbols). At most [`OutlineOptions::max_results`] definitions, the
/// first in source order (a caller with that many reports [`OutlineDiagnostic::Truncated`]).
pub(crate) fn build_definitions(
    candidates: Vec<Candidate>,
    source: &str,
    options: &OutlineOptions,
    outline_rules: bool,
    short_tests_outside: &mut Option<(u32, u32, u32)>,
) -> Vec<Definition> {
    let mut seen_line_ranges = std::collections::HashSet::new();
    let mut line_index = None;
    let mut definitions: Vec<Definition> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    for candidate in candidates {
        if definitions.len() >= options.max_results {
            break;
        }
        if outline_rules {
            let line_count = candidate.range.end.line - candidate.range.start.line + 1;
            if line_count < options.min_lines {
                if candidate.kind == DefinitionKind::Test {
                    // Counted in its container, so a summary says how many tests there are.
                    while let Some(&top) = open.last() {
                        if definitions[top].range.contains(&candidate.range) {
                            break;
                        }
                        open.pop();
                    }
                    let (start, end) = (candidate.range.start.line, candidate.range.end.line);
                    match open.last() {
                        Some(&top) => definitions[top].short_tests += 1,
                        None => {
                            let outside = short_tests_outside.get_or_insert((0, start, end));
                            outside.0 += 1;
                            outside.2 = outside.2.max(end);
                        }
                    }
                }
                continue;
            }
            if !seen_line_ranges.insert((candidate.range.start.line, candidate.range.end.line)) {
                continue;
            }
        }
        let line_index = line_index.get_or_insert_with(|| LineIndex::new(source));
        let source_line = line_index.line(source, candidate.range.start.line as usize);
        let first_line = match &candidate.group_names {
            // `const (` names nothing: show the names it declares on the same line.
            Some(names) if source_line.trim_end().ends_with('(') => shorten_line(
                &format!("{} {names} )", source_line.trim_end()),
                options.max_line_chars,
            ),
            // Document symbols show no first line: only a nameless one's name is taken from
            // it (cut to a name's length), so each symbol costs its name and no line copy.
            _ if !outline_rules => String::new(),
            _ => shorten_line(source_line, options.max_line_chars),
        };
        let name = definition_name(
            &candidate,
            source,
            if first_line.is_empty() {
                source_line
            } else {
                &first_line
            },
        );
        // Candidates come sorted by start (outer first), so a stack of open ranges finds parents.
        while let Some(&top) = open.last() {
            if definitions[top].range.contains(&candidate.range) {
                break;
            }
            open.pop();
        }
        let parent = open.last().copied();
        let kind = match candidate.kind {
            DefinitionKind::Method if name == "constructor" => DefinitionKind::Constructor,
            // A function directly inside a type is a method: the queries need not say so.
            DefinitionKind::Function
                if parent.is_some_and(|parent| definitions[parent].kind.holds_methods()) =>
            {
                DefinitionKind::Method
            }
            kind => kind,
        };
        let selection_range = candidate
            .name
            .filter(|name| candidate.range.contains(name))
            .unwrap_or(Span {
                start: candidate.range.start,
                end: candidate.range.start,
                start_byte: candidate.range.start_byte,
                end_byte: candidate.range.start_byte,
            });
        open.push(definitions.len());
        definitions.push(Definition {
            kind,
            name,
            range: candidate.range,
            selection_range,
            first_line,
            parent,
            short_tests: 0,
        });
    }
    definitions
}

/// Longest name kept, in characters.
const MAX_NAME_CHARS: usize = 120;

fn definition_name(candidate: &Candidate, source: &str, first_line: &str) -> String {
    let text_of = |range: std::ops::Range<usize>| source.get(range).unwrap_or("");
    let raw = match &candidate.name {
        Some(name) => {
            let name_text = text_of(name.bytes());
            match &candidate.trait_bytes {
                Some(trait_bytes) => format!("{} for {name_text}", text_of(trait_bytes.clone())),
                None => name_text.to_owned(),
            }
        }
        None => first_line.trim().to_owned(),
    };
    // A name written over several lines (a CSS selector list, an HTML start tag) reads as one.
    let single_line = raw
        .split_whitespace()
        .take(MAX_NAME_CHARS)
        .collect::<Vec<_>>()
        .join(" ");
    let unquoted = strip_quotes(&single_line);
    let mut name: String = unquoted.chars().take(MAX_NAME_CHARS).collect();
    if name.len() < unquoted.len() {
        name.push('…');
    }
    name
}

fn strip_quotes(text: &str) -> &str {
    for quote in ['"', '\'', '`'] {
        if let Some(inner) = text
            .strip_prefix(quote)
            .and_then(|rest| rest.strip_suffix(quote))
        {
            return inner;
        }
    }
    text
}
