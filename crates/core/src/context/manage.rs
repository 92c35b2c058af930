//! `manageContext` for all three triggers, in two steps around the host's summarizer call
//! ([`begin_manage`] → optional summarize request → [`finish_manage`]), and the one reporter of
//! results ([`report`]): what changed, and the events the host shows.
//! One file on purpose: `begin_manage` → `finish_manage` (and the one retry) is one flow;
//! every outcome starts from the private `ManageOutcome::unchanged` (its warnings included), and
//! every failure ends in the one fallback (`fallback_reduction`, `conclude_without_condense`).

use super::budget::{
    FORCED_CONTEXT_REDUCTION_PERCENT, ThresholdSettings, ThresholdSource, allowed_tokens,
    condense_percent, effective_threshold, invalid_profile_threshold_warning,
    reserved_output_tokens,
};
use super::cache::{
    CacheClock, CacheImpact, CachePrices, DeferPolicy, DeferReason, cache_impact, defer_reason,
    price_change,
};
use super::condense::{
    CondenseFailure, CondenseRequest, HostError, PrefixReuseFallback, RequestDegradation,
    RequestShape, RequestShapeKind, SummarizerAnswer, SummarizerInfo, SummaryExtras, Trigger,
    build_condense_request_with, insert_summary, summarizer_call_failed, summary_message,
};
use super::progress::{LastRequest, ProgressGuard, success_target, unsent_tokens};
use super::prompts::{ERROR_CONTEXT_GREW, ERROR_HANDLER_INVALID, condense_api_failed};
use super::truncate::HistoryEdit;
use super::truncate::{Reduction, apply_edits, model_facing_tokens_with, reduce_context_with};
use super::verify::{
    Addendum, FileRecord, OnFail, TodoItem, Verification, VerifyInput, VerifySettings,
    build_addendum, retry_instructions, verify_summary,
};
use crate::conversation::{
    ApiMessage, Clock, HistoryTokens, IdSource, Role, TokenCounter, content_tokens, message_tokens,
};

/// Everything `manageContext` needs, owned so it can wait for the host between the two steps.
#[derive(Clone, Debug, PartialEq)]
pub struct ManageInput {
    /// Manual, automatic or emergency.
    pub trigger: Trigger,
    /// The full stored API history.
    pub messages: Vec<ApiMessage>,
    /// The task's system prompt (counted as part of what the model sees).
    pub system_prompt: String,
    /// Compact JSON of the tool definitions sent with each request, when any (counted too).
    pub tools_json: Option<String>,
    /// The conversing model's context window.
    pub context_window: u64,
    /// The conversing model's output limit.
    pub max_tokens: Option<i64>,
    /// Context size of the previous request as the provider reported it (without the newest
    /// message). `None` or 0: the sidecar measures the effective history instead.
    pub total_tokens: Option<u64>,
    /// Thresholds and the auto-condense switch (the emergency path forces its own threshold).
    pub settings: ThresholdSettings,
    /// `customSupportPrompts.CONDENSE`; used verbatim when non-blank, on every trigger.
    pub custom_condensing_prompt: Option<String>,
    /// Pre-rendered `<environment_details>`, added to summaries of automatic and emergency runs.
    pub environment_details: Option<String>,
    /// Folded file context sections of the files the task read (computed by the caller).
    pub folded_file_sections: Vec<String>,
    /// The model that writes summaries.
    pub summarizer: SummarizerInfo,
    /// Verify the summary and repair what it lost (issue 19); `None`: today's behaviour.
    pub verify: Option<VerifyConfig>,
    /// The provider's count of the last request and where it ended (issue 32): the size is
    /// then that count plus every message stored since. `None`: `total_tokens` as before.
    pub last_request: Option<LastRequest>,
    /// The termination guard's state for this task (issue 32); `None`: off (today's behaviour).
    pub guard: Option<ProgressGuard>,
}

/// What summary verification needs besides the history.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VerifyConfig {
    /// The settings (`customPrompt` is taken from the request that was sent).
    pub settings: VerifySettings,
    /// The task's tracked files (the tracker's records, or the host's list).
    pub tracked_files: Vec<FileRecord>,
    /// A TODO list from the host, when it keeps its own.
    pub host_todos: Option<Vec<TodoItem>>,
    /// Constraints from the host, besides the extracted ones.
    pub extra_constraints: Vec<String>,
    /// Base folder of absolute paths.
    pub cwd: Option<String>,
}

/// The verification of a condense, as reported in the result and the `condense_context` event.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryVerification {
    /// The checks (before repair).
    pub verification: Verification,
    /// Whether an addendum was appended.
    pub repaired: bool,
    /// Summarize retries made (0 or 1).
    pub retries: u32,
    /// Tokens of the addendum (0 when none).
    pub addendum_tokens: u64,
    /// Optional items the addendum left out to respect its cap or the budget, per kind.
    pub omitted: Vec<(&'static str, usize)>,
}

