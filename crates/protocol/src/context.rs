//! Context management: `roo/context/manage` (manual, automatic and emergency condensing with
//! truncation as the fallback), `roo/context/willManage`, `roo/context/classifyError`, and the
//! requests the sidecar sends to the host, `roo/host/summarize` (the only LLM call, made by the
//! host) and the `roo/host/cancelSummarize` notification.
//! One file on purpose: declarations only, the wire types of every `roo/context/*` method (the
//! above plus `condense`, `verifySummary`, `cacheBreakpoints`, `hygiene`); several share parts
//! (`ThresholdParams`, `VerifyOptions`, `CacheImpactInfo`, `TokenCountMode`).

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
    /// The full stored API history (`api_conversation_history.json`); empty when `history`
    /// names one the sidecar holds.
    #[serde(default)]
    pub messages: Vec<Value>,
    /// A history the sidecar holds (`roo/history/open`), instead of `messages`: the result then
    /// carries the changes as ops (`history`), not the array.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<crate::sync::HistoryRef>,
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
    /// Verify the summary and repair what it lost. Absent: no verification (today's result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyOptions>,
    /// Prompt-cache options (issue 30): prices, the cache clock, deferral and the
    /// continuation-shaped summarize request. Absent: today's behaviour (impacts priced at the
    /// defaults, nothing deferred, standalone requests unless `prefixReuseCondense` was set at
    /// `initialize`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheParams>,
    /// The conversing model's provider (`anthropic`, `openrouter`, ...), for calibration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The conversing model's id (`claude-sonnet-4-5`, ...): with it, counts are calibrated to
    /// the provider (the default `tokenCountMode` becomes `calibrated`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
    /// The provider's usage of the last request (issue 32): the size is its input tokens plus
    /// every message stored since, and the calibration learns from it. Also turns on the
    /// termination guard for `taskId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_request: Option<LastRequestUsage>,
    /// The task folder: the calibration is kept in `<storageDir>/roo-context/calibration.json`
    /// and survives a restart. Absent: kept in memory only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_dir: Option<String>,
}

/// `cache` of `roo/context/manage`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CacheParams {
    /// Price of a cache write relative to uncached input (default 1.25).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_multiplier: Option<f64>,
    /// Price of a cache read relative to uncached input (default 0.1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_multiplier: Option<f64>,
    /// When the host sent its last model request (ms since the epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_request_at_ms: Option<u64>,
    /// How long the provider keeps a cached prefix, in ms (Anthropic: 300000). With
    /// `lastRequestAtMs`: a change made after it is free (the cache is cold) and never waits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
    /// Defer non-emergency changes that do not pay for breaking the cached prefix yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defer: Option<DeferParams>,
    /// Ask for a continuation of the host's last request (`true`), or today's standalone
    /// request (`false`); default: the `prefixReuseCondense` setting.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_reuse: Option<bool>,
    /// How many messages of the effective history the host's last request held (default: all
    /// but the last, the newest, as with `totalTokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_request_messages: Option<usize>,
}

/// `cache.defer`: when a non-emergency change waits for a bigger batch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeferParams {
    /// A change must free at least this many tokens per later request (default
    /// `max(20000, contextWindow / 10)`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_freed_tokens: Option<u64>,
    /// A change that needs more later requests than this to pay for its cache write waits
    /// (default 5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_break_even_requests: Option<f64>,
}

/// What a change to the model-facing history costs and saves in prompt-cache terms (tokens by
/// the run's counter, like every other figure of the result).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CacheImpactInfo {
    /// Index in the effective history (before the change) of the first message the model sees
    /// differently; everything before it, with the system prompt and tools, stays cached.
    pub first_changed_index: usize,
    /// Tokens of the prefix that stays cached (system prompt and tools included).
    pub kept_prefix_tokens: u64,
    /// Tokens the next request writes to the cache again (from `firstChangedIndex` on).
    pub rewrite_tokens: u64,
    /// Tokens every later request no longer sends.
    pub saved_tokens_per_request: u64,
    /// Later requests until the change has paid for its extra write (0: it costs nothing
    /// extra; `null`: it never does).
    pub break_even_requests: Option<u64>,
    /// Whether the cache was cold (the TTL had passed): then the change breaks nothing.
    pub cold: bool,
}

/// Why a change waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum DeferReasonKind {
    /// It would free fewer tokens than `minFreedTokens`.
    FreesTooLittle,
    /// It would take more than `maxBreakEvenRequests` requests to pay for its write.
    BreakEvenTooFar,
}

