//! Editor features from the same engine: folding ranges and hierarchical document symbols, in
//! plain types (0-based lines, byte columns) that the server converts to LSP at its edge.

use tree_sitter::Node;

use crate::engine::{self, Walk};
use crate::outline::{analyze, build_definitions};
use crate::text::LineIndex;
use crate::{DefinitionKind, Language, OutlineDiagnostic, OutlineOptions, Span};

/// What a folding range folds (LSP `FoldingRangeKind`; `Region` is sent without a kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FoldingKind {
    /// A comment block (`"comment"`).
    Comment,
    /// A group of imports (`"imports"`).
    Imports,
    /// Code: definitions and bracketed blocks.
    Region,
}

/// One foldable range of lines. The closing line of a bracketed block stays visible: the range
/// ends on the line before a line that starts with `}`, `)` or `]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FoldingRange {
    /// 0-based line that stays visible when folded.
    pub start_line: u32,
    /// 0-based last folded line (inclusive), always greater than `start_line`.
    pub end_line: u32,
    /// What is folded.
    pub kind: FoldingKind,
}

/// Folding ranges of one file, or none with a diagnostic when it cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldingRanges {
    /// Ranges sorted by start line, at most one per start line (the longest).
    pub ranges: Vec<FoldingRange>,
    /// What went wrong, if anything.
    pub diagnostics: Vec<OutlineDiagnostic>,
}

/// A definition with the definitions nested inside it (LSP `DocumentSymbol`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentSymbol {
    /// The definition's name.
    pub name: String,
    /// What it is ([`DefinitionKind::lsp_symbol_kind`] gives the LSP number).
    pub kind: DefinitionKind,
    /// The whole definition.
    pub range: Span,
    /// The name, inside `range`.
    pub selection_range: Span,
    /// Nested definitions, in source order.
    pub children: Vec<DocumentSymbol>,
}

/// Document symbols of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocumentSymbols {
    /// Top-level symbols in source order.
    pub symbols: Vec<DocumentSymbol>,
    /// What went wrong, if anything.
    pub diagnostics: Vec<OutlineDiagnostic>,
}

/// Symbols nested deeper than this are attached to their ancestor at this depth, so that a
/// pathological file cannot make the result (and its recursive `Drop` or serialization) deep.
pub const MAX_SYMBOL_DEPTH: usize = 64;

/// Every definition of the file (no minimum size), nested by containment.
pub fn document_symbols(
    language: Language,
    source: &str,
    options: &OutlineOptions,
) -> DocumentSymbols {
    use crate::isolation::{Answer, Reader, isolated};
    if let Some(Answer::DocumentSymbols(symbols)) =
        isolated(Reader::DocumentSymbols, language, source, options)
    {
        return symbols;
    }
    crate::memory::on_grammar_stack(|| document_symbols_here(language, source, options))
}

/// [`document_symbols`] on the current thread's stack.
fn document_symbols_here(
    language: Language,
    source: &str,
    options: &OutlineOptions,
) -> DocumentSymbols {
    let (candidates, mut diagnostics) = analyze(language, source, options);
    let definitions = build_definitions(candidates, source, options, false, &mut None);
    if definitions.len() >= options.max_results {
        diagnostics.push(OutlineDiagnostic::Truncated {
            kept: definitions.len(),
        });
    }

    // Depth of each definition, capped: a too-deep one hangs from its ancestor at the cap.
    let mut attach_to: Vec<Option<usize>> = Vec::with_capacity(definitions.len());
    let mut depth: Vec<usize> = Vec::with_capacity(definitions.len());
    for definition in &definitions {
        match definition.parent {
            None => {
                attach_to.push(None);
                depth.push(0);
            }
            Some(parent) if depth[parent] + 1 < MAX_SYMBOL_DEPTH => {
                attach_to.push(Some(parent));
                depth.push(depth[parent] + 1);
            }
            Some(parent) => {
                attach_to.push(attach_to[parent]);
                depth.push(depth[parent]);
            }
        }
    }

    // Build bottom-up without recursion: children always come after their parent, so walking
    // backwards completes every child before its parent is moved.
    let mut slots: Vec<Option<DocumentSymbol>> = definitions
        .into_iter()
        .map(|definition| {
            Some(DocumentSymbol {
                name: definition.name,
                kind: definition.kind,
                range: definition.range,
                selection_range: definition.selection_range,
                children: Vec::new(),
            })
        })
        .collect();
    let mut roots = Vec::new();
    for index in (0..slots.len()).rev() {
        let mut symbol = slots[index].take().expect("each symbol is moved once");
        symbol.children.reverse();
        match attach_to[index] {
            Some(parent) => slots[parent]
                .as_mut()
                .expect("parents come before children")
                .children
                .push(symbol),
            None => roots.push(symbol),
        }
    }
    roots.reverse();
    DocumentSymbols {
        symbols: roots,
        diagnostics,
    }
}

/// Folding ranges: definitions, bracketed blocks, multi-line comments and runs of line comments,
/// runs of imports, and (Python) multi-line compound statements.
pub fn folding_ranges(language: Language, source: &str, options: &OutlineOptions) -> FoldingRanges {
    use crate::isolation::{Answer, Reader, isolated};
    if let Some(Answer::FoldingRanges(ranges)) =
        isolated(Reader::FoldingRanges, language, source, options)
    {
        return ranges;
    }
    crate::memory::on_grammar_stack(|| folding_ranges_here(language, source, options))
}

