//! Context management: `roo/context/manage` (manual, automatic and emergency condensing with
//! truncation as the fallback), `roo/context/willManage`, `roo/context/classifyError`, and the
//! requests the sidecar sends to the host, `roo/host/summarize` (the only LLM call, made by the
//! host) and the `roo/host/cancelSummarize` notification.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Default timeout of the host's summarize call, in milliseconds.
pub const DEFAULT_SUMMARIZE_TIMEOUT_MS: u64 = 120_000;

/// What triggered a `roo/context/manage` call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum ContextTrigger {
    /// The user asked to condense: always condenses; no truncation fallback.
    Manual,
    /// The check before each model request: condense at the threshold, truncate over budget.
    Automatic,
    /// A retry after a context-window error: like automatic with a forced 75 % threshold that
    /// wins over profile thresholds.
    Emergency,
}

/// The model that writes summaries (defaults: the conversing model's window and output limit).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SummarizerModel {
    /// Its context window; default `contextWindow`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// Its output limit; default `maxTokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<i64>,
    /// Whether it accepts images (default `false`: images become `[Referenced image in conversation]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supports_images: Option<bool>,
}

/// Params of `roo/context/manage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ManageContextParams {
    /// Manual, automatic or emergency.
    pub trigger: ContextTrigger,
    /// The full stored API history (`api_conversation_history.json`).
    pub messages: Vec<Value>,
    /// The task's system prompt (counted as part of what the model sees).
    #[serde(default)]
    pub system_prompt: String,
    /// Tool definitions sent with each request (`metadata.tools`), counted as compact JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Value>,
    /// The conversing model's context window.
    pub context_window: u64,
    /// The conversing model's output limit (missing, 0 or negative: 8192 reserved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<i64>,
    /// Context size of the previous request from the provider's usage (without the newest
    /// message). Omit it (or pass 0) to let the sidecar measure the effective history; after a
    /// condense or truncation pass the returned `newContextTokens` or omit it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    /// The auto-condense threshold settings.
    #[serde(flatten)]
    pub thresholds: ThresholdParams,
    /// `customSupportPrompts.CONDENSE`: used verbatim when non-blank, on every trigger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_condensing_prompt: Option<String>,
    /// Pre-rendered `<environment_details>` (added to automatic and emergency summaries).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment_details: Option<String>,
    /// Files the task read, most recently read first (their folded outlines go into the summary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_read_by_roo: Option<Vec<String>>,
    /// Base folder of relative `filesReadByRoo` paths (default: the first workspace folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The summarizing model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summarizer: Option<SummarizerModel>,
    /// How long to wait for `roo/host/summarize` (default 120000 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// `estimate` (default: o200k_base × 1.5, the original's rule) or `exact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_count_mode: Option<TokenCountMode>,
    /// The task id, passed through to the host in the summarize request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Opaque request metadata (mode, tools...), passed through to the host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// `contextCondense` of a `condense_context` event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContextCondense {
    /// The summarizer's cost.
    pub cost: f64,
    /// Size before.
    pub prev_context_tokens: u64,
    /// Size after.
    pub new_context_tokens: u64,
    /// The summary text.
    pub summary: String,
    /// The summary message's id (always present; rewind removes the summary by it).
    pub condense_id: String,
}

/// `contextTruncation` of a `sliding_window_truncation` event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContextTruncation {
    /// The marker's id (rewind restores the hidden messages by it).
    pub truncation_id: String,
    /// Messages hidden.
    pub messages_removed: usize,
    /// Size before.
    pub prev_context_tokens: u64,
    /// Size after.
    pub new_context_tokens: u64,
}

/// The `say` name of a context-management event, spelled as the original's UI log spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ContextEventName {
    /// A summary replaced the history (`contextCondense` is set).
    CondenseContext,
    /// Condensing or truncating failed (`text` is the error).
    CondenseContextError,
    /// Messages were hidden or tool results shrunk (`contextTruncation` is set).
    SlidingWindowTruncation,
}

impl ContextEventName {
    /// Every event name, in the original's order.
    pub const ALL: [ContextEventName; 3] = [
        ContextEventName::CondenseContext,
        ContextEventName::CondenseContextError,
        ContextEventName::SlidingWindowTruncation,
    ];

    /// The name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            ContextEventName::CondenseContext => "condense_context",
            ContextEventName::CondenseContextError => "condense_context_error",
            ContextEventName::SlidingWindowTruncation => "sliding_window_truncation",
        }
    }
}

