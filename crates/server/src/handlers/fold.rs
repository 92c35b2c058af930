//! `roo/fold/*` and the standard folding features: every path passes the access rule first, open
//! documents win over disk, outlines come from one shared cache.

use std::path::{Path, PathBuf};

use roo_context_core::access::Policy;
use roo_context_core::fs::{GateRefusal, open_gated};
use roo_context_core::path::normalize_lexically;
use roo_context_core::wire_text;
use roo_context_fold::{
    FileDiagnosticKind, FoldContent, FoldInput, FoldOptions, Language, OutlineCache,
    OutlineDiagnostic, context_paths, folded_file_context_with,
};
use roo_context_protocol::fold::*;

use roo_context_protocol::requests;

use super::{Handler, Snapshot, base_folder};
use crate::documents::Documents;
use crate::rpc::RpcError;
use crate::state::SharedState;

/// Files larger than this are not read whole for a folded view (the engine refuses them anyway).
const MAX_READ_BYTES: u64 = 16 * 1024 * 1024;

/// Reads a file for folding: the open document's text, else the file's bytes through the read
/// gate (regular files only, judged by what was opened, at most [`MAX_READ_BYTES`]).
pub fn read_source(
    state: &SharedState,
    policy: &Policy,
    documents: &Documents,
    absolute: &Path,
) -> Result<FoldContent, String> {
    if let Some(text) = documents.get(absolute) {
        return Ok(FoldContent::Text(text));
    }
    let file = open_gated(&state.fs, absolute, MAX_READ_BYTES, true, &|opened| {
        policy.allows_opened(opened)
    })
    .map_err(|refusal| match refusal {
        GateRefusal::TooLarge { len, limit } => {
            format!("file too large for a folded view ({len} bytes, limit {limit})")
        }
        other => other.to_string(),
    })?;
    // The file's own U+FDD0 must not read as an encoded lone surrogate on the wire (almost
    // never there: the bytes are then kept as read, not copied).
    let bytes = file.read_all().map_err(|e| format!("cannot read: {e}"))?;
    Ok(FoldContent::Bytes(match wire_text::encode_bytes(&bytes) {
        std::borrow::Cow::Owned(encoded) => encoded,
        std::borrow::Cow::Borrowed(_) => bytes,
    }))
}

fn wire_kind(kind: FileDiagnosticKind) -> FoldDiagnosticKind {
    match kind {
        FileDiagnosticKind::SkippedByHost => FoldDiagnosticKind::Skipped,
        FileDiagnosticKind::UnsupportedLanguage => FoldDiagnosticKind::UnsupportedLanguage,
        FileDiagnosticKind::Binary => FoldDiagnosticKind::Binary,
        FileDiagnosticKind::InvalidUtf8 => FoldDiagnosticKind::InvalidUtf8,
        FileDiagnosticKind::TooLarge => FoldDiagnosticKind::TooLarge,
        FileDiagnosticKind::ParseTimeout => FoldDiagnosticKind::ParseTimeout,
        FileDiagnosticKind::Cancelled => FoldDiagnosticKind::Cancelled,
        FileDiagnosticKind::ParseWorkerFailed => FoldDiagnosticKind::ParseWorkerFailed,
        FileDiagnosticKind::QueryTimeout => FoldDiagnosticKind::QueryTimeout,
        FileDiagnosticKind::SyntaxErrors => FoldDiagnosticKind::SyntaxErrors,
        FileDiagnosticKind::GrammarLimitation => FoldDiagnosticKind::GrammarLimitation,
        FileDiagnosticKind::NoDefinitions => FoldDiagnosticKind::NoDefinitions,
        FileDiagnosticKind::Truncated => FoldDiagnosticKind::Truncated,
        FileDiagnosticKind::OverBudget => FoldDiagnosticKind::OverBudget,
    }
}

/// The shared cache when its minimum definition size is the one asked for; otherwise none (an
/// outline with another minimum is computed afresh, never stored under the shared options).
fn cache_for(cache: &OutlineCache, min_component_lines: Option<u32>) -> Option<&OutlineCache> {
    min_component_lines
        .is_none_or(|min_lines| min_lines == cache.options().min_lines)
        .then_some(cache)
}

