//! Condensing (spec §3): the guards, the one assembler of the summarization request for every
//! trigger (with the size check against the summarizer's window), the summary message and the
//! tagging of what it replaces, and the `errorDetails` format of a failed summarizer call.

use std::borrow::Cow;
use std::collections::BTreeSet;

use serde_json::{Number, Value, json};

use super::budget::{allowed_tokens, reserved_output_tokens};
use super::prompts::{
    CONDENSE_TEMPLATE, ERROR_CONDENSE_FAILED, ERROR_CONDENSED_RECENTLY, ERROR_NOT_ENOUGH_MESSAGES,
    SUMMARY_PROMPT, condense_api_failed,
};
use super::shrink::{ShrinkScope, shrink_largest_texts};
use crate::conversation::{
    ApiMessage, Clock, HistoryTokens, IMAGE_PLACEHOLDER_TEXT, IdSource, Role, SUMMARY_HEADING,
    TokenCounter, effective_api_history, extract_command_blocks, inject_synthetic_tool_results,
    is_truthy, messages_since_last_summary, replace_image_blocks, role_and_content_only,
    transform_messages_for_condensing,
};

/// Heading of the command-blocks reminder appended to a summary.
pub const ACTIVE_WORKFLOWS_HEADING: &str = "## Active Workflows";
/// Lead-in sentence of the command-blocks reminder.
pub const ACTIVE_WORKFLOWS_LEAD_IN: &str =
    "The following directives must be maintained across all future condensings:";
/// Shrink-and-measure rounds per stage of the request size check.
const FIT_ROUNDS: usize = 4;

/// What triggered context management. One assembler and one reporter serve all three.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trigger {
    /// The user asked to condense.
    Manual,
    /// The check before each request.
    Automatic,
    /// A retry after the provider reported a context-window error (forced 75 % threshold).
    Emergency,
}

impl Trigger {
    /// The original's `isAutomaticTrigger` (environment details are included).
    pub fn is_automatic(self) -> bool {
        !matches!(self, Trigger::Manual)
    }
}

/// The model that writes the summary, as the host describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct SummarizerInfo {
    /// Its context window, in tokens.
    pub context_window: u64,
    /// Its output limit (`None`, 0 or negative → 8192 reserved).
    pub max_tokens: Option<i64>,
    /// Whether it accepts images; when not, top-level images become a placeholder text.
    pub supports_images: bool,
}

/// A condense that did not happen; the history is returned untouched by the caller.
#[derive(Clone, Debug, PartialEq)]
pub struct CondenseFailure {
    /// The user-facing error.
    pub error: String,
    /// Details of a failed summarizer call.
    pub error_details: Option<String>,
    /// Cost the summarizer reported before failing (0 when it never ran).
    pub cost: f64,
}

impl CondenseFailure {
    /// A failure before any summarizer call.
    pub fn new(error: impl Into<String>) -> Self {
        CondenseFailure {
            error: error.into(),
            error_details: None,
            cost: 0.0,
        }
    }
}

/// How the request was made to fit the summarizer's window.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RequestDegradation {
    /// Tool results shortened (largest first).
    pub tool_results_shrunk: usize,
    /// Messages between the first and the kept recent ones left out of the request.
    pub messages_omitted: usize,
    /// Other texts shortened (last resort).
    pub texts_shrunk: usize,
}

/// The summarization request the host sends to its model (`roo/host/summarize`).
#[derive(Clone, Debug, PartialEq)]
pub struct CondenseRequest {
    /// [`SUMMARY_PROMPT`].
    pub system_prompt: String,
    /// `{role, content}` messages: the history since the last summary, synthetic tool results,
    /// tool blocks as text, images replaced when needed, then the condense instructions.
    pub messages: Vec<ApiMessage>,
    /// Whether a non-blank custom prompt replaced the default instructions.
    pub custom_prompt_used: bool,
    /// Tokens of the request as counted by the sidecar.
    pub request_tokens: u64,
    /// The most the summarizer's window allows for the request.
    pub token_limit: u64,
    /// What was cut to fit.
    pub degradation: RequestDegradation,
    /// Which shape the request has: today's standalone request, or a continuation of the
    /// host's last request (then `system_prompt` is empty and `messages` are what the host
    /// appends to its replay).
    pub shape: RequestShapeKind,
    /// With a continuation: how many effective-history messages the host's replay holds, and
    /// its tokens (system prompt and tools included).
    pub replay: Option<(usize, u64)>,
    /// Why a continuation was asked for but the standalone shape is used.
    pub fallback: Option<PrefixReuseFallback>,
    /// With a continuation whose last request did not hold the newest messages: the stored
    /// index where the summary goes. The messages from there on were not sent, are not
    /// summarized and stay after the summary as they are (the summarized ones are tagged).
    /// `None`: the summary goes at the end, as today.
    pub summary_at: Option<usize>,
}