/// A non-emergency change deferred to a later batch (nothing changed; nothing was sent).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DeferredInfo {
    /// Why it waits.
    pub reason: DeferReasonKind,
    /// The minimum in force.
    pub min_freed_tokens: u64,
    /// The estimated impact (a condense's summary estimated at the summarizer's output
    /// reserve).
    pub estimated_impact: CacheImpactInfo,
}

/// The shape of a summarize request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum SummarizeShape {
    /// Our system prompt, tool blocks as text, no tools.
    Standalone,
    /// The host's last request replayed exactly, with `messages` appended.
    Continuation,
}

/// Why a continuation fell back to the standalone request (once).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum PrefixReuseFallbackKind {
    /// The replay plus the appended messages exceed the summarizer's usable window.
    ReplayTooLarge,
    /// The model answered the continuation with a tool call.
    ToolCallAnswer,
}

/// `prefixReuse` of a result: the shape of the summarize request whose answer was used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct PrefixReuseInfo {
    /// `continuation` or `standalone`.
    pub shape: SummarizeShape,
    /// Why the standalone request was used, when it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<PrefixReuseFallbackKind>,
}

/// `continuation` of `roo/host/summarize`: how to build the request from the host's last one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SummarizeContinuation {
    /// Replay the first `replayMessages` messages of the last request exactly as sent (system
    /// prompt, tools, `tool_choice`, `response_format` unchanged), then append `messages`.
    pub replay_messages: usize,
    /// Tokens of the replay as the sidecar counted them (system prompt and tools included).
    pub replay_tokens: u64,
    /// Where cache breakpoints go: `asLastRequest`, the breakpoints of the last request kept
    /// where they were and none added to the appended messages (the replayed prefix is read
    /// from the cache; the condense request itself is never reused).
    pub cache_breakpoints: String,
}
/// A summary check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum VerifyCheckId {
    /// The default template's nine headings in order (or `requiredSections`).
    Sections,
    /// Every edited file named; every read file named or folded.
    Files,
    /// The latest user message kept.
    LatestUserMessage,
    /// Share of user messages kept (a metric).
    UserMessages,
    /// The user's explicit constraints kept.
    Constraints,
    /// Pending TODOs kept, completed ones not reopened.
    Todos,
    /// Size sanity (a warning).
    Size,
}

/// What to do when a check fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum VerifyOnFail {
    /// Report only.
    Report,
    /// Append the addendum (default).
    Repair,
    /// When sections are missing, one more summarize request, then repair.
    RetryThenRepair,
}

/// Where the files the task touched come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum VerifyFilesSource {
    /// The tracker's records of `taskId` plus the tool calls of the history (default).
    Tracker,
    /// The tool calls of the history only.
    History,
    /// Only `trackedFiles` (no file is taken from the sidecar's own sources).
    None,
}

/// How a file was touched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum TrackedFileAction {
    /// The agent wrote it.
    Edited,
    /// The user changed it while it was in context.
    EditedByUser,
    /// The agent read it.
    Read,
}

/// A file the host says the task touched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TrackedFileInfo {
    /// The path (relative to `cwd`, or absolute).
    pub path: String,
    /// What happened to it.
    pub action: TrackedFileAction,
    /// When (ms since the epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<i64>,
}

/// A TODO status as Roo's `TodoItem` spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TodoEntryStatus {
    /// Not started.
    Pending,
    /// Under way.
    InProgress,
    /// Done.
    Completed,
}

/// A TODO item from the host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TodoEntry {
    /// Its text.
    pub content: String,
    /// Its status.
    pub status: TodoEntryStatus,
}

/// Summary verification options (`verify` of `roo/context/manage` and
/// `roo/context/verifySummary`); every field is optional.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct VerifyOptions {
    /// The checks to run (default: all).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<Vec<VerifyCheckId>>,
    /// Where touched files come from (default `tracker`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files: Option<VerifyFilesSource>,
    /// Files the host adds to the sidecar's sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracked_files: Option<Vec<TrackedFileInfo>>,
    /// The host's TODO list (default: the last `update_todo_list` call or REMINDERS table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub todos: Option<Vec<TodoEntry>>,
    /// Constraints the host adds to the extracted ones.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraints: Option<Vec<String>>,
    /// Headings required instead of the default template's (for a custom prompt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_sections: Option<Vec<String>>,
    /// `repair` (default), `report` or `retryThenRepair`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub on_fail: Option<VerifyOnFail>,
    /// Cap of the addendum in tokens (default 2000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_addendum_tokens: Option<u64>,
}

