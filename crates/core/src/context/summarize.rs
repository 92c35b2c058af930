//! One condense on request (the original's `summarizeConversation`): the guards and the request
//! of [`build_condense_request`](super::build_condense_request), then the host's answer turned
//! into the tagged history with its summary. No threshold and no budget: the caller (a host
//! running its own `manageContext` flow, or the user) decided to condense.

use super::condense::{
    CondenseFailure, SummaryExtras, Trigger, append_summary, summarizer_call_failed,
    summary_message,
};
use super::manage::{NO_SUMMARIZER_DETAILS, SummarizeReply};
use super::prompts::{ERROR_HANDLER_INVALID, condense_api_failed};
use crate::conversation::{ApiMessage, Clock, IdSource, TokenCounter, message_tokens};

/// What a condense produced.
#[derive(Clone, Debug, PartialEq)]
pub enum CondenseOutcome {
    /// The tagged history with the summary last.
    Condensed {
        /// Every input message (untagged ones now carry `condenseParent`), then the summary.
        messages: Vec<ApiMessage>,
        /// The trimmed summary text.
        summary: String,
        /// The summary's `condenseId`.
        condense_id: String,
        /// The summarizer's cost.
        cost: f64,
        /// Tokens of the summary message (what the model sees of the history afterwards).
        summary_tokens: u64,
    },
    /// Nothing changed.
    Failed(CondenseFailure),
}

/// Turns the host's reply into the outcome. `automatic`: the original's `isAutomaticTrigger`
/// (environment details go into the summary).
pub fn finish_condense(
    messages: Vec<ApiMessage>,
    reply: SummarizeReply,
    automatic: bool,
    extras: &SummaryExtras<'_>,
    counter: &dyn TokenCounter,
    ids: &mut dyn IdSource,
    clock: &dyn Clock,
) -> CondenseOutcome {
    let answer = match reply {
        SummarizeReply::Answer(answer) => answer,
        SummarizeReply::Failed { error, cost } => {
            return CondenseOutcome::Failed(summarizer_call_failed(&error, cost));
        }
        SummarizeReply::NoSummarizer => {
            return CondenseOutcome::Failed(CondenseFailure {
                error: ERROR_HANDLER_INVALID.to_owned(),
                error_details: Some(NO_SUMMARIZER_DETAILS.to_owned()),
                cost: 0.0,
            });
        }
        SummarizeReply::ToolCall { cost } => {
            return CondenseOutcome::Failed(CondenseFailure {
                error: condense_api_failed(super::manage::TOOL_CALL_ANSWER),
                error_details: Some(format!("Error: {}", super::manage::TOOL_CALL_ANSWER)),
                cost,
            });
        }
        SummarizeReply::TimedOut { after_ms } => {
            return CondenseOutcome::Failed(CondenseFailure {
                error: condense_api_failed(&format!(
                    "the host did not answer within {after_ms} ms"
                )),
                error_details: Some(format!(
                    "Error: roo/host/summarize timed out after {after_ms} ms"
                )),
                cost: 0.0,
            });
        }
    };
    let trigger = if automatic {
        Trigger::Automatic
    } else {
        Trigger::Manual
    };
    match summary_message(&messages, &answer, trigger, extras, ids, clock) {
        Err(failure) => CondenseOutcome::Failed(failure),
        Ok(summary) => {
            let summary_tokens = message_tokens(&summary.message, counter) as u64;
            let condensed = append_summary(messages, summary);
            CondenseOutcome::Condensed {
                messages: condensed.messages,
                summary: condensed.summary,
                condense_id: condensed.condense_id,
                cost: answer.cost,
                summary_tokens,
            }
        }
    }
}