/// The shape of the summarize request, asked for by the run.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum RequestShape {
    /// Our system prompt, tool blocks as text, no tools (the original's request).
    #[default]
    Standalone,
    /// A continuation of the host's last model request (issue 30): the host replays it byte
    /// for byte (system prompt, tools, tool choice, messages) and appends `messages`, so the
    /// provider reads the whole prefix from its cache.
    Continuation {
        /// Tokens of the system prompt and tool definitions.
        fixed_tokens: u64,
        /// Effective-history messages the host's last request held; `None`: all but the last
        /// (the last is the newest message, not sent yet, as with `totalTokens`).
        last_request_messages: Option<usize>,
    },
}

/// The shape a request was built with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RequestShapeKind {
    /// [`RequestShape::Standalone`].
    #[default]
    Standalone,
    /// [`RequestShape::Continuation`].
    Continuation,
}

/// Why a continuation fell back to the standalone request (once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrefixReuseFallback {
    /// The replay plus what is appended exceeds the summarizer's usable window.
    ReplayTooLarge,
    /// The model answered the continuation with a tool call instead of text.
    ToolCallAnswer,
}

/// The last instruction of a continuation: the replay carries the agent's tools, and the
/// request must not change `tool_choice`, so the text asks.
pub const CONTINUATION_ANSWER_RULE: &str = "Answer with the summary only, as plain text. Do not call any tool: tools are unavailable for this reply.";

/// Guards A and B (spec §3.3): enough messages since the last summary.
pub fn check_condense_guards(messages: &[ApiMessage]) -> Result<(), &'static str> {
    let to_summarize = messages_since_last_summary(messages);
    if to_summarize.len() <= 1 {
        return Err(if messages.len() <= 1 {
            ERROR_NOT_ENOUGH_MESSAGES
        } else {
            ERROR_CONDENSED_RECENTLY
        });
    }
    if to_summarize.len() <= 2 && to_summarize.iter().any(ApiMessage::is_summary) {
        return Err(ERROR_CONDENSED_RECENTLY);
    }
    Ok(())
}

/// The condense instructions: a non-blank custom prompt verbatim (trimmed), else the template.
pub fn condense_instructions(custom_prompt: Option<&str>) -> (&str, bool) {
    match custom_prompt.map(str::trim).filter(|text| !text.is_empty()) {
        Some(custom) => (custom, true),
        None => (CONDENSE_TEMPLATE, false),
    }
}

fn request_tokens<M: AsRef<ApiMessage>>(messages: &[M], tokens: &HistoryTokens<'_>) -> u64 {
    let counter = tokens.counter();
    let system = counter.finish(counter.count_text(SUMMARY_PROMPT));
    (system + tokens.total(messages)) as u64
}

