//! `roo/output/*` (issue 31): tool output bounded at ingest, stored whole, paged back exactly.

use serde::{Deserialize, Serialize};

/// The tool that produced an output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum ToolOutputKind {
    /// A shell command.
    Command,
    /// An MCP tool.
    Mcp,
    /// A search.
    Search,
    /// A file read.
    FileRead,
    /// Anything else.
    Other,
}

/// Params of `roo/output/ingest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct IngestOutputParams {
    /// The task.
    pub task_id: String,
    /// The task's folder (where `task_metadata.json` lives); it must exist.
    pub storage_dir: String,
    /// The tool output.
    pub text: String,
    /// The tool's kind (default `other`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ToolOutputKind>,
    /// The token cap (default 8000, at least 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap_tokens: Option<usize>,
    /// The tool's name, for the log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The file the output was read from (a file read): judged by the access rule now and at
    /// every `roo/output/read`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_path: Option<String>,
    /// Base folder for a relative `sourcePath`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// Result of `roo/output/ingest`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct IngestOutputResult {
    /// What the model sees: the output, or its preview with a note.
    pub text: String,
    /// Whether `text` is a preview.
    pub truncated: bool,
    /// The stored output's id: the sha256 hex of its bytes.
    pub output_id: String,
    /// Bytes of the output.
    pub total_bytes: u64,
    /// Lines of the output.
    pub total_lines: u64,
    /// Lines the preview leaves out.
    pub omitted_lines: u64,
    /// Ids of older outputs evicted to keep the task under its bound.
    pub evicted: Vec<String>,
    /// Files the output quoted lines of (`path:12:…`, a search's `# path` section) that the access
    /// rule blocks: their lines were replaced by a note before the output was stored or shown.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub withheld_paths: Vec<String>,
    /// How many lines were withheld.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub withheld_lines: u64,
}

fn is_zero(value: &u64) -> bool {
    *value == 0
}

/// Params of `roo/output/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReadOutputParams {
    /// The task.
    pub task_id: String,
    /// The task's folder.
    pub storage_dir: String,
    /// The id `roo/output/ingest` returned.
    pub output_id: String,
    /// First line, 1-based (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u64>,
    /// Last line, inclusive (default: `startLine + maxLines - 1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u64>,
    /// A regex: only matching lines, with their numbers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// At most this many lines (default 500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_lines: Option<u64>,
}

/// One line of a stored output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct OutputLine {
    /// 1-based.
    pub line: u64,
    /// The line's bytes, line ending included.
    pub text: String,
}

/// Result of `roo/output/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReadOutputResult {
    /// The lines' bytes concatenated exactly (endings included).
    pub text: String,
    /// The lines, numbered.
    pub lines: Vec<OutputLine>,
    /// Lines of the whole output.
    pub total_lines: u64,
    /// Whether more lines were in range (or matched) than returned.
    pub more: bool,
}