/// The numbers every decision rests on.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextBudget {
    /// Output tokens held back.
    pub reserved_tokens: u64,
    /// `contextWindow × 0.9 − reserved`.
    pub allowed_tokens: u64,
    /// Tokens of the system prompt and tool definitions.
    pub fixed_tokens: u64,
    /// Tokens of the last stored message.
    pub last_message_tokens: u64,
    /// What the model sees now, measured: fixed tokens plus the effective history. `None` when
    /// the host's `totalTokens` decided that nothing is due: then the history is not counted
    /// at all (a 50 MB history costs seconds to count, and nothing would use the figure).
    pub model_facing_tokens: Option<u64>,
    /// The size decisions use: the host's `totalTokens + lastMessageTokens` when it gave one,
    /// else the measured [`ContextBudget::model_facing_tokens`].
    pub prev_context_tokens: u64,
    /// `100 × prev / contextWindow`.
    pub context_percent: f64,
    /// The threshold in force.
    pub threshold: f64,
    /// Where it came from.
    pub threshold_source: ThresholdSource,
    /// Whether this run condenses (before any guard).
    pub should_condense: bool,
    /// Whether the context is over budget (`prev > allowed`): truncation is the fallback.
    pub over_budget: bool,
}

impl ContextBudget {
    /// What the model sees now: measured whenever a condense or a truncation is due (the only
    /// runs that use it); the decision's size otherwise.
    pub fn measured(&self) -> u64 {
        self.model_facing_tokens.unwrap_or(self.prev_context_tokens)
    }
}

/// Measures the context and decides (spec §5.3–5.4, with the decisions' emergency rule: the
/// forced 75 % wins over profile thresholds; a manual run always condenses).
pub fn measure_budget(input: &ManageInput, counter: &dyn TokenCounter) -> ContextBudget {
    measure_budget_with(input, &HistoryTokens::new(&input.messages, counter))
}

/// [`measure_budget`] counting through a per-call memo of `input.messages`.
fn measure_budget_with(input: &ManageInput, tokens: &HistoryTokens<'_>) -> ContextBudget {
    let counter = tokens.counter();
    let reserved_tokens = reserved_output_tokens(input.max_tokens);
    // After an emergency the guard wants the next request at half the window: that target is
    // the budget every success and the fallback are held to.
    let allowed = success_target(
        input.trigger,
        allowed_tokens(input.context_window, input.max_tokens),
        input.context_window,
        input.guard.is_some(),
    );
    let text_tokens = |text: &str| counter.finish(counter.count_text(text)) as u64;
    let fixed_tokens = text_tokens(&input.system_prompt)
        + input
            .tools_json
            .as_deref()
            .filter(|json| !json.is_empty() && *json != "[]")
            .map_or(0, text_tokens);
    let last_message_tokens = input
        .messages
        .last()
        .map_or(0, |message| tokens.message(message) as u64);
    let measure = || model_facing_tokens_with(&input.messages, fixed_tokens, tokens);
    let (prev, mut measured) = match (input.last_request, input.total_tokens) {
        // The provider's count of what was sent, plus the whole unsent batch.
        (Some(last), _) if last.input_tokens > 0 => (
            last.input_tokens + unsent_tokens(&input.messages, last.message_count, tokens),
            None,
        ),
        (_, Some(total)) if total > 0 => (total + last_message_tokens, None),
        _ => {
            let measured = measure();
            (measured, Some(measured))
        }
    };
    let percent = condense_percent(
        prev,
        input.context_window,
        input.max_tokens,
        &input.settings,
    );
    let (threshold, threshold_source, auto) = match input.trigger {
        Trigger::Emergency => (
            FORCED_CONTEXT_REDUCTION_PERCENT,
            ThresholdSource::Forced,
            true,
        ),
        _ => {
            let (threshold, source) = effective_threshold(&input.settings);
            (threshold, source, input.settings.auto_condense_context)
        }
    };
    let over_budget = prev > allowed;
    let grew_enough = input
        .guard
        .is_none_or(|guard| guard.allows_condense(input.trigger, prev, input.context_window));
    let should_condense = match input.trigger {
        Trigger::Manual => true,
        _ => auto && grew_enough && (percent >= threshold || over_budget),
    };
    // Condensing and truncating compare against what the model sees: measure it then.
    if should_condense || over_budget {
        measured = measured.or_else(|| Some(measure()));
    }
    ContextBudget {
        reserved_tokens,
        allowed_tokens: allowed,
        fixed_tokens,
        last_message_tokens,
        model_facing_tokens: measured,
        prev_context_tokens: prev,
        context_percent: percent,
        threshold,
        threshold_source,
        should_condense,
        over_budget,
    }
}

/// What a run did to the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ContextAction {
    /// Nothing changed.
    None,
    /// A summary was appended and older messages tagged.
    Condensed,
    /// Messages were hidden behind a marker and/or tool results shrunk.
    Truncated,
}