fn render(working: &[Cow<'_, ApiMessage>], supports_images: bool) -> Vec<ApiMessage> {
    let imaged;
    let source: &[Cow<'_, ApiMessage>] = if supports_images {
        working
    } else {
        imaged = replace_image_blocks(working, IMAGE_PLACEHOLDER_TEXT).messages;
        &imaged
    };
    transform_messages_for_condensing(source)
        .messages
        .iter()
        .map(|message| role_and_content_only(message))
        .collect()
}

/// Builds the summarization request (spec §3.3 steps 2–5) for any trigger, then checks it against
/// the summarizer's window: the largest tool results are shrunk first, then the middle of the
/// conversation is left out (the first message and the most recent ones stay), then any large
/// text is shrunk. Fails only on the guards or when even the instructions do not fit.
pub fn build_condense_request(
    messages: &[ApiMessage],
    custom_prompt: Option<&str>,
    summarizer: &SummarizerInfo,
    counter: &dyn TokenCounter,
    clock: &dyn Clock,
) -> Result<CondenseRequest, CondenseFailure> {
    let tokens = HistoryTokens::new(messages, counter);
    build_condense_request_with(
        messages,
        custom_prompt,
        summarizer,
        &RequestShape::Standalone,
        &tokens,
        clock,
    )
}

/// [`build_condense_request`] of either shape, counting through a per-call memo of `messages`:
/// the one assembler of every summarize request. A continuation that does not fit the
/// summarizer's window is built standalone instead, with the reason in
/// [`CondenseRequest::fallback`].
pub(crate) fn build_condense_request_with(
    messages: &[ApiMessage],
    custom_prompt: Option<&str>,
    summarizer: &SummarizerInfo,
    shape: &RequestShape,
    tokens: &HistoryTokens<'_>,
    clock: &dyn Clock,
) -> Result<CondenseRequest, CondenseFailure> {
    let counter = tokens.counter();
    check_condense_guards(messages).map_err(CondenseFailure::new)?;
    if let RequestShape::Continuation {
        fixed_tokens,
        last_request_messages,
    } = shape
    {
        // The replay was accepted by the provider as the last request, so the 10 % safety
        // buffer of the budget is not needed: the replay, what is appended and the summary's
        // output reserve must fit the window (else a condense at the default threshold, just
        // over the budget, could never be a continuation).
        let token_limit = summarizer
            .context_window
            .saturating_sub(reserved_output_tokens(summarizer.max_tokens));
        let (instructions, custom_prompt_used) = condense_instructions(custom_prompt);
        let effective_history = effective_api_history(messages);
        let effective = &effective_history.messages;
        let replayed = last_request_messages
            .unwrap_or(effective.len().saturating_sub(1))
            .min(effective.len());
        let replay_tokens = fixed_tokens + tokens.total(&effective[..replayed]) as u64;
        // What the last request did not hold stays after the summary verbatim (the model sees
        // the newest tool result exactly; the request appends nothing but instructions). A
        // tool result keeps its tool call with it.
        let mut kept_from = replayed;
        while kept_from > 0
            && kept_from < effective.len()
            && opens_with_tool_result(&effective[kept_from])
        {
            kept_from -= 1;
        }
        let summary_at = (kept_from < effective.len() && kept_from >= 2)
            .then(|| effective_history.source_indices[kept_from]);
        let unsent = if summary_at.is_some() || replayed == effective.len() {
            &effective[effective.len()..]
        } else {
            &effective[replayed..]
        };
        let commands = messages
            .first()
            .map(extract_command_blocks)
            .unwrap_or_default();
        let appended = continuation_messages(unsent, instructions, &commands);
        let request_tokens = replay_tokens + tokens.total(&appended) as u64;
        if request_tokens <= token_limit {
            return Ok(CondenseRequest {
                system_prompt: String::new(),
                messages: appended,
                custom_prompt_used,
                request_tokens,
                token_limit,
                degradation: RequestDegradation::default(),
                shape: RequestShapeKind::Continuation,
                replay: Some((replayed, replay_tokens)),
                fallback: None,
                summary_at,
            });
        }
        let mut standalone = build_condense_request_with(
            messages,
            custom_prompt,
            summarizer,
            &RequestShape::Standalone,
            tokens,
            clock,
        )?;
        standalone.fallback = Some(PrefixReuseFallback::ReplayTooLarge);
        return Ok(standalone);
    }
    // The original summarizes the stored suffix (not the effective history), but the summarizer
    // sees tool results as the model does: masked and superseded ones as their placeholders
    // (issue 31), so a masked output's bytes never reach the condense request.
    let to_summarize = super::hygiene::hygiene_views(messages_since_last_summary(messages));
    let (instructions, custom_prompt_used) = condense_instructions(custom_prompt);
    let mut working = inject_synthetic_tool_results(&to_summarize, clock).messages;
    working.push(Cow::Owned(ApiMessage::new(
        Role::User,
        Value::String(instructions.to_owned()),
    )));
    let token_limit = allowed_tokens(summarizer.context_window, summarizer.max_tokens);
    // The conversation is shortened, never the instructions: when they alone (with the system
    // prompt) do not fit, nothing is sent.
    let instructions_tokens = request_tokens(&working[working.len() - 1..], tokens);
    if instructions_tokens > token_limit {
        return Err(CondenseFailure::new(too_small_for_instructions(
            summarizer.context_window,
            token_limit,
            instructions_tokens,
        )));
    }
    let mut degradation = RequestDegradation::default();
    // Distinct blocks, not rounds. Omissions happen between the two scopes, so indices of one
    // set never mix with the other's.
    let (mut shrunk_tool_results, mut shrunk_texts) = (BTreeSet::new(), BTreeSet::new());

    for scope in [ShrinkScope::ToolResults, ShrinkScope::AllText] {
        for _ in 0..FIT_ROUNDS {
            let tokens = request_tokens(&working, tokens);
            if tokens <= token_limit {
                break;
            }
            // The instructions are the last message, wherever omissions moved them.
            let instructions = working.len() - 1;
            let edited = shrink_largest_texts(
                &mut working,
                &|index: usize| index != instructions,
                (tokens - token_limit) as usize,
                scope,
                counter,
            );
            if edited.is_empty() {
                break;
            }
            match scope {
                ShrinkScope::ToolResults => shrunk_tool_results.extend(edited),
                ShrinkScope::AllText => shrunk_texts.extend(edited),
            }
        }
        if scope == ShrinkScope::ToolResults && request_tokens(&working, tokens) > token_limit {
            degradation.messages_omitted = omit_middle(&mut working, token_limit, tokens);
        }
    }

    degradation.tool_results_shrunk = shrunk_tool_results.len();
    degradation.texts_shrunk = shrunk_texts.len();
    let rendered = render(&working, summarizer.supports_images);
    let request_tokens = request_tokens(&rendered, tokens);
    if request_tokens > token_limit {
        return Err(CondenseFailure::new(format!(
            "The summarizer's context window ({} tokens, {token_limit} usable) is too small for the condense request ({request_tokens} tokens after shortening it)",
            summarizer.context_window
        )));
    }
    Ok(CondenseRequest {
        system_prompt: SUMMARY_PROMPT.to_owned(),
        messages: rendered,
        custom_prompt_used,
        request_tokens,
        token_limit,
        degradation,
        shape: RequestShapeKind::Standalone,
        replay: None,
        fallback: None,
        summary_at: None,
    })
}

/// Whether a message's content opens with a tool result (it must stay after its tool call).
fn opens_with_tool_result(message: &ApiMessage) -> bool {
    message
        .blocks()
        .first()
        .is_some_and(|block| block.get("type").and_then(Value::as_str) == Some("tool_result"))
}

/// What a continuation appends to the host's replay: the effective messages the last request
/// did not hold yet, exactly as the host would send them next (tool blocks native: the replay
/// has the tools), with the condense instructions, the active workflows and
/// [`CONTINUATION_ANSWER_RULE`] as text blocks of the final user message (a new one when the
/// history ends with the assistant), so roles still alternate.
fn continuation_messages(
    unsent: &[Cow<'_, ApiMessage>],
    instructions: &str,
    commands: &str,
) -> Vec<ApiMessage> {
    let mut appended: Vec<ApiMessage> = unsent
        .iter()
        .map(|message| role_and_content_only(message))
        .collect();
    let mut blocks = vec![json!({"type": "text", "text": instructions})];
    if !commands.is_empty() {
        blocks.push(json!({"type": "text", "text": format!(
            "<system-reminder>\n{ACTIVE_WORKFLOWS_HEADING}\n{ACTIVE_WORKFLOWS_LEAD_IN}\n{commands}\n</system-reminder>"
        )}));
    }
    blocks.push(json!({"type": "text", "text": CONTINUATION_ANSWER_RULE}));
    match appended.last_mut().filter(|message| message.is_user()) {
        Some(last) => {
            let mut content = match last.fields.get("content") {
                Some(Value::Array(existing)) => existing.clone(),
                Some(Value::String(text)) if !text.is_empty() => {
                    vec![json!({"type": "text", "text": text})]
                }
                _ => Vec::new(),
            };
            content.extend(blocks);
            last.set_content(Value::Array(content));
        }
        None => appended.push(ApiMessage::new(Role::User, Value::Array(blocks))),
    }
    appended
}

/// The refusal when the condense instructions and the system prompt alone exceed the
/// summarizer's usable window.
pub fn too_small_for_instructions(context_window: u64, token_limit: u64, needed: u64) -> String {
    format!(
        "The summarizer's context window ({context_window} tokens, {token_limit} usable) is too small for the condense instructions ({needed} tokens with the system prompt); nothing was sent to the summarizer"
    )
}

/// Leaves out messages after the first until the request fits, keeping the most recent ones and
/// the instructions; a note says how many were left out. Returns that number.
fn omit_middle(
    working: &mut Vec<Cow<'_, ApiMessage>>,
    limit: u64,
    tokens: &HistoryTokens<'_>,
) -> usize {
    if working.len() <= 3 {
        return 0;
    }
    let counter = tokens.counter();
    let per_message = tokens.breakdown(working).per_message;
    let fixed = counter.finish(counter.count_text(SUMMARY_PROMPT)) as u64
        + per_message[0] as u64
        + per_message[per_message.len() - 1] as u64
        + 40; // the omission note
    let mut used = fixed;
    let mut keep_from = working.len() - 1;
    while keep_from > 1 {
        let next = per_message[keep_from - 1] as u64;
        if used + next > limit {
            break;
        }
        used += next;
        keep_from -= 1;
    }
    let omitted = keep_from - 1;
    if omitted == 0 {
        return 0;
    }
    let note = ApiMessage::new(
        Role::User,
        Value::String(format!(
            "[{omitted} earlier messages omitted from this summarization request to fit the summarizer's context window]"
        )),
    );
    working.splice(1..keep_from, [Cow::Owned(note)]);
    omitted
}

/// The summarizer's answer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummarizerAnswer {
    /// The concatenated text of the answer.
    pub text: String,
    /// Cost of the call (the last usage report).
    pub cost: f64,
    /// Output tokens, when reported (informational).
    pub output_tokens: Option<u64>,
}

/// A failed summarizer call as the host reports it (the original's thrown error object).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HostError {
    /// The error's message.
    pub message: String,
    /// HTTP status, when known.
    pub status: Option<Value>,
    /// Provider error code, when known.
    pub code: Option<Value>,
    /// The provider's response, when known.
    pub response: Option<Value>,
    /// The response body, when known.
    pub body: Option<Value>,
}

