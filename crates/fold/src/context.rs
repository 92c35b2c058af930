//! Folded file context: the outlines of the files the agent read, wrapped one section per file
//! as the original's `generateFoldedFileContext`, under a character budget.
//!
//! ## Decision: The folded context's budget goes to what the task needs (issue 17)
//!
//! The original spends its 50,000 characters in reading order, and in a TypeScript monorepo two
//! thirds of outline characters were `describe`/`it` lines. `fold::folded_file_context_with`
//! outlines every file first (cached, in parallel, a window at a time so cancellation still stops
//! it), then spends the budget in one order: edited files (most recent edit first; `editedPaths`,
//! or the tracker's `roo_edited` records in a condense), then read files (the host's order, most
//! recent first), implementation before tests within each. Test files (by name, or by an outline
//! that is mostly `describe`/`it`) the agent did not edit are summarised when they hold more than 3
//! tests: one line per outermost `describe` with its test count, loose tests as one `a--b | N
//! tests` line (`fold/src/testing.rs`; short tests below the 4-line minimum still count), and a
//! file named as a test shows only its tests (no mocks or helpers). Measured on Roo-Code this takes
//! tests from 58% to 10% of outline characters (BENCHMARKS.md). If the whole still does not fit,
//! definitions nested in function bodies of unedited files go before anything is cut. The section
//! format is the original's; `prioritize: false` restores the original's order and full outlines
//! (the bench's baseline). The cost: files past the budget are now parsed too (cold), since a
//! file's place depends on its outline; warm, nothing is parsed. Freshness needs no extra rule: the
//! outline cache is keyed by content (length and hash), every request re-reads files through the
//! gate, so a file the user changed is outlined afresh (`tests/blackbox/fold_priority.rs` proves it
//! after the real watcher's `roo/files/didChange`).

use std::borrow::Cow;
use std::sync::Arc;

use crate::cache::{OutlineCache, OutlineJob, effective_threads, outline_many};
use crate::language::base_name;
use crate::testing::{
    SMALL_TEST_FILE_CASES, TestShape, is_test_content, is_test_path, may_hold_tests, render,
    test_shape,
};
use crate::text::{Decoded, decode, looks_binary, truncate_utf16, utf16_len};
use crate::{Language, Outline, OutlineDiagnostic, OutlineOptions};

/// The original's default budget for the whole folded context, in UTF-16 code units.
pub const DEFAULT_MAX_CHARS: usize = 50_000;

/// Below this many characters left, the remaining files are skipped instead of truncated.
const MIN_REMAINING_FOR_TRUNCATION: usize = 200;
/// Characters reserved for the wrapper when a file's definitions are truncated.
const TRUNCATION_RESERVE: usize = 100;
const TRUNCATION_MARKER: &str = "\n... (truncated)";

/// One file for the folded context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoldInput {
    /// The path as the agent knows it; it appears verbatim in the section header.
    pub display_path: String,
    /// The file's content, or why the host did not read it.
    pub content: FoldContent,
}

/// The content of a [`FoldInput`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FoldContent {
    /// Text already decoded.
    Text(String),
    /// Raw file bytes: binary content (a NUL byte in the first 8,000 bytes) is skipped, invalid
    /// UTF-8 is decoded with replacement characters (and reported).
    Bytes(Vec<u8>),
    /// The host did not read the file (blocked by the access rule, missing, unreadable). Such a
    /// file never appears in the output text; only a diagnostic carries the reason.
    Skipped {
        /// Why, in the host's words.
        reason: String,
    },
}

/// Options for [`folded_file_context_with`].
#[derive(Debug, Clone)]
pub struct FoldOptions {
    /// Budget for the whole content, in UTF-16 code units (the host's string length).
    pub max_chars: usize,
    /// How each file is outlined (ignored when a cache is given: the cache's options apply).
    pub outline: OutlineOptions,
    /// Threads for cold outlines (0 = all cores).
    pub threads: usize,
    /// Set when the request was cancelled: no further window of files is outlined, so a
    /// cancelled request frees its worker (the result is then incomplete, and discarded).
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// Display paths of the files the agent edited, most recently edited first (the tracker
    /// knows them). They come before the files only read.
    pub edited_paths: Vec<String>,
    /// Spend the budget on what the task needs first (default `true`): files the agent edited,
    /// then files it read; within each group implementation before tests; most recent first
    /// within each. Test files the agent did not edit are summarised (one line per test group
    /// with its test count) unless they hold at most [`SMALL_TEST_FILE_CASES`] tests; when the
    /// whole does not fit, definitions nested in function bodies of unedited files are left out.
    /// `false` is the original: input order, full outlines.
    pub prioritize: bool,
}