/// An event for the host's UI log (`say` message), in the original's shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContextEventMessage {
    /// `condense_context`, `condense_context_error` or `sliding_window_truncation`.
    pub say: ContextEventName,
    /// The error text (`condense_context_error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Present on `condense_context`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_condense: Option<ContextCondense>,
    /// Present on `sliding_window_truncation`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_truncation: Option<ContextTruncation>,
}

/// The numbers behind a decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContextBudgetInfo {
    /// `contextWindow × 0.9 − reserved`.
    pub allowed_tokens: u64,
    /// Output tokens held back.
    pub reserved_tokens: u64,
    /// What the model sees now, measured on the effective history.
    pub model_facing_tokens: u64,
    /// `100 × prevContextTokens / contextWindow`.
    pub context_percent: f64,
    /// The threshold in force.
    pub threshold: f64,
    /// `global`, `profile`, `invalidProfile` or `forced`.
    pub threshold_source: ThresholdSourceKind,
}

/// What `roo/context/manage` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum ManageAction {
    /// Nothing: the history is unchanged.
    None,
    /// A summary replaced the older messages.
    Condensed,
    /// The sliding window hid the older messages.
    Truncated,
}

/// Where the threshold in force came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum ThresholdSourceKind {
    /// `autoCondenseContextPercent`.
    Global,
    /// The current profile's entry of `profileThresholds`.
    Profile,
    /// A profile entry outside 5–100: the global threshold, with a warning.
    InvalidProfile,
    /// A manual or emergency trigger, which acts whatever the threshold.
    Forced,
}

/// How tokens are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum TokenCountMode {
    /// Exact o200k_base.
    Exact,
    /// The original's rules on top of it: ×1.5 per content list, rounded up; images by formula.
    Estimate,
}

/// Why a `roo/host/summarize` call is no longer wanted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum CancelReason {
    /// `timeoutMs` passed without an answer.
    Timeout,
    /// The `roo/context/manage` request was cancelled.
    Cancelled,
}

/// The auto-condense threshold settings, shared by `roo/context/manage` and
/// `roo/context/willManage` (flattened: the fields sit at the top of their params). serde reads a
/// flattened struct from a buffer where the field path is lost, so each field names itself in its
/// errors (`named`), keeping the one invalid-params form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ThresholdParams {
    /// `autoCondenseContext` (default `true`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "named::auto_condense_context"
    )]
    pub auto_condense_context: Option<bool>,
    /// `autoCondenseContextPercent` (default 100).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "named::auto_condense_context_percent"
    )]
    pub auto_condense_context_percent: Option<f64>,
    /// `profileThresholds` (profile id → percent; `-1` inherits; valid 5–100).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "named::profile_thresholds"
    )]
    pub profile_thresholds: Option<BTreeMap<String, f64>>,
    /// The current profile's id (default `"default"`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "named::current_profile_id"
    )]
    pub current_profile_id: Option<String>,
}

/// Deserializers that put the wire name of their field in front of an error.
mod named {
    use serde::{Deserialize, Deserializer};

    macro_rules! named {
        ($($function:ident = $wire:literal),* $(,)?) => {$(
            pub(super) fn $function<'de, D, T>(deserializer: D) -> Result<T, D::Error>
            where
                D: Deserializer<'de>,
                T: Deserialize<'de>,
            {
                T::deserialize(deserializer).map_err(|error| {
                    <D::Error as serde::de::Error>::custom(format_args!(
                        "field `{}`: {error}",
                        $wire
                    ))
                })
            }
        )*};
    }

    named!(
        auto_condense_context = "autoCondenseContext",
        auto_condense_context_percent = "autoCondenseContextPercent",
        profile_thresholds = "profileThresholds",
        current_profile_id = "currentProfileId",
    );
}

/// How the summarize request was shortened to fit the summarizer's window.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct RequestDegradationInfo {
    /// Tool results shortened, largest first.
    pub tool_results_shrunk: usize,
    /// Messages between the first and the most recent ones left out.
    pub messages_omitted: usize,
    /// Other texts shortened (last resort).
    pub texts_shrunk: usize,
}

