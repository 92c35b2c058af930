//! Context management (spec §3, §5, §7, §9; decisions.md "Context management"): the threshold
//! decision, condensing with the summarizer call delegated to the host, sliding-window
//! truncation with zero-progress recovery, the events to report, and context-window-error
//! classification.
//!
//! Pure and synchronous like the rest of the core. A run is two steps around the host's model
//! call: [`begin_manage`] measures and decides, and returns either the outcome or a
//! [`CondenseRequest`] to send; [`finish_manage`] turns the host's reply into the outcome.
//! [`report`] is the one place that turns an outcome into events, for all three triggers.
//! Tokens are counted through the conversation's [`TokenCounter`](crate::conversation::TokenCounter),
//! always on the effective history (what the model sees).

mod attributed;
mod budget;
mod cache;
pub mod calibrate;
mod classify;
mod condense;
pub mod hygiene;
mod ingest;
mod manage;
mod progress;
mod prompts;
mod shrink;
mod summarize;
mod truncate;
pub mod verify;

pub use attributed::{Withheld, withhold_blocked_lines};
pub use budget::{
    DEFAULT_RESERVED_OUTPUT_TOKENS, FORCED_CONTEXT_REDUCTION_PERCENT, INHERIT_THRESHOLD,
    MAX_CONDENSE_THRESHOLD, MAX_CONTEXT_WINDOW_RETRIES, MIN_CONDENSE_THRESHOLD,
    TOKEN_BUFFER_PERCENT, ThresholdSettings, ThresholdSource, WillManageInput, WillManagePlan,
    allowed_tokens, condense_percent, context_percent, effective_threshold,
    invalid_profile_threshold_warning, reserved_output_tokens, will_manage_context,
    will_manage_plan,
};
pub use cache::{
    CacheClock, CacheImpact, CachePrices, DEFAULT_MAX_BREAK_EVEN_REQUESTS, DeferPolicy,
    DeferReason, MAX_CACHE_BREAKPOINTS, MIN_FREED_TOKENS_FLOOR, cache_breakpoints, cache_impact,
    defer_reason, price_change,
};
pub use classify::is_context_window_exceeded_error;
pub use condense::{
    ACTIVE_WORKFLOWS_HEADING, ACTIVE_WORKFLOWS_LEAD_IN, CONTINUATION_ANSWER_RULE, CondenseFailure,
    CondenseRequest, CondensedHistory, HostError, PrefixReuseFallback, RequestDegradation,
    RequestShape, RequestShapeKind, SummarizerAnswer, SummarizerInfo, SummaryExtras,
    SummaryMessage, Trigger, append_summary, build_condense_request, check_condense_guards,
    condense_instructions, format_error_details, summarizer_call_failed, summary_content,
    summary_message,
};
pub use hygiene::{
    DEFAULT_BATCH_TOKENS, DEFAULT_KEEP_RECENT_TURNS, DEFAULT_MASK_ABOVE_TOKENS, HYGIENE_FIELD,
    HygieneDecision, HygieneKind, HygieneOptions, HygieneOutcome, HygienePlan, apply_hygiene,
    drop_undone_hygiene, hygiene_view, plan_hygiene, shape_history,
};
pub use ingest::{
    BYTES_PER_TOKEN_UPPER_BOUND, DEFAULT_OUTPUT_CAP_TOKENS, MAX_SHOWN_LINE_BYTES,
    MIN_OUTPUT_CAP_TOKENS, OutputKind, OutputPreview, is_line_that_matters, preview_output,
};
pub use manage::{
    CacheOptions, ContextAction, ContextBudget, ContextCondenseEvent, ContextEvent,
    ContextTruncationEvent, Deferral, ManageInput, ManageOutcome, ManageStep,
    NO_SUMMARIZER_DETAILS, PendingCondense, PrefixReuseReport, SummarizeReply, SummaryVerification,
    TOOL_CALL_ANSWER, VerifyConfig, begin_manage, begin_manage_with, finish_manage,
    folded_section_paths, measure_budget, report, retry_request, standalone_fallback,
};
pub use progress::{LastRequest, ProgressGuard, min_growth_tokens, success_target, unsent_tokens};
pub use prompts::{
    CONDENSE_TEMPLATE, ERROR_CONDENSE_FAILED, ERROR_CONDENSED_RECENTLY, ERROR_CONTEXT_GREW,
    ERROR_HANDLER_INVALID, ERROR_NOT_ENOUGH_MESSAGES, SUMMARY_PROMPT, condense_api_failed,
};
pub use shrink::{
    ShrinkScope, ShrunkBlock, TOOL_RESULT_SHRINK_FLOOR_CHARS, shrink_largest_texts,
    tool_result_shrink_notice,
};
pub use summarize::{CondenseOutcome, finish_condense};
pub use truncate::{
    FractionTruncation, HistoryEdit, Reduction, TRUNCATION_FRACTION, apply_edits,
    model_facing_tokens, recovery_failed_error, reduce_context, truncate_by_fraction,
    truncation_marker_text,
};