impl Default for FoldOptions {
    fn default() -> FoldOptions {
        FoldOptions {
            max_chars: DEFAULT_MAX_CHARS,
            outline: OutlineOptions::default(),
            threads: 0,
            stop: None,
            edited_paths: Vec::new(),
            prioritize: true,
        }
    }
}

/// Why a file is missing from the folded context, or what is notable about its section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileDiagnosticKind {
    /// The host skipped the file ([`FoldContent::Skipped`]).
    SkippedByHost,
    /// No grammar for this extension.
    UnsupportedLanguage,
    /// The content looks binary.
    Binary,
    /// The content was not valid UTF-8 and was decoded lossily (the file is still included).
    InvalidUtf8,
    /// The file is larger than [`OutlineOptions::max_source_bytes`].
    TooLarge,
    /// Parsing ran out of time.
    ParseTimeout,
    /// The request was cancelled while the file was being read.
    Cancelled,
    /// The parse worker could not be started or died (see [`crate::isolation`]).
    ParseWorkerFailed,
    /// The definition query ran out of time; the section is partial (still included).
    QueryTimeout,
    /// The file has syntax errors; the section is best effort (still included).
    SyntaxErrors,
    /// The file is valid but the grammar cannot read a construct in it; the section is best
    /// effort (still included).
    GrammarLimitation,
    /// The file has no definitions of at least the minimum size.
    NoDefinitions,
    /// The section was cut to fit the budget (still included).
    Truncated,
    /// The budget was used up before this file.
    OverBudget,
}

/// A note about one input file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiagnostic {
    /// The input's display path.
    pub display_path: String,
    /// What happened.
    pub kind: FileDiagnosticKind,
    /// Whether the file still has a section in the content.
    pub included: bool,
    /// A human-readable explanation.
    pub message: String,
}

/// The result of a folded file context (the original's `FoldedFileContextResult`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FoldedContext {
    /// The sections joined with `\n`.
    pub content: String,
    /// One `<system-reminder>` section per included file, in priority order (see
    /// [`FoldOptions::prioritize`]).
    pub sections: Vec<String>,
    /// Files with a section (a truncated one counts).
    pub files_processed: usize,
    /// Files without a section.
    pub files_skipped: usize,
    /// Length of `content` in UTF-16 code units.
    pub character_count: usize,
    /// Notes per file: why it was skipped, or what is degraded in its section.
    pub diagnostics: Vec<FileDiagnostic>,
}

/// The definitions text of one file as the original's `parseSourceCodeDefinitionsForFile`
/// returns it: `# <basename>\n` then one outline line per definition; `None` without definitions.
pub fn file_definitions_text(display_path: &str, outline: &Outline) -> Option<String> {
    if outline.definitions.is_empty() {
        return None;
    }
    Some(format!(
        "# {}\n{}",
        base_name(display_path),
        outline.to_text()
    ))
}

/// Folded context with default options and no cache: files in the given order (most recently
/// read first), sections wrapped as the original, `max_chars` UTF-16 units at most (see the
/// crate docs for the exact stop and truncate rules).
pub fn folded_file_context(inputs: &[FoldInput], max_chars: usize) -> FoldedContext {
    folded_file_context_with(
        inputs,
        &FoldOptions {
            max_chars,
            ..FoldOptions::default()
        },
        None,
    )
}

/// A file ready to outline, or the reason it cannot be.
enum Prepared<'input> {
    Source {
        language: Language,
        text: Cow<'input, str>,
        lossy: bool,
    },
    Skip(FileDiagnosticKind, String),
}