/// [`folding_ranges`] on the current thread's stack.
fn folding_ranges_here(
    language: Language,
    source: &str,
    options: &OutlineOptions,
) -> FoldingRanges {
    let mut diagnostics = Vec::new();
    if source.len() > options.max_source_bytes {
        diagnostics.push(OutlineDiagnostic::TooLarge {
            bytes: source.len(),
            limit: options.max_source_bytes,
        });
        return FoldingRanges {
            ranges: Vec::new(),
            diagnostics,
        };
    }
    if language == Language::Markdown {
        // A section folds from its header to the line before the next header.
        let mut ranges: Vec<FoldingRange> = crate::markdown::header_candidates(source)
            .into_iter()
            .filter(|section| section.range.end.line > section.range.start.line)
            .map(|section| FoldingRange {
                start_line: section.range.start.line,
                end_line: section.range.end.line,
                kind: FoldingKind::Region,
            })
            .take(options.max_results + 1)
            .collect();
        if ranges.len() > options.max_results {
            ranges.truncate(options.max_results);
            diagnostics.push(OutlineDiagnostic::Truncated { kept: ranges.len() });
        }
        return FoldingRanges {
            ranges,
            diagnostics,
        };
    }
    if engine::is_blank(source) {
        return FoldingRanges {
            ranges: Vec::new(),
            diagnostics,
        };
    }
    language.query();
    let limits = engine::ParseLimits::of(options);
    let tree = match engine::parse(language, source, &limits) {
        Ok(tree) => tree,
        Err(stop) => {
            diagnostics.push(stop.diagnostic(options));
            return FoldingRanges {
                ranges: Vec::new(),
                diagnostics,
            };
        }
    };
    let deadline = limits.deadline;
    diagnostics.extend(engine::syntax_diagnostic(language, &tree, source));
    let lines = LineIndex::new(source);
    let mut raw: Vec<LineRun> = Vec::new();

    let (candidates, _) = engine::candidates(language, &tree, source, deadline);
    raw.extend(candidates.iter().map(|candidate| {
        (
            candidate.range.start.line,
            candidate.range.end.line,
            FoldingKind::Region,
        )
    }));

    // Runs of single-line comments or imports on consecutive lines fold as one.
    let mut run: Option<LineRun> = None;
    engine::walk_tree(&tree, |node| {
        if !node.is_named() {
            return Walk::Descend;
        }
        let start = engine::to_u32(node.start_position().row);
        let end = engine::to_u32(engine::last_line(node, source));
        let run_kind = if node.kind().contains("comment") {
            Some(FoldingKind::Comment)
        } else if language.is_import(node.kind()) {
            Some(FoldingKind::Imports)
        } else {
            None
        };
        if let Some(kind) = run_kind {
            match &mut run {
                Some((_, run_end, run_kind)) if *run_kind == kind && start <= *run_end + 1 => {
                    *run_end = (*run_end).max(end);
                }
                _ => {
                    flush(&mut run, &mut raw);
                    run = Some((start, end, kind));
                }
            }
            return Walk::Skip;
        }
        flush(&mut run, &mut raw);
        if end > start && (is_bracketed(node) || language.is_unbracketed_block(node.kind())) {
            raw.push((start, end, FoldingKind::Region));
        }
        Walk::Descend
    });
    flush(&mut run, &mut raw);

    let mut ranges: Vec<FoldingRange> = raw
        .into_iter()
        .filter_map(|(start_line, end_line, kind)| {
            let closing = lines.line(source, end_line as usize);
            let end_line =
                if kind == FoldingKind::Region && is_closing_line(closing) && end_line > start_line
                {
                    end_line - 1
                } else {
                    end_line
                };
            (end_line > start_line).then_some(FoldingRange {
                start_line,
                end_line,
                kind,
            })
        })
        .collect();
    // One range per start line, the longest (clients fold by start line).
    ranges.sort_by_key(|range| (range.start_line, std::cmp::Reverse(range.end_line)));
    ranges.dedup_by_key(|range| range.start_line);
    if ranges.len() > options.max_results {
        ranges.truncate(options.max_results);
        ranges.shrink_to_fit();
        diagnostics.push(OutlineDiagnostic::Truncated { kept: ranges.len() });
    }
    FoldingRanges {
        ranges,
        diagnostics,
    }
}

type LineRun = (u32, u32, FoldingKind);

fn flush(run: &mut Option<LineRun>, raw: &mut Vec<LineRun>) {
    if let Some(finished) = run.take() {
        raw.push(finished);
    }
}

/// A line that only closes a block: it starts with `}`, `)`, `]` or a closing tag `</`, or is a
/// closing keyword (`end`, `fi`, `done`, `esac`) followed by nothing but punctuation. It stays
/// visible when the block above it is folded.
fn is_closing_line(line: &str) -> bool {
    let trimmed = line.trim();
    if trimmed.starts_with(['}', ')', ']']) || trimmed.starts_with("</") {
        return true;
    }
    let word_end = trimmed
        .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .unwrap_or(trimmed.len());
    let (word, rest) = trimmed.split_at(word_end);
    matches!(word, "end" | "fi" | "done" | "esac")
        && rest
            .chars()
            .all(|c| c.is_ascii_punctuation() || c.is_whitespace())
}

/// A node whose first and last children are a matching bracket pair: `{...}`, `(...)`, `[...]`.
fn is_bracketed(node: Node<'_>) -> bool {
    let count = node.child_count();
    if count < 2 {
        return false;
    }
    let (Some(first), Some(last)) = (node.child(0), node.child(count - 1)) else {
        return false;
    };
    matches!(
        (first.kind(), last.kind()),
        ("{", "}") | ("(", ")") | ("[", "]")
    ) && !first.is_named()
}