fn js_string(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null => "null".into(),
        other => other.to_string(),
    }
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_else(|_| "[Unable to serialize]".into())
}

/// `errorDetails` of a failed summarizer call (spec §3.3 step 7).
pub fn format_error_details(error: &HostError) -> String {
    let mut details = format!("Error: {}", error.message);
    if let Some(status) = error.status.as_ref().filter(|v| is_truthy(v)) {
        details.push_str(&format!("\n\nHTTP Status: {}", js_string(status)));
    }
    if let Some(code) = error.code.as_ref().filter(|v| is_truthy(v)) {
        details.push_str(&format!("\nError Code: {}", js_string(code)));
    }
    if let Some(response) = error.response.as_ref().filter(|v| !v.is_null()) {
        details.push_str(&format!("\n\nAPI Response:\n{}", pretty(response)));
    }
    if let Some(body) = error.body.as_ref().filter(|v| !v.is_null()) {
        details.push_str(&format!("\n\nResponse Body:\n{}", pretty(body)));
    }
    details
}

/// The failure for a summarizer call that threw.
pub fn summarizer_call_failed(error: &HostError, cost: f64) -> CondenseFailure {
    CondenseFailure {
        error: condense_api_failed(&error.message),
        error_details: Some(format_error_details(error)),
        cost,
    }
}