fn prepare(input: &FoldInput) -> Prepared<'_> {
    let (text, lossy): (Cow<'_, str>, bool) = match &input.content {
        FoldContent::Skipped { reason } => {
            return Prepared::Skip(FileDiagnosticKind::SkippedByHost, reason.clone());
        }
        FoldContent::Text(text) => {
            if looks_binary(text.as_bytes()) {
                return binary();
            }
            (Cow::Borrowed(text.as_str()), false)
        }
        FoldContent::Bytes(bytes) => match decode(bytes) {
            Decoded::Binary => return binary(),
            Decoded::Text(text) => (Cow::Borrowed(text), false),
            Decoded::Lossy(text) => (Cow::Owned(text), true),
        },
    };
    let Some(language) = Language::from_path(&input.display_path) else {
        return Prepared::Skip(
            FileDiagnosticKind::UnsupportedLanguage,
            format!("unsupported file type: {}", input.display_path),
        );
    };
    Prepared::Source {
        language,
        text,
        lossy,
    }
}

fn binary() -> Prepared<'static> {
    Prepared::Skip(
        FileDiagnosticKind::Binary,
        "binary file (NUL byte in the first 8000 bytes)".to_owned(),
    )
}

/// The files of a folded context: the files read (most recent first, as given, repeats
/// included as in the original) and then the edited ones not among them, each once. Order does
/// not matter to [`folded_file_context_with`] with [`FoldOptions::prioritize`].
pub fn context_paths(read: &[String], edited: &[String]) -> Vec<String> {
    let mut seen: std::collections::HashSet<&str> = read.iter().map(String::as_str).collect();
    let extra = edited.iter().filter(|path| seen.insert(path.as_str()));
    read.iter().chain(extra).cloned().collect()
}

/// A file whose outline may get a section, with what decides its place.
struct Ranked {
    /// Index into the inputs.
    index: usize,
    lossy: bool,
    outline: Arc<Outline>,
    /// `None` when the file has nothing test-like (most files): no shape is computed then,
    /// which keeps the warm path as cheap as before.
    shape: Option<TestShape>,
    /// Its tests or test groups make it a test file (by name or by content).
    test_file: bool,
    /// Named as a test file: unedited, it shows only its tests (helpers and mocks left out).
    test_file_by_name: bool,
    /// Position in [`FoldOptions::edited_paths`] (0 = most recently edited).
    edited: Option<usize>,
}

impl Ranked {
    /// The budget order: edited files (most recent edit first), then read files (in input
    /// order, which is most recently read first); within each, implementation before tests.
    fn priority(&self) -> (bool, bool, usize) {
        match self.edited {
            Some(position) => (false, self.test_file, position),
            None => (true, self.test_file, self.index),
        }
    }
}