/// The edited paths spelled as in `read` when they name the same file (`./src/a.ts` and
/// `src/a.ts`), so an edited file that was also read is one file, placed as edited.
fn edited_as_read(base: &Path, read: &[String], edited: Option<&[String]>) -> Vec<String> {
    let Some(edited) = edited else {
        return Vec::new();
    };
    let mut read_by_file: std::collections::HashMap<PathBuf, &String> =
        std::collections::HashMap::with_capacity(read.len());
    for path in read {
        read_by_file
            .entry(normalize_lexically(base, path))
            .or_insert(path);
    }
    edited
        .iter()
        .map(|path| {
            read_by_file
                .get(&normalize_lexically(base, path))
                .map_or_else(|| path.clone(), |read| (*read).clone())
        })
        .collect()
}

/// `roo/fold/context`: the folded view of `paths` (most recently read first).
pub fn fold_context(
    state: &SharedState,
    policy: &Policy,
    documents: &Documents,
    cache: &OutlineCache,
    params: &FoldContextParams,
) -> FoldContextResult {
    let base = base_folder(policy, params.cwd.as_deref());
    let edited = edited_as_read(&base, &params.paths, params.edited_paths.as_deref());
    let paths = context_paths(&params.paths, &edited);
    // Why each skipped input was skipped, keyed by position, so the reason kinds stay precise.
    let mut host_kinds: Vec<Option<FoldDiagnosticKind>> = Vec::with_capacity(paths.len());
    let inputs: Vec<FoldInput> = paths
        .iter()
        .map(|path| {
            // A cancelled request reads nothing more (its answer is dropped anyway).
            if roo_context_core::cancel::cancelled() {
                host_kinds.push(Some(FoldDiagnosticKind::Cancelled));
                return FoldInput {
                    display_path: path.clone(),
                    content: FoldContent::Skipped {
                        reason: "the request was cancelled".into(),
                    },
                };
            }
            let decision = policy.check_access(&state.resolver, &state.fs, Some(&base), path);
            let content = if !decision.allowed() {
                host_kinds.push(Some(FoldDiagnosticKind::Blocked));
                FoldContent::Skipped {
                    reason: "blocked by the ignore file".into(),
                }
            } else {
                match read_source(state, policy, documents, &normalize_lexically(&base, path)) {
                    Ok(content) => {
                        host_kinds.push(None);
                        content
                    }
                    Err(reason) => {
                        host_kinds.push(Some(FoldDiagnosticKind::Unreadable));
                        FoldContent::Skipped { reason }
                    }
                }
            };
            FoldInput {
                display_path: path.clone(),
                content,
            }
        })
        .collect();
    let mut options = FoldOptions {
        max_chars: params
            .max_chars
            .unwrap_or(roo_context_fold::DEFAULT_MAX_CHARS),
        // A `$/cancelRequest` stops the work between windows of files (see `rpc::blocking`).
        stop: roo_context_core::cancel::current_flag(),
        edited_paths: edited,
        prioritize: params.prioritize.unwrap_or(true),
        ..FoldOptions::default()
    };
    let cache = cache_for(cache, params.min_component_lines);
    if let Some(min_lines) = params.min_component_lines {
        options.outline.min_lines = min_lines;
    }
    let folded = folded_file_context_with(&inputs, &options, cache);
    // Files the host skipped are reported in input order, so one pass pairs them up.
    let mut host_kind_by_path = paths.iter().zip(host_kinds);
    FoldContextResult {
        diagnostics: folded
            .diagnostics
            .iter()
            .map(|d| {
                let kind = if d.kind == FileDiagnosticKind::SkippedByHost {
                    host_kind_by_path
                        .find(|(p, k)| **p == d.display_path && k.is_some())
                        .and_then(|(_, k)| k)
                        .unwrap_or(FoldDiagnosticKind::Skipped)
                } else {
                    wire_kind(d.kind)
                };
                FoldDiagnostic {
                    path: d.display_path.clone(),
                    kind,
                    included: d.included,
                    message: d.message.clone(),
                }
            })
            .collect(),
        content: folded.content,
        sections: folded.sections,
        files_processed: folded.files_processed,
        files_skipped: folded.files_skipped,
        character_count: folded.character_count,
    }
}