/// What goes into the summary besides the summarizer's text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SummaryExtras<'a> {
    /// Folded file context sections, one text block each (blank ones are skipped).
    pub folded_file_sections: &'a [String],
    /// Pre-rendered `<environment_details>`, included on automatic and emergency runs.
    pub environment_details: Option<&'a str>,
    /// The verification addendum, placed right after the summary block.
    pub addendum: Option<&'a str>,
}

/// The summary message's content blocks (spec §3.3 step 10).
pub fn summary_content(
    messages: &[ApiMessage],
    summary: &str,
    trigger: Trigger,
    extras: &SummaryExtras<'_>,
) -> Vec<Value> {
    let mut blocks = vec![json!({"type": "text", "text": format!("{SUMMARY_HEADING}\n{summary}")})];
    if let Some(addendum) = extras.addendum.filter(|text| !text.is_empty()) {
        blocks.push(json!({"type": "text", "text": addendum}));
    }
    let commands = messages
        .first()
        .map(extract_command_blocks)
        .unwrap_or_default();
    if !commands.is_empty() {
        blocks.push(json!({"type": "text", "text": format!(
            "<system-reminder>\n{ACTIVE_WORKFLOWS_HEADING}\n{ACTIVE_WORKFLOWS_LEAD_IN}\n{commands}\n</system-reminder>"
        )}));
    }
    for section in extras.folded_file_sections {
        if !section.trim().is_empty() {
            blocks.push(json!({"type": "text", "text": section}));
        }
    }
    if trigger.is_automatic()
        && let Some(details) = extras.environment_details.filter(|d| !d.trim().is_empty())
    {
        blocks.push(json!({"type": "text", "text": details}));
    }
    blocks
}