/// The report of one check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct VerificationCheckInfo {
    /// Which check.
    pub id: VerifyCheckId,
    /// Whether it passed (before repair).
    pub passed: bool,
    /// Why it did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Sections found in order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub found: Option<usize>,
    /// Sections required.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<usize>,
    /// Share of the checked items the summary kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recall: Option<f64>,
    /// Share of edited files named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edited_recall: Option<f64>,
    /// Share of read files named or folded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_recall: Option<f64>,
    /// What is missing (at most 50; `missingCount` has the total).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    /// How many are missing.
    #[serde(default)]
    pub missing_count: usize,
    /// Files named only by their base name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub weak: Vec<String>,
    /// Completed TODOs the summary lists as pending.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reopened: Vec<String>,
    /// Constraint-like summary sentences with no source in the user's words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unsupported: Vec<String>,
    /// Tokens of the summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_tokens: Option<u64>,
}

/// The verification of a summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SummaryVerificationInfo {
    /// Whether every gating check passed (all but `userMessages` and `size`).
    pub passed: bool,
    /// Whether the addendum was appended.
    pub repaired: bool,
    /// Summarize retries made (0 or 1).
    pub retries: u32,
    /// Tokens of the addendum.
    pub addendum_tokens: u64,
    /// The checks.
    pub checks: Vec<VerificationCheckInfo>,
    /// Notes for the user.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// Optional items the addendum left out (cap or budget): `constraints`, `readFiles`,
    /// `completedTodos`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub omitted: BTreeMap<String, usize>,
}

/// Params of `roo/context/verifySummary`: checks a summary the host made itself. Pure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct VerifySummaryParams {
    /// The summary text.
    pub summary: String,
    /// The history being condensed (the full stored history is best); empty with `history`.
    #[serde(default)]
    pub messages: Vec<Value>,
    /// A history the sidecar holds, instead of `messages` (nothing of it crosses the wire).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<crate::sync::HistoryRef>,
    /// The task, for its tracked files (`verify.files: "tracker"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Whether a custom prompt wrote it (sections are then skipped unless required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_prompt: Option<bool>,
    /// Base folder of absolute paths (default: the first workspace folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Files whose folded outline goes with the summary (their reads count as kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folded_files: Option<Vec<String>>,
    /// Tokens of the context before the condense, for the size check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous_context_tokens: Option<u64>,
    /// `estimate` (default) or `exact`, for the addendum's size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_count_mode: Option<TokenCountMode>,
    /// The options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyOptions>,
}

/// Result of `roo/context/verifySummary`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct VerifySummaryResult {
    /// The verification (`repaired`: an addendum is returned).
    pub verification: SummaryVerificationInfo,
    /// The block to append after the summary, when something was lost and it fits the cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addendum: Option<String>,
    /// Set when what must be restored exceeds `maxAddendumTokens` (no addendum then; a condense
    /// would be refused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
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
    /// The summary's verification, when `verify` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<SummaryVerificationInfo>,
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
    /// What the model sees now, measured on the effective history; null when `totalTokens`
    /// was given and nothing was due (the history is then not counted).
    pub model_facing_tokens: Option<u64>,
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
    /// Exact o200k_base scaled to the provider's tokenizer by the calibration of
    /// (`provider`, `modelId`): the family prior until the provider's usage was observed.
    Calibrated,
}

/// The provider's usage of the last request the host sent (issue 32).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LastRequestUsage {
    /// The input tokens the provider reported for it (cache reads and writes included).
    pub input_tokens: u64,
    /// How many stored messages it held. Every message from this index on was added since and
    /// is counted as the unsent batch; the messages before it are what the provider counted,
    /// which the calibration learns from. `roo/context/manage` only; absent: only the last
    /// message is added, as with `totalTokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_count: Option<usize>,
}

/// Per-class ratios of a calibration (provider tokens per o200k token).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ClassRatios {
    /// Source code.
    pub code: f64,
    /// Natural-language text.
    pub prose: f64,
    /// Chinese and Japanese text.
    pub cjk: f64,
    /// JSON, logs, listings.
    pub json: f64,
    /// Korean text.
    pub hangul: f64,
}