/// Result of `roo/context/manage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ManageContextResult {
    /// Whether the history changed. When `false` the host's history stays exactly as it was.
    pub changed: bool,
    /// The new full history to store; present only when `changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<Value>>,
    /// `none`, `condensed` or `truncated`.
    pub action: ManageAction,
    /// The summary text (empty unless condensed).
    pub summary: String,
    /// Cost of the summarizer call (0 when none ran).
    pub cost: f64,
    /// The size that was managed.
    pub prev_context_tokens: u64,
    /// Model-facing tokens afterwards, on success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_context_tokens: Option<u64>,
    /// The new summary's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condense_id: Option<String>,
    /// The truncation's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truncation_id: Option<String>,
    /// Messages hidden by the truncation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages_removed: Option<usize>,
    /// Tool results shrunk in place (zero-progress recovery).
    pub tool_results_shrunk: usize,
    /// The user-facing error, when something failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Details of the error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_details: Option<String>,
    /// The events to show, in order (error first).
    pub events: Vec<ContextEventMessage>,
    /// The numbers behind the decision.
    pub budget: ContextBudgetInfo,
    /// How the summarize request was shortened, when one was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_degradation: Option<RequestDegradationInfo>,
    /// Non-fatal notes (an invalid profile threshold).
    pub warnings: Vec<String>,
}

/// Params of `roo/context/willManage` (numbers only: cheap to call before every request).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WillManageContextParams {
    /// Context size of the previous request.
    pub total_tokens: u64,
    /// Tokens of the last stored message (or pass `lastMessage` to have it counted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message_tokens: Option<u64>,
    /// The last stored message, counted when `lastMessageTokens` is absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message: Option<Value>,
    /// The model's context window.
    pub context_window: u64,
    /// The model's output limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<i64>,
    /// The auto-condense threshold settings.
    #[serde(flatten)]
    pub thresholds: ThresholdParams,
    /// `estimate` (default) or `exact`, for counting `lastMessage`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_count_mode: Option<TokenCountMode>,
}

/// Result of `roo/context/willManage`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WillManageContextResult {
    /// Whether `roo/context/manage` (automatic) would condense or truncate.
    pub will_manage: bool,
    /// `totalTokens + lastMessageTokens`.
    pub prev_context_tokens: u64,
    /// `contextWindow × 0.9 − reserved`.
    pub allowed_tokens: u64,
    /// `100 × prev / contextWindow`.
    pub context_percent: f64,
    /// The threshold in force.
    pub threshold: f64,
}

/// Params of `roo/context/classifyError`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ClassifyErrorParams {
    /// The provider error as JSON (`name`, `message`, `status`, `code`, `error`, `response`...).
    pub error: Value,
}

/// Result of `roo/context/classifyError`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ClassifyErrorResult {
    /// Whether it is a context-window-exceeded error (then retry with `trigger: "emergency"`).
    pub is_context_window_error: bool,
}

/// Params of `roo/host/summarize` (server to client): make one model call and return its text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HostSummarizeParams {
    /// Identifies this call in `roo/host/cancelSummarize`.
    pub request_id: String,
    /// The system prompt of the call.
    pub system_prompt: String,
    /// `{role, content}` messages, content a string or text/image blocks; the last is the
    /// condense instructions.
    pub messages: Vec<Value>,
    /// What triggered the condense.
    pub trigger: ContextTrigger,
    /// The task id, when the host gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// The host's metadata, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    /// Tokens of the request as the sidecar counted them.
    pub request_tokens: u64,
    /// What the summarizer's window allows.
    pub token_limit: u64,
}

/// A provider error as the host saw it (the original's thrown error object).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HostErrorInfo {
    /// The error message.
    pub message: String,
    /// HTTP status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<Value>,
    /// Provider error code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Value>,
    /// The provider's response.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<Value>,
    /// The response body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

/// Result of `roo/host/summarize`: the model's text, or the provider's error. (A JSON-RPC error
/// response also counts as a failed call; its `data` may carry `status`, `code`, `response`,
/// `body`.)
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HostSummarizeResult {
    /// The concatenated text of the answer.
    #[serde(default)]
    pub text: String,
    /// Cost of the call (the last usage report), default 0.
    #[serde(default)]
    pub cost: f64,
    /// Output tokens, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    /// Set when the provider call failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<HostErrorInfo>,
}

/// Params of the `roo/host/cancelSummarize` notification (server to client): the summarize call
/// `requestId` is no longer wanted (timed out or cancelled); its answer will be ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HostCancelSummarizeParams {
    /// The `requestId` of the abandoned `roo/host/summarize`.
    pub request_id: String,
    /// `timeout` or `cancelled`.
    pub reason: CancelReason,
}