/// The result of a run: the history (new, or exactly the input) and what to report.
#[derive(Clone, Debug, PartialEq)]
pub struct ManageOutcome {
    /// The trigger of this run.
    pub trigger: Trigger,
    /// The history to store: changed only when [`ManageOutcome::changed`].
    pub messages: Vec<ApiMessage>,
    /// Whether `messages` differs from the input.
    pub changed: bool,
    /// What was done.
    pub action: ContextAction,
    /// The summary text (empty unless condensed).
    pub summary: String,
    /// Cost of the summarizer call (0 when none ran).
    pub cost: f64,
    /// The size before.
    pub prev_context_tokens: u64,
    /// Model-facing tokens afterwards, on success.
    pub new_context_tokens: Option<u64>,
    /// The new summary's id.
    pub condense_id: Option<String>,
    /// The truncation's id.
    pub truncation_id: Option<String>,
    /// Messages hidden by the truncation.
    pub messages_removed: Option<usize>,
    /// Tool results shrunk in place by the recovery.
    pub tool_results_shrunk: usize,
    /// The user-facing error, when something failed.
    pub error: Option<String>,
    /// Details of the error.
    pub error_details: Option<String>,
    /// The numbers behind the decision.
    pub budget: ContextBudget,
    /// How the summarize request was shortened to fit the summarizer, when one was sent.
    pub request_degradation: Option<RequestDegradation>,
    /// Non-fatal notes (an invalid profile threshold).
    pub warnings: Vec<String>,
    /// The summary's verification, when it was asked for and a summary came back.
    pub verification: Option<SummaryVerification>,
    /// What the change costs in cache writes and saves per later request (issue 30): present
    /// whenever the model-facing history changed.
    pub cache_impact: Option<CacheImpact>,
    /// A non-emergency change that waits for a bigger batch (deferral was asked for).
    pub deferred: Option<Deferral>,
    /// The summarize request's shape, when the run asked for a continuation.
    pub prefix_reuse: Option<PrefixReuseReport>,
    /// Whether this run asked the host for a summary (the guard's notion of a trigger).
    pub summarize_attempted: bool,
}

/// A change not made now because breaking the cached prefix for it does not pay yet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Deferral {
    /// Why it waits.
    pub reason: DeferReason,
    /// The minimum of freed tokens in force.
    pub min_freed_tokens: u64,
    /// The estimated impact it would have had (a condense's summary estimated at the
    /// summarizer's output reserve).
    pub estimated_impact: CacheImpact,
}

/// How the summarize request of a run that asked for a continuation was shaped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrefixReuseReport {
    /// The shape of the request whose answer was used (or of the last one sent).
    pub shape: RequestShapeKind,
    /// Why the standalone request was used instead, when it was.
    pub fallback: Option<PrefixReuseFallback>,
}

/// Issue 30's options of a run: prices, the cache clock, deferral and the request shape.
/// `Default` is today's behaviour (impacts priced at the default prices, nothing deferred,
/// standalone requests).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CacheOptions {
    /// Price multipliers.
    pub prices: CachePrices,
    /// When the host's last request was made, and the TTL.
    pub clock: CacheClock,
    /// Deferral of non-emergency changes, when asked for.
    pub defer: Option<DeferPolicy>,
    /// Ask for a continuation-shaped summarize request; the value is how many effective
    /// messages the host's last request held (`None`: all but the newest).
    pub prefix_reuse: Option<Option<usize>>,
}

impl ManageOutcome {
    /// The termination guard's state after this run: a change moves its base to the new size;
    /// a summarize call that changed nothing moves it to the size it was asked at, so a failing
    /// summarizer is not asked again on every request until the context grew again.
    pub fn next_guard(&self, guard: ProgressGuard) -> ProgressGuard {
        match (self.changed, self.new_context_tokens) {
            (true, Some(tokens)) => ProgressGuard {
                tokens_after_last_change: tokens,
            },
            _ if self.summarize_attempted => ProgressGuard {
                tokens_after_last_change: self.budget.prev_context_tokens,
            },
            _ => guard,
        }
    }

    fn unchanged(input: ManageInput, budget: ContextBudget) -> Self {
        let mut warnings = Vec::new();
        if let ThresholdSource::InvalidProfile { value } = budget.threshold_source {
            warnings.push(invalid_profile_threshold_warning(
                value,
                &input.settings.current_profile_id,
                input.settings.auto_condense_context_percent,
            ));
        }
        ManageOutcome {
            trigger: input.trigger,
            messages: input.messages,
            changed: false,
            action: ContextAction::None,
            summary: String::new(),
            cost: 0.0,
            prev_context_tokens: budget.prev_context_tokens,
            new_context_tokens: None,
            condense_id: None,
            truncation_id: None,
            messages_removed: None,
            tool_results_shrunk: 0,
            error: None,
            error_details: None,
            budget,
            request_degradation: None,
            warnings,
            verification: None,
            cache_impact: None,
            deferred: None,
            prefix_reuse: None,
            summarize_attempted: false,
        }
    }
}

/// A condense waiting for the host's summarizer.
#[derive(Clone, Debug, PartialEq)]
pub struct PendingCondense {
    /// The run's input, handed back by [`finish_manage`].
    pub input: ManageInput,
    /// The measured budget.
    pub budget: ContextBudget,
    /// The request to send (`roo/host/summarize`).
    pub request: CondenseRequest,
    /// Summarize retries already made (the shell sets 1 after the one retry).
    pub retries: u32,
    /// The answer before the one retry (its cost already counted in the retry's): used when
    /// the retry's answer cannot be condensed (a host answering the retry with a summary
    /// bigger than the context must not turn a condense that would succeed into a failure).
    pub first_answer: Option<SummarizerAnswer>,
    /// The run's cache options.
    pub cache: CacheOptions,
    /// Whether the provider's cache was cold when the run began.
    pub cold: bool,
}

/// The first step.
#[derive(Clone, Debug, PartialEq)]
pub enum ManageStep {
    /// Decided without the host.
    Done(Box<ManageOutcome>),
    /// Send the request, then call [`finish_manage`] with the host's reply.
    Summarize(Box<PendingCondense>),
}