/// The calibration a result was counted with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CalibrationInfo {
    /// The prior's family (`claude`, `cl100k`, `o200k`, `gemini`, `default`).
    pub family: String,
    /// The ratio per content class.
    pub ratios: ClassRatios,
    /// 0 (the prior alone) to 1 (observations speak), for the counted mix.
    pub confidence: f64,
    /// Requests observed for this model.
    pub observations: u32,
    /// Whether this call's `lastRequest` was learned from.
    pub observed: bool,
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
    /// `useAvailableInputForContextPercent` (Zoo Code, set for VS Code LM; default `false`): the
    /// condense percentage is of the window minus the reserved output (`maxTokens` when
    /// positive) instead of the whole window.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "named::use_available_input_for_context_percent"
    )]
    pub use_available_input_for_context_percent: Option<bool>,
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
        use_available_input_for_context_percent = "useAvailableInputForContextPercent",
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
    /// The new full history to store; present only when `changed` and the params sent
    /// `messages`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<Value>>,
    /// With a `history` reference: what changed, as ops against it, and the state after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<crate::sync::HistoryChanges>,
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
    /// The summary's verification, when `verify` was given and a summary came back (also when
    /// the condense was refused because of it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verification: Option<SummaryVerificationInfo>,
    /// What the change costs and saves in prompt-cache terms; present whenever `changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_impact: Option<CacheImpactInfo>,
    /// A non-emergency change deferred to a later batch (`cache.defer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deferred: Option<DeferredInfo>,
    /// The summarize request's shape, when a continuation was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_reuse: Option<PrefixReuseInfo>,
    /// The calibration the counts used, when `modelId` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<CalibrationInfo>,
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
    /// Every message stored since the last request (tool results, the assistant's reply, the
    /// new user message): all counted, so a large tool batch is seen before it is sent. Wins
    /// over `lastMessage` and `lastMessageTokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_messages: Option<Vec<Value>>,
    /// The provider's usage of the last request: its `inputTokens` replace `totalTokens`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_request: Option<LastRequestUsage>,
    /// The conversing model's provider, for calibration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// The conversing model's id: with it, new messages are counted calibrated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
    /// The task: with `lastRequest`, the plan honours the task's termination guard, as
    /// `roo/context/manage` does (`shouldCondense` is false until the context grew enough).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
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
    /// Whether an automatic run would first condense (auto-condense on, and the threshold
    /// reached or the budget exceeded).
    #[serde(default)]
    pub should_condense: bool,
    /// Whether the context exceeds `allowedTokens`: when no condense succeeds, hide
    /// `truncateFraction` of the visible history (`roo/history/truncate`).
    #[serde(default)]
    pub over_budget: bool,
    /// The share the fallback truncation hides (0.5).
    #[serde(default)]
    pub truncate_fraction: f64,
    /// Non-fatal notes (an invalid profile threshold).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// The calibration the new messages were counted with, when `modelId` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<CalibrationInfo>,
}

/// Params of `roo/context/condense`: the original's `summarizeConversation`, one condense now
/// (no threshold, no budget: the caller decided), the summary written by the host's model
/// through `roo/host/summarize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CondenseParams {
    /// The full stored API history.
    pub messages: Vec<Value>,
    /// The original's `isAutomaticTrigger`: environment details go into the summary.
    #[serde(default)]
    pub automatic: bool,
    /// `customSupportPrompts.CONDENSE`: used verbatim when non-blank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_condensing_prompt: Option<String>,
    /// Pre-rendered `<environment_details>` (automatic runs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment_details: Option<String>,
    /// Folded file context sections the host made itself, one text block each; when absent the
    /// sidecar folds `filesReadByRoo` itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folded_file_sections: Option<Vec<String>>,
    /// Files the task read, most recently read first (folded by the sidecar when
    /// `foldedFileSections` is absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub files_read_by_roo: Option<Vec<String>>,
    /// Base folder of relative `filesReadByRoo` paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The summarizing model (its window bounds the request; without one the request is sent
    /// as it is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summarizer: Option<SummarizerModel>,
    /// How long to wait for `roo/host/summarize` (default 120000 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The task id, passed through to the host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    /// Opaque request metadata, passed through to the host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
}

/// Result of `roo/context/condense`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CondenseResult {
    /// Whether a summary was appended.
    pub changed: bool,
    /// The tagged history with the summary last; present only when `changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<Value>>,
    /// The trimmed summary text (empty on failure).
    pub summary: String,
    /// Cost of the summarizer call.
    pub cost: f64,
    /// The summary's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub condense_id: Option<String>,
    /// Model-facing tokens afterwards (system prompt not included: the sidecar was not given
    /// it), counted by the sidecar; a host with its own counter counts the summary message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary_tokens: Option<u64>,
    /// The user-facing error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Details of the error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_details: Option<String>,
    /// How the summarize request was shortened, when one was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_degradation: Option<RequestDegradationInfo>,
    /// What the condense costs and saves in prompt-cache terms (issue 30), when `changed`:
    /// `estimate` counts at the default prices, the system prompt and tools not included.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_impact: Option<CacheImpactInfo>,
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
    /// `continuation` (issue 30): replay the last request and append `messages`
    /// (`systemPrompt` is then empty); absent: today's standalone request.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shape: Option<SummarizeShape>,
    /// How to build the continuation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continuation: Option<SummarizeContinuation>,
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
    /// The model answered with a tool call instead of text (a continuation carries the
    /// agent's tools): the sidecar falls back to the standalone request once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call: Option<bool>,
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