/// Folded context with explicit options and an optional outline cache (a second call over
/// unchanged files then skips parsing). Cold files are outlined in parallel, a window at a
/// time (a cancelled request stops between windows). With [`FoldOptions::prioritize`] the
/// sections come in priority order (see [`FoldOptions::prioritize`]); without, in input order
/// with full outlines, as the original.
pub fn folded_file_context_with(
    inputs: &[FoldInput],
    options: &FoldOptions,
    cache: Option<&OutlineCache>,
) -> FoldedContext {
    let mut result = FoldedContext::default();
    let total = inputs.len();
    let threads = effective_threads(options.threads);
    let window = (threads * 16).max(16);
    let mut ranked: Vec<Ranked> = Vec::new();
    let mut start = 0;
    while start < total {
        let stopped = options.stop.as_ref();
        if stopped.is_some_and(|stop| stop.load(std::sync::atomic::Ordering::Relaxed)) {
            break;
        }
        let end = (start + window).min(total);
        let prepared: Vec<Prepared<'_>> = inputs[start..end].iter().map(prepare).collect();
        let outlines = outline_window(&inputs[start..end], &prepared, options, cache, threads);
        for (offset, (item, outline)) in prepared.into_iter().zip(outlines).enumerate() {
            let index = start + offset;
            let path = &inputs[index].display_path;
            let mut skip = |kind, message: String| {
                result.diagnostics.push(FileDiagnostic {
                    display_path: path.clone(),
                    kind,
                    included: false,
                    message,
                });
                result.files_skipped += 1;
            };
            let (lossy, outline) = match (item, outline) {
                (Prepared::Skip(kind, message), _) => {
                    skip(kind, message);
                    continue;
                }
                (Prepared::Source { lossy, .. }, Some(outline)) => (lossy, outline),
                (Prepared::Source { .. }, None) => unreachable!("every source is outlined"),
            };
            if let Some(fatal) = outline.diagnostics.iter().find(|d| d.is_fatal()) {
                let kind = match fatal {
                    // Too big for a parse in memory or depth: the message says which.
                    OutlineDiagnostic::TooLarge { .. }
                    | OutlineDiagnostic::MemoryLimit { .. }
                    | OutlineDiagnostic::TooDeep { .. } => FileDiagnosticKind::TooLarge,
                    OutlineDiagnostic::Cancelled => FileDiagnosticKind::Cancelled,
                    OutlineDiagnostic::ParseWorkerFailed { .. } => {
                        FileDiagnosticKind::ParseWorkerFailed
                    }
                    _ => FileDiagnosticKind::ParseTimeout,
                };
                skip(kind, fatal.to_string());
                continue;
            }
            if outline.definitions.is_empty() {
                skip(
                    FileDiagnosticKind::NoDefinitions,
                    "no definitions spanning enough lines".to_owned(),
                );
                continue;
            }
            let by_name = is_test_path(path);
            let shape = may_hold_tests(&outline, by_name).then(|| test_shape(&outline, by_name));
            ranked.push(Ranked {
                index,
                lossy,
                test_file: by_name
                    || shape
                        .as_ref()
                        .is_some_and(|shape| is_test_content(&outline, shape)),
                test_file_by_name: by_name,
                edited: options
                    .edited_paths
                    .iter()
                    .position(|edited| edited == path),
                outline,
                shape,
            });
        }
        start = end;
    }
    let not_outlined = &inputs[start.min(total)..];
    if options.prioritize {
        ranked.sort_by_key(Ranked::priority);
    }
    let texts = section_texts(&ranked, inputs, options);
    let mut used = 0usize;
    for (position, (item, definitions)) in ranked.iter().zip(&texts).enumerate() {
        let path = &inputs[item.index].display_path;
        let section = wrap_section(path, definitions);
        let length = utf16_len(&section);
        let notes = |result: &mut FoldedContext| {
            if item.lossy {
                result.diagnostics.push(FileDiagnostic {
                    display_path: path.clone(),
                    kind: FileDiagnosticKind::InvalidUtf8,
                    included: true,
                    message: "invalid UTF-8 replaced with U+FFFD".to_owned(),
                });
            }
            for diagnostic in &item.outline.diagnostics {
                let kind = match diagnostic {
                    OutlineDiagnostic::SyntaxErrors { .. } => FileDiagnosticKind::SyntaxErrors,
                    OutlineDiagnostic::GrammarLimitation { .. } => {
                        FileDiagnosticKind::GrammarLimitation
                    }
                    OutlineDiagnostic::Truncated { .. } => FileDiagnosticKind::Truncated,
                    _ => FileDiagnosticKind::QueryTimeout,
                };
                result.diagnostics.push(FileDiagnostic {
                    display_path: path.clone(),
                    kind,
                    included: true,
                    message: diagnostic.to_string(),
                });
            }
        };
        if used + length <= options.max_chars {
            notes(&mut result);
            used += length;
            result.sections.push(section);
            result.files_processed += 1;
            continue;
        }
        let remaining = options.max_chars.saturating_sub(used);
        let rest = ranked[position..].iter().map(|r| &inputs[r.index]);
        if remaining < MIN_REMAINING_FOR_TRUNCATION {
            skip_rest_over_budget(&mut result, rest.chain(not_outlined), options.max_chars);
            break;
        }
        notes(&mut result);
        let kept = truncate_utf16(definitions, remaining - TRUNCATION_RESERVE);
        let section = wrap_section(path, &format!("{kept}{TRUNCATION_MARKER}"));
        result.diagnostics.push(FileDiagnostic {
            display_path: path.clone(),
            kind: FileDiagnosticKind::Truncated,
            included: true,
            message: format!(
                "definitions cut to {} of {} characters to fit the budget",
                utf16_len(kept),
                utf16_len(definitions)
            ),
        });
        result.sections.push(section);
        result.files_processed += 1;
        skip_rest_over_budget(
            &mut result,
            rest.skip(1).chain(not_outlined),
            options.max_chars,
        );
        break;
    }
    if result.files_processed + result.files_skipped < total {
        // Every file fitted, but a cancellation left some unread.
        skip_rest_over_budget(&mut result, not_outlined.iter(), options.max_chars);
    }
    result.content = result.sections.join("\n");
    result.character_count = utf16_len(&result.content);
    result
}