/// The error a single-file answer (outline, symbols, folding ranges) gets instead of an empty
/// answer when a cap stopped its parse (issue 25): the worker's memory or time limit, a worker
/// that died or could not start, a cancel. Files too large or too deep to parse, and syntax
/// errors, stay diagnostics.
pub fn parse_failure(diagnostics: &[OutlineDiagnostic]) -> Option<RpcError> {
    diagnostics.iter().find_map(|diagnostic| {
        let kind = match diagnostic {
            OutlineDiagnostic::MemoryLimit { .. } => "memoryLimit",
            OutlineDiagnostic::Timeout {
                during_query: false,
                ..
            } => "timeout",
            OutlineDiagnostic::ParseWorkerFailed { .. } => "parseWorkerFailed",
            OutlineDiagnostic::Cancelled => "cancelled",
            _ => return None,
        };
        Some(RpcError::RequestFailed {
            kind,
            message: diagnostic.to_string(),
        })
    })
}

/// Why a single-file request cannot be answered.
#[derive(Debug)]
pub enum OutlineError {
    /// The access rule blocks the path.
    Blocked,
    /// No grammar for the file's extension.
    Unsupported,
    /// The file could not be read.
    Unreadable(String),
    /// A cap stopped the parse ([`parse_failure`]).
    ParseFailed(RpcError),
}

impl std::fmt::Display for OutlineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutlineError::Blocked => write!(f, "access blocked by the ignore file"),
            OutlineError::Unsupported => write!(f, "no grammar for this file type"),
            OutlineError::Unreadable(reason) => write!(f, "{reason}"),
            OutlineError::ParseFailed(error) => write!(f, "{error}"),
        }
    }
}

/// Reads a single allowed, supported file as text.
pub fn readable_source(
    state: &SharedState,
    policy: &Policy,
    documents: &Documents,
    base: &Path,
    path: &str,
) -> Result<(Language, PathBuf, String), OutlineError> {
    if !policy
        .check_access(&state.resolver, &state.fs, Some(base), path)
        .allowed()
    {
        return Err(OutlineError::Blocked);
    }
    let language = Language::from_path(path).ok_or(OutlineError::Unsupported)?;
    let absolute = normalize_lexically(base, path);
    let text =
        match read_source(state, policy, documents, &absolute).map_err(OutlineError::Unreadable)? {
            FoldContent::Text(text) => text,
            FoldContent::Bytes(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            FoldContent::Skipped { reason } => return Err(OutlineError::Unreadable(reason)),
        };
    Ok((language, absolute, text))
}

/// `roo/fold/outline`.
pub fn fold_outline(
    state: &SharedState,
    policy: &Policy,
    documents: &Documents,
    cache: &OutlineCache,
    params: &FoldOutlineParams,
) -> Result<FoldOutlineResult, OutlineError> {
    let base = base_folder(policy, params.cwd.as_deref());
    let (language, absolute, text) =
        readable_source(state, policy, documents, &base, &params.path)?;
    let outline = match cache_for(cache, params.min_component_lines) {
        Some(cache) => cache.outline(&absolute.to_string_lossy(), language, &text),
        None => {
            let mut options = cache.options().clone();
            options.min_lines = params.min_component_lines.unwrap_or(options.min_lines);
            std::sync::Arc::new(roo_context_fold::outline(language, &text, &options))
        }
    };
    if let Some(error) = parse_failure(&outline.diagnostics) {
        return Err(OutlineError::ParseFailed(error));
    }
    Ok(FoldOutlineResult {
        language: language.name().to_owned(),
        definitions: outline
            .definitions
            .iter()
            .map(|d| OutlineDefinition {
                kind: d.kind.as_str().to_owned(),
                name: d.name.clone(),
                start_line: d.start_line() + 1,
                end_line: d.end_line() + 1,
                first_line: d.first_line.clone(),
            })
            .collect(),
        text: outline.to_text(),
        diagnostics: outline
            .diagnostics
            .iter()
            .map(ToString::to_string)
            .collect(),
    })
}

impl Handler for requests::FoldContext {
    fn handle(
        snapshot: &Snapshot,
        params: FoldContextParams,
    ) -> Result<FoldContextResult, RpcError> {
        let s = snapshot;
        Ok(fold_context(
            &s.state,
            &s.policy,
            &s.documents,
            &s.outlines,
            &params,
        ))
    }
}

impl Handler for requests::FoldOutline {
    fn handle(
        snapshot: &Snapshot,
        params: FoldOutlineParams,
    ) -> Result<FoldOutlineResult, RpcError> {
        let s = snapshot;
        fold_outline(&s.state, &s.policy, &s.documents, &s.outlines, &params).map_err(|error| {
            match error {
                OutlineError::ParseFailed(error) => error,
                other => RpcError::field("path", other),
            }
        })
    }
}
