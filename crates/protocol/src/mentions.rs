//! @-mentions and slash commands: `roo/mentions/parse`, `roo/mentions/processUserContent`, and
//! the server-to-client `roo/host/resolveMention` for the kinds only the editor can resolve.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Options shared by both mention methods (the original's `parseMentions` parameters).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MentionOptions {
    /// The task, for tracking mentioned files as `file_mentioned` (with `storageDir`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The task's folder (where `task_metadata.json` lives), for tracking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_dir: Option<String>,
    /// Folder mention paths are relative to; defaults to the first workspace folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// List ignored folder entries with a lock instead of hiding them (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub show_roo_ignored_files: Option<bool>,
    /// Passed to the host for `@problems` (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_diagnostic_messages: Option<bool>,
    /// Passed to the host for `@problems` (default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_diagnostic_messages: Option<u32>,
    /// How long to wait for each `roo/host/resolveMention` answer (default 10000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_timeout_ms: Option<u64>,
    /// The task's mode, for skills: `skills-<mode>` folders win over `skills` (default `code`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_mode: Option<String>,
    /// Ask the host for the text of `http...` URL mentions (default true). `false` is what Roo
    /// Code 3.52 and Zoo Code 3.80 do: the URL becomes its quoted reference and no section is
    /// appended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fetch_urls: Option<bool>,
    /// Opaque host metadata, passed through unchanged in every `roo/host/resolveMention` this
    /// request sends (so a host with several callers can route the request to the right one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// Params of `roo/mentions/parse`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ParseMentionsParams {
    /// The message. When it contains `<user_message>`, only the insides of
    /// `<user_message>...</user_message>` are parsed; otherwise all of it.
    pub text: String,
    /// Options.
    #[serde(flatten)]
    pub options: MentionOptions,
}

/// Line statistics of a read file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MentionContentMetadata {
    /// Lines in the file.
    pub total_lines: usize,
    /// Lines shown.
    pub returned_lines: usize,
    /// Whether lines were left out (the content starts with the truncation notice).
    pub was_truncated: bool,
    /// `[first, last]` line shown (absent for notebooks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines_shown: Option<[usize; 2]>,
}

/// What a mention content block holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum MentionBlockType {
    /// A file.
    File,
    /// A folder listing.
    Folder,
}

/// A mention only the editor host can resolve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum HostMentionKind {
    /// `@problems`: the workspace diagnostics.
    Problems,
    /// `@terminal`: the terminal output.
    Terminal,
    /// A URL.
    Url,
}

/// One file or folder block (`MentionContentBlock`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MentionContentBlock {
    /// `file` or `folder`.
    #[serde(rename = "type")]
    pub block_type: MentionBlockType,
    /// The mention path without its leading `/`, escapes kept.
    pub path: String,
    /// The read_file-style text.
    pub content: String,
    /// Only on successfully read files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<MentionContentMetadata>,
}

/// A non-fatal finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MentionDiagnostic {
    /// `hostUnavailable`, `hostTimeout`, `hostError`, `unclosedUserMessage`, ...
    pub code: String,
    /// Explanation.
    pub message: String,
}

/// Result of `roo/mentions/parse` (`ParseMentionsResult` plus diagnostics).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ParseMentionsResult {
    /// The text with references substituted and sections appended.
    pub text: String,
    /// One block per distinct file or folder mention, in first-appearance order.
    pub content_blocks: Vec<MentionContentBlock>,
    /// The slash-command instructions, kept apart from `text`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slash_command_help: Option<String>,
    /// The mode of the first command that sets one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Findings: unanswered host requests, unclosed markers, ...
    pub diagnostics: Vec<MentionDiagnostic>,
    /// Workspace-relative files that were read (tracked as `file_mentioned`).
    pub mentioned_files: Vec<String>,
}

/// Params of `roo/mentions/processUserContent`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProcessUserContentParams {
    /// Anthropic-style content blocks (`text`, `tool_result`, `image`, ...); unknown fields and
    /// block types are returned untouched.
    pub content: Vec<Value>,
    /// Options.
    #[serde(flatten)]
    pub options: MentionOptions,
}

/// Result of `roo/mentions/processUserContent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProcessUserContentResult {
    /// The content with user-authored texts expanded and blocks inserted after them.
    pub content: Vec<Value>,
    /// The first mode a command set, in input order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Whether any text was expanded.
    pub changed: bool,
    /// Findings of all parsed texts.
    pub diagnostics: Vec<MentionDiagnostic>,
    /// Files read, over all texts.
    pub mentioned_files: Vec<String>,
}

/// Params of the server-to-client request `roo/host/resolveMention`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResolveMentionParams {
    /// `problems`, `terminal` or `url`.
    pub kind: HostMentionKind,
    /// The URL for `url`; the word itself otherwise.
    pub value: String,
    /// The folder the message was written in.
    pub cwd: String,
    /// The task, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// For `problems`: include diagnostic messages at all.
    pub include_diagnostic_messages: bool,
    /// For `problems`: at most this many (0 = no limit).
    pub max_diagnostic_messages: u32,
    /// The `metadata` of the mention request that caused this one, unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// Result of `roo/host/resolveMention`: the section's text (for `problems`, the original's
/// `diagnosticsToProblemsString` output; for `terminal`, the captured output; for `url`, the
/// page as text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResolveMentionResult {
    /// The text placed inside the section.
    pub content: String,
}

/// Params of `roo/mentions/resolveImages` (the original's `resolveImageMentions`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResolveImagesParams {
    /// The message; `@/path.png`-style mentions in its user-authored text are read.
    pub text: String,
    /// Images already attached (`data:image/...;base64,...`); malformed ones are dropped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub images: Option<Vec<String>>,
    /// Folder mention paths are relative to, and images must lie inside; defaults to the
    /// first workspace folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Whether the model accepts images (default true); when false nothing is read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_images: Option<bool>,
    /// Per-image limit in MB (default 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_image_file_size: Option<f64>,
    /// Limit of all images together in MB (default 20).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_total_image_size: Option<f64>,
}

/// Result of `roo/mentions/resolveImages`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ResolveImagesResult {
    /// The text, unchanged.
    pub text: String,
    /// The kept supplied images, then the mentioned ones, de-duplicated, at most 20.
    pub images: Vec<String>,
}
