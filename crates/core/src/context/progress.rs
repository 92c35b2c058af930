//! Termination as a property (issue 32): what the trigger counts and when it may fire again.
//!
//! - The unsent batch: the provider's input count of the last request plus every message stored
//!   since (tool results, the assistant's reply, the new user message), not only the last one, so
//!   a large tool batch triggers before it is sent ([`unsent_tokens`]).
//! - No new summarize call until the context grew by [`min_growth_tokens`] since the last
//!   management that changed it: a compaction that made no progress cannot be retried on the
//!   next request, and the next one, forever ([`ProgressGuard::allows_condense`]).
//! - After an emergency, a success must bring the next request to half the window at most
//!   ([`success_target`]), so the provider's refusal cannot repeat right away.

use super::condense::Trigger;
use crate::conversation::{ApiMessage, HistoryTokens};

/// The provider's count of the last request the host sent, and where it ended in the stored
/// history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LastRequest {
    /// The provider-reported input tokens of that request (its usage), in provider tokens.
    pub input_tokens: u64,
    /// How many stored messages it held: messages from this index on were added since.
    pub message_count: usize,
}

/// Growth needed before a new summarize call: `max(5 % of the window, 4096)`.
pub fn min_growth_tokens(context_window: u64) -> u64 {
    (context_window / 20).max(4096)
}

/// What the last change left, per task: the size right after it and whether it was an emergency.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProgressGuard {
    /// Model-facing tokens right after the last change (condense or truncation).
    pub tokens_after_last_change: u64,
}

impl ProgressGuard {
    /// Whether an automatic run may ask for a summary at `prev_tokens`: only once the context
    /// grew by [`min_growth_tokens`] since the last change. Manual and emergency runs always may
    /// (the user asked; the provider refused the request).
    pub fn allows_condense(&self, trigger: Trigger, prev_tokens: u64, context_window: u64) -> bool {
        match trigger {
            Trigger::Automatic => {
                prev_tokens.saturating_sub(self.tokens_after_last_change)
                    >= min_growth_tokens(context_window)
            }
            Trigger::Manual | Trigger::Emergency => true,
        }
    }
}

/// The size a success must reach: the budget, and after an emergency (with the guard on) at
/// most half the window.
pub fn success_target(
    trigger: Trigger,
    allowed_tokens: u64,
    context_window: u64,
    guarded: bool,
) -> u64 {
    if guarded && trigger == Trigger::Emergency {
        allowed_tokens.min(context_window / 2)
    } else {
        allowed_tokens
    }
}

/// Tokens of every stored message from `message_count` on: what the next request adds to the
/// last one (the stored history, not the effective one: nothing added since can be hidden yet).
pub fn unsent_tokens(
    messages: &[ApiMessage],
    message_count: usize,
    tokens: &HistoryTokens<'_>,
) -> u64 {
    let start = message_count.min(messages.len());
    tokens.total(&messages[start..]) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::Role;

    #[test]
    fn min_growth_is_five_percent_with_a_floor() {
        assert_eq!(min_growth_tokens(200_000), 10_000);
        assert_eq!(min_growth_tokens(32_000), 4096);
    }

    #[test]
    fn automatic_runs_wait_for_growth_manual_and_emergency_do_not() {
        let guard = ProgressGuard {
            tokens_after_last_change: 50_000,
        };
        assert!(!guard.allows_condense(Trigger::Automatic, 59_999, 200_000));
        assert!(guard.allows_condense(Trigger::Automatic, 60_000, 200_000));
        assert!(guard.allows_condense(Trigger::Manual, 50_000, 200_000));
        assert!(guard.allows_condense(Trigger::Emergency, 10, 200_000));
    }

    #[test]
    fn an_emergency_targets_half_the_window() {
        assert_eq!(
            success_target(Trigger::Emergency, 107_000, 128_000, true),
            64_000
        );
        assert_eq!(
            success_target(Trigger::Emergency, 107_000, 128_000, false),
            107_000
        );
        assert_eq!(
            success_target(Trigger::Automatic, 107_000, 128_000, true),
            107_000
        );
    }

    #[test]
    fn unsent_tokens_count_every_message_since_the_last_request() {
        let messages: Vec<ApiMessage> = ["aaaa", "bbbbbbbb", "cc"]
            .into_iter()
            .map(|text| ApiMessage::new(Role::User, serde_json::Value::String(text.into())))
            .collect();
        let counter = |text: &str| text.len();
        let tokens = HistoryTokens::new(&messages, &counter);
        assert_eq!(unsent_tokens(&messages, 1, &tokens), 10);
        assert_eq!(unsent_tokens(&messages, 3, &tokens), 0);
        assert_eq!(unsent_tokens(&messages, 9, &tokens), 0);
    }
}