/// How the host's summarizer call ended.
#[derive(Clone, Debug, PartialEq)]
pub enum SummarizeReply {
    /// It answered.
    Answer(SummarizerAnswer),
    /// It failed (the provider's error), possibly after costing something.
    Failed {
        /// The error as the host reported it.
        error: Box<HostError>,
        /// Cost incurred before the failure.
        cost: f64,
    },
    /// No answer within the timeout.
    TimedOut {
        /// The timeout, in milliseconds.
        after_ms: u64,
    },
    /// The host has no summarizer at all (it does not implement the request): the original's
    /// invalid condensing handler, which no retry can fix.
    NoSummarizer,
    /// The model answered with a tool call instead of text (a continuation carries the
    /// agent's tools); a continuation falls back once to the standalone request
    /// ([`standalone_fallback`]).
    ToolCall {
        /// Cost of the call.
        cost: f64,
    },
}

/// The error of a summarize call answered with a tool call.
pub const TOOL_CALL_ANSWER: &str = "the model answered with a tool call instead of a summary";

/// `errorDetails` when the host has no summarizer.
pub const NO_SUMMARIZER_DETAILS: &str = "The host does not implement roo/host/summarize (JSON-RPC -32601, method not found), so no model can write the summary; later requests do not ask it again.";

/// Step one: measure, decide, and either finish (nothing to do, truncation, a guard failure) or
/// return the summarize request to send.
pub fn begin_manage(
    input: ManageInput,
    counter: &dyn TokenCounter,
    ids: &mut dyn IdSource,
    clock: &dyn Clock,
) -> ManageStep {
    begin_manage_with(input, CacheOptions::default(), counter, ids, clock)
}

/// [`begin_manage`] with issue 30's options: a continuation-shaped request, the cache clock and
/// deferral of non-emergency changes that do not pay yet.
pub fn begin_manage_with(
    input: ManageInput,
    cache: CacheOptions,
    counter: &dyn TokenCounter,
    ids: &mut dyn IdSource,
    clock: &dyn Clock,
) -> ManageStep {
    let tokens = HistoryTokens::new(&input.messages, counter);
    let budget = measure_budget_with(&input, &tokens);
    let cold = cache.clock.is_cold(clock.now_ms());
    if !budget.should_condense {
        let reduction = fallback_reduction(&input, &budget, &tokens, ids, clock);
        let impact = reduction_impact(
            &input.messages,
            reduction.as_ref(),
            &budget,
            &tokens,
            &cache,
            cold,
        );
        return ManageStep::Done(Box::new(conclude_without_condense(
            input, budget, None, reduction, impact,
        )));
    }
    if let Some(deferral) = condense_deferral(&input, &budget, &cache, cold) {
        let mut outcome = ManageOutcome::unchanged(input, budget);
        outcome.deferred = Some(deferral);
        return ManageStep::Done(Box::new(outcome));
    }
    // An emergency follows a request the provider refused as too long: replaying it cannot
    // work, so it is standalone at once (said as `replayTooLarge`).
    let shape = match cache.prefix_reuse {
        Some(_) if input.trigger == Trigger::Emergency => RequestShape::Standalone,
        Some(last_request_messages) => RequestShape::Continuation {
            fixed_tokens: budget.fixed_tokens,
            last_request_messages,
        },
        None => RequestShape::Standalone,
    };
    match build_condense_request_with(
        &input.messages,
        input.custom_condensing_prompt.as_deref(),
        &input.summarizer,
        &shape,
        &tokens,
        clock,
    ) {
        Ok(mut request) => {
            if input.trigger == Trigger::Emergency && cache.prefix_reuse.is_some() {
                request.fallback = Some(PrefixReuseFallback::ReplayTooLarge);
            }
            ManageStep::Summarize(Box::new(PendingCondense {
                input,
                budget,
                request,
                retries: 0,
                first_answer: None,
                cache,
                cold,
            }))
        }
        Err(failure) => {
            let reduction = fallback_reduction(&input, &budget, &tokens, ids, clock);
            let impact = reduction_impact(
                &input.messages,
                reduction.as_ref(),
                &budget,
                &tokens,
                &cache,
                cold,
            );
            let mut outcome =
                conclude_without_condense(input, budget, Some(failure), reduction, impact);
            outcome.prefix_reuse = cache.prefix_reuse.map(|_| PrefixReuseReport {
                shape: RequestShapeKind::Standalone,
                fallback: None,
            });
            ManageStep::Done(Box::new(outcome))
        }
    }
}

/// Whether an automatic condense waits (deferral asked for, the context within budget, the
/// cache warm, and the estimated change not worth a prefix break). The summary is estimated at
/// the summarizer's output reserve, an upper bound of what it can write.
fn condense_deferral(
    input: &ManageInput,
    budget: &ContextBudget,
    cache: &CacheOptions,
    cold: bool,
) -> Option<Deferral> {
    let policy = cache.defer.as_ref()?;
    let urgent = input.trigger != Trigger::Automatic || budget.over_budget;
    let before = budget.measured();
    let summary = reserved_output_tokens(input.summarizer.max_tokens).min(before);
    let estimated_impact = price_change(
        0,
        budget.fixed_tokens,
        before,
        budget.fixed_tokens + summary,
        &cache.prices,
        cold,
    );
    defer_reason(&estimated_impact, policy, input.context_window, urgent).map(|reason| Deferral {
        reason,
        min_freed_tokens: policy.min_freed(input.context_window),
        estimated_impact,
    })
}