/// Params of `roo/context/cacheBreakpoints`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CacheBreakpointsParams {
    /// The full stored API history.
    pub messages: Vec<Value>,
    /// How many breakpoints the host can spend on messages (1 to 4; default 4, Anthropic's
    /// limit; the system prompt's own breakpoint is the host's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<usize>,
}

/// Result of `roo/context/cacheBreakpoints`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CacheBreakpointsResult {
    /// Indices into the effective history (the messages the model sees) of the messages whose
    /// last content block should carry a breakpoint, ascending.
    pub effective_indices: Vec<usize>,
    /// The same messages as indices into the stored `messages`.
    pub stored_indices: Vec<usize>,
}

/// Params of `roo/context/hygiene` (issue 31): old observations masked, superseded file reads
/// elided, as decisions on the stored messages the effective history applies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContextHygieneParams {
    /// The full stored API history; empty with `history`.
    #[serde(default)]
    pub messages: Vec<Value>,
    /// A history the sidecar holds, instead of `messages`: the decisions are answered as ops.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<crate::sync::HistoryRef>,
    /// Results in the last this-many assistant turns are untouched (default 3, at least 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_recent_turns: Option<usize>,
    /// A non-file tool result larger than this many tokens is masked (default 500).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask_above_tokens: Option<usize>,
    /// New decisions are made only when together they free at least this many tokens
    /// (default 4000), so the prompt-cache prefix changes rarely.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub batch_tokens: Option<usize>,
    /// Mask large old observations (default `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mask: Option<bool>,
    /// Elide superseded file reads (default `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elide_superseded: Option<bool>,
    /// `tool_use` ids never masked or elided; an earlier decision on one is lifted.
    #[serde(default)]
    pub pinned: Vec<String>,
    /// Paths the agent edited, beside the edit tools found in the history.
    #[serde(default)]
    pub edited_paths: Vec<String>,
    /// How tokens are counted (default `estimate`, as `roo/context/manage`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_count_mode: Option<TokenCountMode>,
}

/// Why a tool result is shown as a placeholder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum HygieneKind {
    /// A large old observation (command, search, MCP output).
    Masked,
    /// A file read with newer content later in the history.
    Superseded,
}

/// One new hygiene decision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HygieneDecision {
    /// The `tool_use_id` of the result.
    pub tool_use_id: String,
    /// Masked or superseded.
    pub kind: HygieneKind,
    /// The stored index of the message holding the result.
    pub message_index: usize,
    /// The tool's name.
    pub tool: String,
    /// Tokens of the result as stored.
    pub tokens: usize,
    /// The stored output id (`roo/output/read`) the result names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_id: Option<String>,
    /// For a superseded read: the `tool_use` id holding the newer content.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
}

/// Result of `roo/context/hygiene`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ContextHygieneResult {
    /// Whether any stored message changed (a decision added or lifted).
    pub changed: bool,
    /// The stored history with the decisions (`contextHygiene` entries); empty with a
    /// `history` reference.
    pub messages: Vec<Value>,
    /// With a `history` reference: the decisions as ops against it, and the state after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<crate::sync::HistoryChanges>,
    /// The new decisions, in history order.
    pub decisions: Vec<HygieneDecision>,
    /// `tool_use` ids whose earlier decision a pin lifted.
    pub unpinned: Vec<String>,
    /// Model-facing tokens of the effective history before the call.
    pub tokens_before: usize,
    /// Model-facing tokens of the effective history after it.
    pub tokens_after: usize,
    /// Leading messages of the effective history that stayed byte-identical (the prompt-cache
    /// prefix kept).
    pub kept_prefix_messages: usize,
    /// The stored index of the first message the model now sees differently.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_changed_index: Option<usize>,
    /// Tokens eligible results would free, waiting for a batch of `batchTokens`.
    pub pending_tokens: usize,
    /// Whether eligible results wait for a larger batch.
    pub deferred: bool,
    /// The paths the agent edits (the params' and the history's edit tools), sorted.
    pub edited_paths: Vec<String>,
}
