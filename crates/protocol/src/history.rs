//! Conversation history and token counting. Messages are the original's persisted `ApiMessage`
//! objects, passed through untouched: every field and block type is kept, in order.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A problem found in a history: odd but usable input (invalid input is a -32602 error).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryDiagnostic {
    /// Index of the message concerned, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_index: Option<usize>,
    /// A stable code (`missingRole`, `unknownRole`, `orphanToolResult`, ...).
    pub code: String,
    /// Human-readable explanation.
    pub message: String,
}

/// Params of `roo/history/effective`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct EffectiveHistoryParams {
    /// The stored API history (`api_conversation_history.json`); empty with `history`.
    #[serde(default)]
    pub messages: Vec<Value>,
    /// A history the sidecar holds, instead of `messages`: the result's `messages` is then
    /// empty and `sourceIndices` says which of the host's own copy the model sees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<crate::sync::HistoryRef>,
    /// Also return the messages since the last summary (what a new condense would summarize).
    #[serde(default)]
    pub include_since_last_summary: bool,
}

/// Result of `roo/history/effective`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct EffectiveHistoryResult {
    /// What the model sees.
    pub messages: Vec<Value>,
    /// For each returned message, its index in the input.
    pub source_indices: Vec<usize>,
    /// Whether `messages` differs from the input.
    pub changed: bool,
    /// Count of messages since the last summary (when asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since_last_summary_count: Option<usize>,
    /// Oddities found in the input.
    pub diagnostics: Vec<HistoryDiagnostic>,
}

/// Params of `roo/history/merge`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MergeHistoryParams {
    /// Messages to send to the API.
    pub messages: Vec<Value>,
    /// Roles whose consecutive messages are merged (`user`, `assistant`); default `["user"]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roles: Option<Vec<String>>,
}

/// Result of `roo/history/merge`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MergeHistoryResult {
    /// The merged messages (for the request only; never persist them).
    pub messages: Vec<Value>,
    /// Whether anything was merged.
    pub changed: bool,
}

/// Params of `roo/history/rewind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RewindParams {
    /// The UI events (`ui_messages.json`, the original's clineMessages).
    pub ui_messages: Vec<Value>,
    /// The stored API history; empty with `history`.
    #[serde(default)]
    pub api_messages: Vec<Value>,
    /// A history the sidecar holds, instead of `apiMessages`: the rewind is applied to it and
    /// answered as ops (`history`), `apiMessages` in the result then empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<crate::sync::HistoryRef>,
    /// Rewind to the UI event with exactly this `ts` ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ts: Option<f64>,
    /// ... or keep UI events `[0, index)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<usize>,
    /// Keep the UI event at `ts` (edit / checkpoint restore).
    #[serde(default)]
    pub include_target_message: bool,
    /// Skip the cleanup of dangling tags.
    #[serde(default)]
    pub skip_cleanup: bool,
}

/// Result of `roo/history/rewind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RewindResult {
    /// How many UI events to keep.
    pub ui_messages_kept: usize,
    /// The rewound API history (empty with a `history` reference).
    pub api_messages: Vec<Value>,
    /// With a `history` reference: the rewind as ops against it, and the state after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<crate::sync::HistoryChanges>,
    /// Whether the API history changed.
    pub changed: bool,
    /// `condenseId`s of removed condense events (their summaries are gone).
    pub removed_condense_ids: Vec<String>,
    /// `truncationId`s of removed truncation events (their markers are gone).
    pub removed_truncation_ids: Vec<String>,
    /// The timestamp cutoff applied (an integral value is written as an integer, `300` not
    /// `300.0`, as JavaScript writes it).
    #[serde(serialize_with = "integral_as_integer")]
    pub api_cutoff_ts: f64,
    /// Oddities met on the way.
    pub diagnostics: Vec<HistoryDiagnostic>,
}