/// The definitions text (`# <basename>` then outline lines) of each ranked file. Test files the
/// agent did not edit are summarised unless small; when the whole does not fit the budget,
/// definitions nested in function bodies of files the agent did not edit are left out too.
fn section_texts(ranked: &[Ranked], inputs: &[FoldInput], options: &FoldOptions) -> Vec<String> {
    let render_all = |drop_locals: bool| -> Vec<String> {
        ranked
            .iter()
            .map(|item| {
                let path = &inputs[item.index].display_path;
                let unedited = options.prioritize && item.edited.is_none();
                let computed;
                let shape = match &item.shape {
                    Some(shape) => shape,
                    None if drop_locals && unedited => {
                        computed = test_shape(&item.outline, item.test_file_by_name);
                        &computed
                    }
                    None => return format!("# {}\n{}", base_name(path), item.outline.to_text()),
                };
                let summarize = unedited && shape.cases > SMALL_TEST_FILE_CASES;
                let lines = render(
                    &item.outline,
                    shape,
                    summarize,
                    drop_locals && unedited,
                    unedited && item.test_file_by_name && shape.cases > 0,
                );
                format!("# {}\n{lines}", base_name(path))
            })
            .collect()
    };
    let texts = render_all(false);
    if !options.prioritize {
        return texts;
    }
    // The wrapped length of everything, without building the sections. Bytes bound UTF-16
    // units from above, so the exact count is only needed when the bytes do not fit.
    let wrapped = |length: fn(&str) -> usize| -> usize {
        ranked
            .iter()
            .zip(&texts)
            .map(|(item, text)| {
                WRAPPER_CHARS + length(&inputs[item.index].display_path) + length(text)
            })
            .sum::<usize>()
            + ranked.len().saturating_sub(1)
    };
    if wrapped(str::len) > options.max_chars && wrapped(utf16_len) > options.max_chars {
        render_all(true)
    } else {
        texts
    }
}

/// Characters `wrap_section` adds around the path and the definitions.
const WRAPPER_CHARS: usize = "<system-reminder>\n## File Context: \n\n</system-reminder>".len();

/// Outline the sources of one window, from the cache when given.
fn outline_window(
    inputs: &[FoldInput],
    prepared: &[Prepared<'_>],
    options: &FoldOptions,
    cache: Option<&OutlineCache>,
    threads: usize,
) -> Vec<Option<Arc<Outline>>> {
    let jobs: Vec<(usize, &str, OutlineJob<'_>)> = prepared
        .iter()
        .enumerate()
        .filter_map(|(offset, item)| match item {
            Prepared::Source { language, text, .. } => Some((
                offset,
                inputs[offset].display_path.as_str(),
                OutlineJob {
                    language: *language,
                    source: text.as_ref(),
                },
            )),
            Prepared::Skip(..) => None,
        })
        .collect();
    let outlines: Vec<Arc<Outline>> = match cache {
        Some(cache) => {
            let keyed: Vec<(&str, OutlineJob<'_>)> =
                jobs.iter().map(|(_, path, job)| (*path, *job)).collect();
            cache.outline_many(&keyed, threads)
        }
        None => {
            let plain: Vec<OutlineJob<'_>> = jobs.iter().map(|(_, _, job)| *job).collect();
            outline_many(&plain, &options.outline, threads)
                .into_iter()
                .map(Arc::new)
                .collect()
        }
    };
    let mut by_offset: Vec<Option<Arc<Outline>>> = vec![None; prepared.len()];
    for ((offset, _, _), outline) in jobs.into_iter().zip(outlines) {
        by_offset[offset] = Some(outline);
    }
    by_offset
}

fn skip_rest_over_budget<'a>(
    result: &mut FoldedContext,
    rest: impl Iterator<Item = &'a FoldInput>,
    max_chars: usize,
) {
    for input in rest {
        result.files_skipped += 1;
        result.diagnostics.push(FileDiagnostic {
            display_path: input.display_path.clone(),
            kind: FileDiagnosticKind::OverBudget,
            included: false,
            message: format!("the {max_chars}-character budget is used up"),
        });
    }
}

/// `<system-reminder>\n## File Context: <path>\n<definitions>\n</system-reminder>`.
fn wrap_section(display_path: &str, definitions: &str) -> String {
    format!("<system-reminder>\n## File Context: {display_path}\n{definitions}\n</system-reminder>")
}