/// The cache impact of a truncation's edits, priced by the one [`cache_impact`].
fn reduction_impact(
    messages: &[ApiMessage],
    reduction: Option<&Reduction>,
    budget: &ContextBudget,
    tokens: &HistoryTokens<'_>,
    cache: &CacheOptions,
    cold: bool,
) -> Option<CacheImpact> {
    let Some(Reduction::Fits { edits, .. }) = reduction else {
        return None;
    };
    let after: Vec<&ApiMessage> = edits
        .iter()
        .map(|edit| match edit {
            HistoryEdit::Keep(index) => &messages[*index],
            HistoryEdit::Replace(_, message) | HistoryEdit::Insert(message) => message,
        })
        .collect();
    Some(cache_impact(
        messages,
        &after,
        budget.fixed_tokens,
        tokens,
        &cache.prices,
        cold,
    ))
}

/// The standalone request a continuation falls back to when the model answered it with a tool
/// call: built by the same assembler, once (`None` when the request was not a continuation or
/// the one retry was used). The shell sends it, sets [`PendingCondense::retries`] to 1 and
/// replaces [`PendingCondense::request`].
pub fn standalone_fallback(
    pending: &PendingCondense,
    counter: &dyn TokenCounter,
    clock: &dyn Clock,
) -> Option<CondenseRequest> {
    if pending.request.shape != RequestShapeKind::Continuation || pending.retries > 0 {
        return None;
    }
    let tokens = HistoryTokens::new(&pending.input.messages, counter);
    let mut request = build_condense_request_with(
        &pending.input.messages,
        pending.input.custom_condensing_prompt.as_deref(),
        &pending.input.summarizer,
        &RequestShape::Standalone,
        &tokens,
        clock,
    )
    .ok()?;
    request.fallback = Some(PrefixReuseFallback::ToolCallAnswer);
    Some(request)
}

/// Step two: turn the host's reply into the outcome. On any condense failure the history is
/// the input, untouched, unless the automatic or emergency fallback truncation then succeeds.
/// After the one retry, when the retry's answer cannot be condensed, the first answer is tried
/// (never another host call).
pub fn finish_manage(
    mut pending: PendingCondense,
    reply: SummarizeReply,
    counter: &dyn TokenCounter,
    ids: &mut dyn IdSource,
    clock: &dyn Clock,
) -> ManageOutcome {
    let reuse = pending.cache.prefix_reuse.map(|_| PrefixReuseReport {
        shape: pending.request.shape,
        fallback: pending.request.fallback,
    });
    let Some(first) = pending.first_answer.take() else {
        let mut outcome = finish_with(pending, reply, counter, ids, clock);
        outcome.prefix_reuse = reuse;
        outcome.summarize_attempted = true;
        return outcome;
    };
    let backup = pending.clone();
    let mut outcome = finish_with(pending, reply, counter, ids, clock);
    if outcome.action != ContextAction::Condensed {
        outcome = finish_with(backup, SummarizeReply::Answer(first), counter, ids, clock);
    }
    outcome.prefix_reuse = reuse;
    outcome.summarize_attempted = true;
    outcome
}

/// The summarizer's answer, or why the condense failed without one (every reply but an answer
/// is a failure: one place for their texts).
fn answer_or_failure(reply: SummarizeReply) -> Result<SummarizerAnswer, CondenseFailure> {
    match reply {
        SummarizeReply::Answer(answer) => Ok(answer),
        SummarizeReply::Failed { error, cost } => Err(summarizer_call_failed(&error, cost)),
        SummarizeReply::NoSummarizer => Err(CondenseFailure {
            error: ERROR_HANDLER_INVALID.to_owned(),
            error_details: Some(NO_SUMMARIZER_DETAILS.to_owned()),
            cost: 0.0,
        }),
        SummarizeReply::ToolCall { cost } => Err(CondenseFailure {
            error: condense_api_failed(TOOL_CALL_ANSWER),
            error_details: Some(format!("Error: {TOOL_CALL_ANSWER}")),
            cost,
        }),
        SummarizeReply::TimedOut { after_ms } => Err(CondenseFailure {
            error: condense_api_failed(&format!("the host did not answer within {after_ms} ms")),
            error_details: Some(format!(
                "Error: roo/host/summarize timed out after {after_ms} ms"
            )),
            cost: 0.0,
        }),
    }
}