/// A history with a summary appended.
#[derive(Clone, Debug, PartialEq)]
pub struct CondensedHistory {
    /// Every input message (untagged ones now carry `condenseParent`), then the summary.
    pub messages: Vec<ApiMessage>,
    /// The summary's `condenseId`.
    pub condense_id: String,
    /// The trimmed summary text.
    pub summary: String,
}

/// The summary message before it is appended.
#[derive(Clone, Debug, PartialEq)]
pub struct SummaryMessage {
    /// `{role:"user", content, ts, isSummary:true, condenseId}`.
    pub message: ApiMessage,
    /// Its `condenseId`.
    pub condense_id: String,
    /// The trimmed summary text.
    pub summary: String,
}

/// Checks the summarizer's answer and builds the summary message (spec §3.3 steps 8–11):
/// `ts` = last `ts` + 1 (or now + 1), `isSummary`, a fresh `condenseId`.
pub fn summary_message(
    messages: &[ApiMessage],
    answer: &SummarizerAnswer,
    trigger: Trigger,
    extras: &SummaryExtras<'_>,
    ids: &mut dyn IdSource,
    clock: &dyn Clock,
) -> Result<SummaryMessage, CondenseFailure> {
    let summary = answer.text.trim();
    if summary.is_empty() {
        let mut failure = CondenseFailure::new(ERROR_CONDENSE_FAILED);
        failure.cost = answer.cost;
        return Err(failure);
    }
    let content = summary_content(messages, summary, trigger, extras);
    let ts = match messages
        .last()
        .filter(|m| m.has_truthy_ts())
        .and_then(ApiMessage::ts)
    {
        Some(ts) => ts + 1.0,
        None => clock.now_ms() as f64 + 1.0,
    };
    let condense_id = ids.next_id();
    let mut message = ApiMessage::new(Role::User, Value::Array(content));
    message.fields.insert("ts".into(), number(ts));
    message.fields.insert("isSummary".into(), Value::Bool(true));
    message
        .fields
        .insert("condenseId".into(), Value::String(condense_id.clone()));
    Ok(SummaryMessage {
        message,
        condense_id,
        summary: summary.to_owned(),
    })
}

/// Appends the summary and tags every message that had no `condenseParent` with its id
/// (messages already carrying one, such as an earlier summary that was condensed, keep theirs).
pub fn append_summary(messages: Vec<ApiMessage>, summary: SummaryMessage) -> CondensedHistory {
    let at = messages.len();
    insert_summary(messages, summary, at)
}

/// [`append_summary`] with the summary placed at stored index `at`: the messages before it are
/// tagged, those from `at` on (not summarized) stay as they are, after it.
pub fn insert_summary(
    mut messages: Vec<ApiMessage>,
    summary: SummaryMessage,
    at: usize,
) -> CondensedHistory {
    let at = at.min(messages.len());
    for message in &mut messages[..at] {
        if !message.fields.get("condenseParent").is_some_and(is_truthy) {
            message.set_condense_parent(&summary.condense_id);
        }
    }
    messages.insert(at, summary.message);
    CondensedHistory {
        messages,
        condense_id: summary.condense_id,
        summary: summary.summary,
    }
}

/// A JSON number, integral when the value is.
pub(crate) fn number(value: f64) -> Value {
    if value.fract() == 0.0 && value.abs() < 9.0e15 {
        Value::Number((value as i64).into())
    } else {
        Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}
