//! Folded file context and single-file outlines (tree-sitter), the custom side of the folding
//! engine; the standard side is `textDocument/foldingRange` and `textDocument/documentSymbol`.

use serde::{Deserialize, Serialize};

/// Params of `roo/fold/context`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FoldContextParams {
    /// Files the agent read, most recently read first.
    pub paths: Vec<String>,
    /// Base folder for relative paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Budget in UTF-16 code units (default 50,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chars: Option<usize>,
    /// Definitions spanning fewer lines are left out (the original's `MIN_COMPONENT_LINES`,
    /// default 4; 0 keeps every definition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_component_lines: Option<u32>,
    /// Files the agent edited, most recently edited first (as spelled in `paths`). They are
    /// folded even when not in `paths`, and come first in the budget: edited files, then read
    /// files, implementation before tests, most recent first within each (docs/protocol.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_paths: Option<Vec<String>>,
    /// Spend the budget on what the task needs first (default true: the budget order above,
    /// test files summarised, nested definitions dropped before anything is cut). `false` is
    /// the original `generateFoldedFileContext`: files in the order of `paths`, full outlines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prioritize: Option<bool>,
}

/// Result of `roo/fold/context`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FoldContextResult {
    /// The sections joined with `\n` (empty when no file has definitions).
    pub content: String,
    /// One `<system-reminder>` section per included file, in budget order.
    pub sections: Vec<String>,
    /// Files with a section.
    pub files_processed: usize,
    /// Files without one.
    pub files_skipped: usize,
    /// Length of `content` in UTF-16 code units.
    pub character_count: usize,
    /// Why files were skipped or degraded.
    pub diagnostics: Vec<FoldDiagnostic>,
}

/// A note about one file of a folded context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FoldDiagnostic {
    /// The path as requested.
    pub path: String,
    /// `blocked`, `unreadable`, `unsupportedLanguage`, `binary`, `invalidUtf8`, `tooLarge`,
    /// `parseTimeout`, `parseWorkerFailed`, `queryTimeout`, `syntaxErrors`, `grammarLimitation`,
    /// `noDefinitions`, `truncated`, `overBudget`.
    pub kind: FoldDiagnosticKind,
    /// Whether the file still has a section.
    pub included: bool,
    /// Human-readable explanation.
    pub message: String,
}

/// Why a file of `roo/fold/context` has no (or a shortened) section.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum FoldDiagnosticKind {
    /// The access rule blocks it.
    Blocked,
    /// It could not be read (missing, not a regular file, too large to read).
    Unreadable,
    /// The request was cancelled before it was read.
    Cancelled,
    /// Skipped for another reason.
    Skipped,
    /// No grammar for its extension.
    UnsupportedLanguage,
    /// It looks binary.
    Binary,
    /// It is not UTF-8.
    InvalidUtf8,
    /// It is too large to parse.
    TooLarge,
    /// Parsing took too long.
    ParseTimeout,
    /// The parse worker (the capped child process that runs tree-sitter) could not be started
    /// or died; the message says why.
    ParseWorkerFailed,
    /// The definitions query took too long.
    QueryTimeout,
    /// It has syntax errors (the section is kept).
    SyntaxErrors,
    /// Valid code the grammar cannot parse (a known grammar limitation, reported at its line;
    /// the section is kept).
    GrammarLimitation,
    /// It has no definitions.
    NoDefinitions,
    /// Its section was cut to fit.
    Truncated,
    /// It did not fit in `maxChars`.
    OverBudget,
}

/// Params of `roo/fold/outline`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FoldOutlineParams {
    /// The file.
    pub path: String,
    /// Base folder for a relative path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Definitions spanning fewer lines are left out (default 4; 0 keeps every definition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_component_lines: Option<u32>,
}

/// Result of `roo/fold/outline`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FoldOutlineResult {
    /// `typescript`, `tsx`, `javascript`, `rust`, `python`, `go`.
    pub language: String,
    /// Definitions in source order.
    pub definitions: Vec<OutlineDefinition>,
    /// The `start--end | first line` text (1-based lines).
    pub text: String,
    /// Parse notes (syntax errors, timeouts, size).
    pub diagnostics: Vec<String>,
}

/// One definition of an outline.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct OutlineDefinition {
    /// `class`, `function`, `method`, `interface`, ...
    pub kind: String,
    /// The defined name.
    pub name: String,
    /// 1-based first line.
    pub start_line: u32,
    /// 1-based last line.
    pub end_line: u32,
    /// The first line's text.
    pub first_line: String,
}