fn finish_with(
    pending: PendingCondense,
    reply: SummarizeReply,
    counter: &dyn TokenCounter,
    ids: &mut dyn IdSource,
    clock: &dyn Clock,
) -> ManageOutcome {
    let PendingCondense {
        input,
        budget,
        request,
        retries,
        first_answer: _,
        cache,
        cold,
    } = pending;
    let degradation = Some(request.degradation.clone());
    let answer = match answer_or_failure(reply) {
        Ok(answer) => answer,
        Err(failure) => {
            let mut outcome = after_condense_failure(
                input,
                budget,
                Some(failure),
                &cache,
                cold,
                counter,
                ids,
                clock,
            );
            outcome.request_degradation = degradation;
            return outcome;
        }
    };
    let checked = verify_answer(&input, &budget, &answer, &request, counter);
    let (mut verification, addendum) = match checked {
        Ok(Some((verification, addendum))) => (Some(verification), addendum),
        Ok(None) => (None, None),
        Err(refused) => {
            let (verification, failure) = *refused;
            let mut outcome = after_condense_failure(
                input,
                budget,
                Some(failure),
                &cache,
                cold,
                counter,
                ids,
                clock,
            );
            outcome.request_degradation = degradation;
            outcome.verification = Some(SummaryVerification {
                retries,
                ..verification
            });
            return outcome;
        }
    };
    let mut addendum = addendum;
    let mut shrinks_left = 2;
    let summary_at = request.summary_at.unwrap_or(input.messages.len());
    let tail_tokens = {
        let tokens = HistoryTokens::new(&input.messages, counter);
        tokens.total(&input.messages[summary_at..]) as u64
    };
    let failure = loop {
        let built = {
            let extras = SummaryExtras {
                folded_file_sections: &input.folded_file_sections,
                environment_details: input.environment_details.as_deref(),
                addendum: addendum.as_ref().map(|a: &Addendum| a.text.as_str()),
            };
            summary_message(
                &input.messages[..summary_at],
                &answer,
                input.trigger,
                &extras,
                ids,
                clock,
            )
        };
        let summary = match built {
            Err(failure) => break failure,
            Ok(summary) => summary,
        };
        // After a condense the model sees the summary (the fresh start) and what the last
        // request did not hold, when a continuation kept it.
        let new_tokens =
            budget.fixed_tokens + message_tokens(&summary.message, counter) as u64 + tail_tokens;
        if new_tokens < budget.measured() && new_tokens <= budget.allowed_tokens {
            let impact = {
                let tokens = HistoryTokens::new(&input.messages, counter);
                let after: Vec<&ApiMessage> = input.messages[..summary_at]
                    .iter()
                    .chain(std::iter::once(&summary.message))
                    .chain(input.messages[summary_at..].iter())
                    .collect();
                cache_impact(
                    &input.messages,
                    &after,
                    budget.fixed_tokens,
                    &tokens,
                    &cache.prices,
                    cold,
                )
            };
            let mut input = input;
            let messages = std::mem::take(&mut input.messages);
            let condensed = insert_summary(messages, summary, summary_at);
            let mut outcome = ManageOutcome::unchanged(input, budget);
            outcome.messages = condensed.messages;
            outcome.changed = true;
            outcome.action = ContextAction::Condensed;
            outcome.summary = condensed.summary;
            outcome.cost = answer.cost;
            outcome.new_context_tokens = Some(new_tokens);
            outcome.cache_impact = Some(impact);
            outcome.condense_id = Some(condensed.condense_id);
            outcome.request_degradation = degradation;
            outcome.verification = verification.map(|mut v| {
                v.retries = retries;
                if let Some(addendum) = &addendum {
                    v.repaired = true;
                    v.addendum_tokens = addendum.tokens;
                    v.omitted = addendum.omitted.clone();
                }
                v
            });
            return outcome;
        }
        // Over budget with an addendum: shrink its optional items to the room left, once.
        let shrunk = match (&addendum, verification.as_mut()) {
            (Some(current), Some(report)) if shrinks_left > 0 => {
                shrinks_left -= 1;
                let target = budget
                    .allowed_tokens
                    .min(budget.measured().saturating_sub(1));
                let without = budget.fixed_tokens
                    + tail_tokens
                    + summary_tokens_without_addendum(&input, &answer, counter);
                let room = target.saturating_sub(without);
                let cap = room.min(current.tokens.saturating_sub(1));
                match build_addendum(&report.verification.findings, cap, counter) {
                    Ok(Some(smaller)) if smaller.tokens < current.tokens => Some(smaller),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(smaller) = shrunk {
            addendum = Some(smaller);
            continue;
        }
        let with_addendum = addendum.as_ref().map_or(String::new(), |a| {
            format!(
                " The verification addendum holds {} tokens of it.",
                a.tokens
            )
        });
        let error = if new_tokens >= budget.measured() {
            ERROR_CONTEXT_GREW.to_owned()
        } else {
            format!(
                "Condensed context ({new_tokens} tokens) still exceeds the available budget ({} tokens)",
                budget.allowed_tokens
            )
        };
        break CondenseFailure {
            error,
            error_details: Some(format!(
                "The summary would bring the context from {} to {new_tokens} tokens (budget {} tokens).{with_addendum}",
                budget.measured(),
                budget.allowed_tokens
            )),
            cost: answer.cost,
        };
    };
    let mut outcome = after_condense_failure(
        input,
        budget,
        Some(failure),
        &cache,
        cold,
        counter,
        ids,
        clock,
    );
    outcome.request_degradation = degradation;
    outcome.verification = verification.map(|mut v| {
        v.retries = retries;
        v
    });
    outcome
}

/// Model-facing tokens of the summary message without an addendum.
fn summary_tokens_without_addendum(
    input: &ManageInput,
    answer: &SummarizerAnswer,
    counter: &dyn TokenCounter,
) -> u64 {
    let extras = SummaryExtras {
        folded_file_sections: &input.folded_file_sections,
        environment_details: input.environment_details.as_deref(),
        addendum: None,
    };
    let content = super::condense::summary_content(
        &input.messages,
        answer.text.trim(),
        input.trigger,
        &extras,
    );
    content_tokens(Some(&serde_json::Value::Array(content)), counter) as u64
}

/// The paths of folded `## File Context: <path>` sections.
pub fn folded_section_paths(sections: &[String]) -> Vec<String> {
    sections
        .iter()
        .filter_map(|section| {
            section
                .lines()
                .find_map(|line| line.strip_prefix("## File Context: "))
                .map(|path| path.trim().to_owned())
        })
        .collect()
}

type Checked = Result<
    Option<(SummaryVerification, Option<Addendum>)>,
    Box<(SummaryVerification, CondenseFailure)>,
>;

/// Verifies the answer when the run asks for it, and builds the addendum within its cap.
/// `Err` when what the summary lost cannot be restored within the cap (the condense is
/// refused: a limit reached is never a pass).
fn verify_answer(
    input: &ManageInput,
    budget: &ContextBudget,
    answer: &SummarizerAnswer,
    request: &CondenseRequest,
    counter: &dyn TokenCounter,
) -> Checked {
    let Some(config) = &input.verify else {
        return Ok(None);
    };
    let summary = answer.text.trim();
    if summary.is_empty() {
        return Ok(None);
    }
    let verification = run_verification(input, config, budget, summary, request, counter);
    let report = SummaryVerification {
        verification,
        ..SummaryVerification::default()
    };
    if config.settings.on_fail == OnFail::Report {
        return Ok(Some((report, None)));
    }
    match build_addendum(
        &report.verification.findings,
        config.settings.max_addendum_tokens,
        counter,
    ) {
        Ok(addendum) => Ok(Some((report, addendum))),
        Err(overflow) => {
            let failure = CondenseFailure {
                error: format!(
                    "The summary lost context that must be kept (edited files, the latest request or open TODOs) and restoring it needs {} tokens, more than maxAddendumTokens ({}); the history was left unchanged",
                    overflow.required_tokens, overflow.cap_tokens
                ),
                error_details: Some(format!(
                    "Summary verification failed: {}. Raise verify.maxAddendumTokens or condense again.",
                    failed_checks(&report.verification)
                )),
                cost: answer.cost,
            };
            Err(Box::new((report, failure)))
        }
    }
}

fn run_verification(
    input: &ManageInput,
    config: &VerifyConfig,
    budget: &ContextBudget,
    summary: &str,
    request: &CondenseRequest,
    counter: &dyn TokenCounter,
) -> Verification {
    let folded = folded_section_paths(&input.folded_file_sections);
    let mut settings = config.settings.clone();
    settings.custom_prompt = request.custom_prompt_used;
    // A continuation summarizes what the last request held; what follows stays verbatim.
    let summarized = request.summary_at.unwrap_or(input.messages.len());
    verify_summary(
        &VerifyInput {
            summary,
            messages: &input.messages[..summarized],
            tracked_files: &config.tracked_files,
            folded_paths: &folded,
            cwd: config.cwd.as_deref(),
            host_todos: config.host_todos.as_deref(),
            extra_constraints: &config.extra_constraints,
            previous_context_tokens: budget.measured(),
            settings: &settings,
        },
        counter,
    )
}

fn failed_checks(verification: &Verification) -> String {
    let names: Vec<&str> = verification
        .checks
        .iter()
        .filter(|check| !check.passed && check.skipped.is_none())
        .filter_map(|check| check.id.map(|id| id.as_str()))
        .collect();
    if names.is_empty() {
        "no check failed".into()
    } else {
        format!("failed checks: {}", names.join(", "))
    }
}

/// The one retry (`onFail: "retryThenRepair"`): when the answer lacks required sections and no
/// retry was made yet, the final user message to append to the request that was sent (naming
/// what is missing), with the longer request's tokens. `None` otherwise, or when the longer
/// request would not fit the summarizer's window. The shell sends it, sets
/// [`PendingCondense::retries`] to 1 and passes the better answer (the retry's, or the first when
/// the retry failed) to [`finish_manage`]. Never a second retry.
pub fn retry_request(
    pending: &PendingCondense,
    answer: &SummarizerAnswer,
    counter: &dyn TokenCounter,
) -> Option<(ApiMessage, u64)> {
    let config = pending.input.verify.as_ref()?;
    if config.settings.on_fail != OnFail::RetryThenRepair || pending.retries > 0 {
        return None;
    }
    let summary = answer.text.trim();
    if summary.is_empty() {
        return None;
    }
    let verification = run_verification(
        &pending.input,
        config,
        &pending.budget,
        summary,
        &pending.request,
        counter,
    );
    let text = retry_instructions(&verification)?;
    let message = ApiMessage::new(Role::User, serde_json::Value::String(text));
    let request_tokens = pending.request.request_tokens + message_tokens(&message, counter) as u64;
    (request_tokens <= pending.request.token_limit).then_some((message, request_tokens))
}

/// After no condense (or a failed one): manual runs stop with the error; automatic and
/// emergency runs fall back to truncation when over budget.
#[allow(clippy::too_many_arguments)]
fn after_condense_failure(
    input: ManageInput,
    budget: ContextBudget,
    failure: Option<CondenseFailure>,
    cache: &CacheOptions,
    cold: bool,
    counter: &dyn TokenCounter,
    ids: &mut dyn IdSource,
    clock: &dyn Clock,
) -> ManageOutcome {
    let (reduction, impact) = {
        let tokens = HistoryTokens::new(&input.messages, counter);
        let reduction = fallback_reduction(&input, &budget, &tokens, ids, clock);
        let impact = reduction_impact(
            &input.messages,
            reduction.as_ref(),
            &budget,
            &tokens,
            cache,
            cold,
        );
        (reduction, impact)
    };
    conclude_without_condense(input, budget, failure, reduction, impact)
}

/// The fallback truncation of [`after_condense_failure`], when it applies, counted through the
/// run's memo of `input.messages`.
fn fallback_reduction(
    input: &ManageInput,
    budget: &ContextBudget,
    tokens: &HistoryTokens<'_>,
    ids: &mut dyn IdSource,
    clock: &dyn Clock,
) -> Option<Reduction> {
    let fallback = input.trigger != Trigger::Manual && budget.over_budget;
    fallback.then(|| {
        reduce_context_with(
            &input.messages,
            budget.fixed_tokens,
            budget.prev_context_tokens,
            budget.allowed_tokens,
            ids,
            clock,
            tokens,
        )
    })
}

/// The outcome of [`after_condense_failure`] once the fallback (if any) was computed.
fn conclude_without_condense(
    input: ManageInput,
    budget: ContextBudget,
    failure: Option<CondenseFailure>,
    reduction: Option<Reduction>,
    impact: Option<CacheImpact>,
) -> ManageOutcome {
    let mut outcome = ManageOutcome::unchanged(input, budget);
    if let Some(failure) = failure {
        outcome.cost = failure.cost;
        outcome.error = Some(failure.error);
        outcome.error_details = failure.error_details;
    }
    match reduction {
        None => {}
        Some(Reduction::Fits {
            edits,
            truncation_id,
            messages_removed,
            tool_results_shrunk,
            new_context_tokens,
        }) => {
            let messages = std::mem::take(&mut outcome.messages);
            outcome.messages = apply_edits(messages, edits);
            outcome.changed = true;
            outcome.action = ContextAction::Truncated;
            outcome.truncation_id = Some(truncation_id);
            outcome.messages_removed = Some(messages_removed);
            outcome.tool_results_shrunk = tool_results_shrunk;
            outcome.new_context_tokens = Some(new_context_tokens);
            outcome.cache_impact = impact;
        }
        Some(Reduction::Failed {
            error,
            error_details,
        }) => {
            let details = match outcome.error.take() {
                Some(earlier) => {
                    format!("{error_details}\nThe condense attempt before it failed: {earlier}")
                }
                None => error_details,
            };
            outcome.error = Some(error);
            outcome.error_details = Some(details);
        }
    }
    outcome
}

/// `contextCondense` of a `condense_context` event.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextCondenseEvent {
    /// The summary's id (always present, on every trigger).
    pub condense_id: String,
    /// The summarizer's cost.
    pub cost: f64,
    /// Size before.
    pub prev_context_tokens: u64,
    /// Size after.
    pub new_context_tokens: u64,
    /// The summary text.
    pub summary: String,
    /// The summary's verification, when one ran.
    pub verification: Option<Box<SummaryVerification>>,
}

/// `contextTruncation` of a `sliding_window_truncation` event.
#[derive(Clone, Debug, PartialEq)]
pub struct ContextTruncationEvent {
    /// The marker's id (rewind uses it to restore the hidden messages).
    pub truncation_id: String,
    /// Messages hidden.
    pub messages_removed: usize,
    /// Size before.
    pub prev_context_tokens: u64,
    /// Size after.
    pub new_context_tokens: u64,
}

/// An event for the host's UI log, in the original's vocabulary.
#[derive(Clone, Debug, PartialEq)]
pub enum ContextEvent {
    /// `say: "condense_context"`.
    CondenseContext(ContextCondenseEvent),
    /// `say: "condense_context_error"` with the error text.
    CondenseContextError(String),
    /// `say: "sliding_window_truncation"`.
    SlidingWindowTruncation(ContextTruncationEvent),
}

/// The one reporter for all triggers: the error event first (whenever something failed), then
/// the condense event (with `condenseId`) or the truncation event. A truncation that hid nothing
/// and shrank nothing is never reported (and cannot happen: it is not a success).
pub fn report(outcome: &ManageOutcome) -> Vec<ContextEvent> {
    let mut events = Vec::new();
    if let Some(error) = &outcome.error {
        events.push(ContextEvent::CondenseContextError(error.clone()));
    }
    let new_tokens = outcome.new_context_tokens.unwrap_or(0);
    match outcome.action {
        ContextAction::Condensed => {
            if let Some(condense_id) = &outcome.condense_id {
                events.push(ContextEvent::CondenseContext(ContextCondenseEvent {
                    condense_id: condense_id.clone(),
                    cost: outcome.cost,
                    prev_context_tokens: outcome.prev_context_tokens,
                    new_context_tokens: new_tokens,
                    summary: outcome.summary.clone(),
                    verification: outcome.verification.clone().map(Box::new),
                }));
            }
        }
        ContextAction::Truncated => {
            let removed = outcome.messages_removed.unwrap_or(0);
            if let Some(truncation_id) = &outcome.truncation_id
                && (removed > 0 || outcome.tool_results_shrunk > 0)
            {
                events.push(ContextEvent::SlidingWindowTruncation(
                    ContextTruncationEvent {
                        truncation_id: truncation_id.clone(),
                        messages_removed: removed,
                        prev_context_tokens: outcome.prev_context_tokens,
                        new_context_tokens: new_tokens,
                    },
                ));
            }
        }
        ContextAction::None => {}
    }
    events
}