/// Params of `roo/tokens/count`: exactly one of `text`, `blocks`, `messages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CountTokensParams {
    /// Plain text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// One message's content blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<Vec<Value>>,
    /// A whole history; counted as the model sees it unless `effective` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<Value>>,
    /// A history the sidecar holds, instead of `messages`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<crate::sync::HistoryRef>,
    /// `exact` (o200k_base, default) or `estimate` (the original's rules: ×1.5, image formula).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<crate::context::TokenCountMode>,
    /// For `messages`: count the effective history (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective: Option<bool>,
    /// The conversing model's provider, for `calibrated`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The conversing model's id: the result then also holds `calibrated`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
}

/// Result of `roo/tokens/count`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CountTokensResult {
    /// The total.
    pub total: usize,
    /// For `messages`: tokens per counted message, with its index in the input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_message: Option<Vec<MessageTokens>>,
    /// With `modelId`: the same content counted calibrated to the provider (issue 32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibrated: Option<usize>,
}

/// Tokens of one message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MessageTokens {
    /// Index in the input history.
    pub index: usize,
    /// Tokens of its content.
    pub tokens: usize,
}

/// Writes an integral `f64` as a JSON integer (JavaScript prints `300`, never `300.0`; `-0` as `0`).
fn integral_as_integer<S: serde::Serializer>(
    value: &f64,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        serializer.serialize_i64(*value as i64)
    } else {
        serializer.serialize_f64(*value)
    }
}

/// Params of `roo/history/cleanup` (the original's `cleanupAfterTruncation`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CleanupHistoryParams {
    /// The stored API history after a rewind or deletion.
    pub messages: Vec<Value>,
}

/// Result of `roo/history/cleanup`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CleanupHistoryResult {
    /// The history with every `condenseParent` / `truncationParent` whose summary or marker is
    /// gone removed (the messages it hid are visible again).
    pub messages: Vec<Value>,
    /// Whether any message changed.
    pub changed: bool,
    /// Indices of the messages that changed.
    pub changed_indices: Vec<usize>,
}

/// Params of `roo/history/truncate`: the sliding window alone (the original's
/// `truncateConversation(messages, fracToRemove)`), no budget and no recovery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TruncateHistoryParams {
    /// The stored API history.
    pub messages: Vec<Value>,
    /// Share (0–1) of the visible messages after the first to hide, rounded down to an even count.
    pub fraction: f64,
}

/// Result of `roo/history/truncate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TruncateHistoryResult {
    /// The tagged history with its marker (the input when nothing was hidden).
    pub messages: Vec<Value>,
    /// Whether anything was hidden.
    pub changed: bool,
    /// The truncation's id (also when nothing was hidden, as the original returns one).
    pub truncation_id: String,
    /// Messages hidden (even; 0 changes nothing).
    pub messages_removed: usize,
    /// Indices into `messages` of what stays visible, the marker excluded (what to count).
    pub visible_indices: Vec<usize>,
    /// What the truncation costs and saves in prompt-cache terms (issue 30), when it changed
    /// anything: `estimate` counts at the default prices, the system prompt and tools not
    /// included (the request does not carry them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_impact: Option<crate::context::CacheImpactInfo>,
}

/// Params of `roo/history/toolBlocksAsText` (the original's `transformMessagesForCondensing`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ToolBlocksAsTextParams {
    /// The messages whose `tool_use` and `tool_result` blocks become text blocks.
    pub messages: Vec<Value>,
}

/// Result of `roo/history/toolBlocksAsText` and `roo/history/injectSyntheticToolResults`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ShapedHistoryResult {
    /// The messages (every field but the content kept).
    pub messages: Vec<Value>,
    /// Whether any message changed or was added.
    pub changed: bool,
}

/// Params of `roo/history/injectSyntheticToolResults`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct InjectSyntheticToolResultsParams {
    /// The messages to summarize.
    pub messages: Vec<Value>,
}

/// Params of `roo/history/commandBlocks` (the original's `extractCommandBlocks`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CommandBlocksParams {
    /// One message.
    pub message: Value,
}

/// Result of `roo/history/commandBlocks`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CommandBlocksResult {
    /// Every `<command…>…</command>` block of the message's text, joined with `\n` (`""`: none).
    pub text: String,
}
