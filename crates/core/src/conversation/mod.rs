//! The conversation core: the stored API history, what the model sees of it, rewind, and the
//! per-message token accounting every budget decision rests on.
//!
//! Everything here is pure and synchronous. Messages are raw JSON objects viewed through
//! accessors ([`ApiMessage`]), so a history the host sends comes back byte-for-byte unless a
//! function says it `changed` it. Functions that only read return borrowed views
//! ([`std::borrow::Cow`]), so the effective history of a 50 MB conversation copies nothing.
//! Time and ids come from the caller ([`Clock`], [`IdSource`]) so tests are deterministic.

mod diagnostics;
mod effective;
pub(crate) mod message;
mod rewind;
pub(crate) mod shaping;
pub mod sync;
mod tokens;

pub use diagnostics::{
    Diagnostic, DiagnosticCode, HistoryError, ParsedHistory, diagnose_history, json_type,
    parse_history,
};
pub use effective::{
    DerivedHistory, EffectiveHistory, RewrittenHistory, cleanup_after_truncation,
    effective_api_history, messages_since_last_summary,
};
pub use message::{
    ApiMessage, Block, Content, MessageHead, Role, SYNTHETIC_TOOL_RESULT_TEXT, is_truthy,
};
pub use rewind::{
    RemovedContextIds, RewindError, RewindOptions, RewindOutcome, RewindTarget, SUMMARY_HEADING,
    rewind, rewind_api_history,
};
pub use shaping::{
    IMAGE_PLACEHOLDER_TEXT, convert_tool_blocks_to_text, extract_command_blocks,
    inject_synthetic_tool_results, merge_consecutive_api_messages, replace_image_blocks,
    role_and_content_only, tool_result_to_text, tool_use_to_text,
    transform_messages_for_condensing,
};
pub use tokens::{
    Estimate, HistoryTokens, TokenBreakdown, TokenCounter, block_tokens, content_tokens,
    history_token_breakdown, message_tokens,
};

/// The current time, injectable so results are deterministic in tests.
pub trait Clock {
    /// Milliseconds since the Unix epoch (JavaScript's `Date.now()`).
    fn now_ms(&self) -> u64;
}

impl<F: Fn() -> u64> Clock for F {
    fn now_ms(&self) -> u64 {
        self()
    }
}

/// The system clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> u64 {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_millis() as u64)
    }
}

/// A source of fresh ids for summaries (`condenseId`) and markers (`truncationId`).
///
/// Production uses UUID v4 (supplied by the caller); tests use [`SequentialIds`].
pub trait IdSource {
    /// A new id, never returned before by this source.
    fn next_id(&mut self) -> String;
}

/// Deterministic ids `<prefix>-1`, `<prefix>-2`, ... for tests.
#[derive(Clone, Debug, Default)]
pub struct SequentialIds {
    /// Prepended to each id.
    pub prefix: String,
    /// How many ids were handed out.
    pub issued: u64,
}

impl IdSource for SequentialIds {
    fn next_id(&mut self) -> String {
        self.issued += 1;
        format!("{}-{}", self.prefix, self.issued)
    }
}
