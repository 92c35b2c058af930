//! `roo/context/*`: one handler for manual, automatic and emergency context management, the
//! threshold pre-check and error classification. The core decides; this module counts with the
//! shared token cache on the blocking pool, asks the host for the summary (`roo/host/summarize`,
//! with a timeout and cancellation), and folds the files the task read into the summary.
//! One file on purpose: its handlers share private helpers: the host call (`ask_host`), the
//! folding of read files (`folded_sections`), `model_count_mode`, `threshold_settings`,
//! `calibration_info` and `last_request` (summary verification is already in `context/verify`).

use std::sync::atomic::Ordering;
use std::time::Duration;

use roo_context_core::context::verify::{
    CheckId, CheckReport, FileAction, FileRecord, OnFail, TodoItem, TodoStatus, VerifyInput,
    VerifySettings, build_addendum, tracked_file_records, verify_summary as verify_text,
};
use roo_context_core::context::{
    CacheClock, CacheImpact, CacheOptions, CachePrices, CondenseRequest, DeferPolicy, DeferReason,
    MAX_CACHE_BREAKPOINTS, PrefixReuseFallback, RequestShapeKind, begin_manage_with,
    cache_breakpoints, standalone_fallback,
};
use roo_context_core::context::{
    CondenseOutcome, ContextAction, ContextEvent, HostError, ManageInput, ManageOutcome,
    ManageStep, PendingCondense, RequestDegradation, SummarizeReply, SummarizerAnswer,
    SummarizerInfo, SummaryExtras, SummaryVerification, TRUNCATION_FRACTION, ThresholdSettings,
    ThresholdSource, Trigger, VerifyConfig, WillManageInput, build_condense_request,
    finish_condense, finish_manage, invalid_profile_threshold_warning,
    is_context_window_exceeded_error, report, retry_request, will_manage_plan,
};
use roo_context_core::conversation::sync::HistoryState;
use roo_context_core::conversation::{
    ApiMessage, IdSource, SystemClock, content_tokens, parse_history,
};
use roo_context_protocol::context::*;
use roo_context_protocol::fold::FoldContextParams;
use roo_context_protocol::methods;
use roo_context_protocol::sync::{HistoryChanges, HistoryRef};
use roo_context_tokens::TokenCache;
use serde_json::Value;
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::{Error, ErrorCode};

use roo_context_protocol::requests;

use super::{Handler, Snapshot, WaitingHandler};
use crate::host_call::{HostCallError, call_host};
use crate::rpc::RpcError;
use crate::rpc::blocking;
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::request::Request;

use crate::counting::{CachedCounter, Mode, with_counter, with_model_counter};
use crate::handlers::fold;
use crate::tracker::FileTracker;
use roo_context_core::context::calibrate::{Calibration, ClassRecorder, ClassTokens};
use roo_context_core::context::{LastRequest, model_facing_tokens};
use roo_context_core::conversation::TokenCounter;

/// `roo/host/summarize`, the server-to-client request.
pub enum HostSummarize {}

impl Request for HostSummarize {
    type Params = HostSummarizeParams;
    type Result = HostSummarizeResult;
    const METHOD: &'static str = methods::HOST_SUMMARIZE;
}

/// `roo/host/cancelSummarize`, the server-to-client notification.
pub enum HostCancelSummarize {}

impl Notification for HostCancelSummarize {
    type Params = HostCancelSummarizeParams;
    const METHOD: &'static str = methods::HOST_CANCEL_SUMMARIZE;
}

/// Fresh UUID v4 ids for summaries and markers.
#[derive(Debug, Default)]
pub struct UuidIds;

impl IdSource for UuidIds {
    fn next_id(&mut self) -> String {
        uuid::Uuid::new_v4().to_string()
    }
}

mod verify;
use verify::{manage_verify_config, retry_once, wire_verification};

/// Context management counts with the original's estimate unless told otherwise.
fn count_mode(mode: Option<Mode>) -> Mode {
    mode.unwrap_or(Mode::Estimate)
}

/// The mode of a request that may name its model: calibrated when it does and asks for no
/// other mode (a host that names its model wants the provider's figure), else [`count_mode`].
fn model_count_mode(mode: Option<Mode>, model: Option<&(String, String)>) -> Mode {
    match (mode, model) {
        (None, Some(_)) => Mode::Calibrated,
        (mode, _) => count_mode(mode),
    }
}

/// `(provider, modelId)` when the request names its model.
fn named_model(provider: Option<&String>, model_id: Option<&String>) -> Option<(String, String)> {
    model_id.map(|model| (provider.cloned().unwrap_or_default(), model.clone()))
}

/// The wire form of a calibration, for the mix `counted`.
fn calibration_info(
    calibration: &Calibration,
    counted: &ClassTokens,
    observed: bool,
) -> CalibrationInfo {
    let [code, prose, cjk, json, hangul] = calibration.classes.map(|class| class.ratio);
    CalibrationInfo {
        family: calibration.family.clone(),
        ratios: ClassRatios {
            code,
            prose,
            cjk,
            json,
            hangul,
        },
        confidence: calibration.confidence(counted),
        observations: calibration.observations,
        observed,
    }
}

fn threshold_settings(params: ThresholdParams) -> ThresholdSettings {
    let defaults = ThresholdSettings::default();
    ThresholdSettings {
        auto_condense_context: params
            .auto_condense_context
            .unwrap_or(defaults.auto_condense_context),
        auto_condense_context_percent: params
            .auto_condense_context_percent
            .unwrap_or(defaults.auto_condense_context_percent),
        profile_thresholds: params.profile_thresholds.unwrap_or_default(),
        current_profile_id: params
            .current_profile_id
            .unwrap_or(defaults.current_profile_id),
        use_available_input: params
            .use_available_input_for_context_percent
            .unwrap_or(defaults.use_available_input),
    }
}

/// The files whose folded outlines go into the summary. Today the host lists them
/// (`filesReadByRoo`); this is the hook for the file-context tracker (issue 5) to supply the
/// task's `read_tool` / `file_mentioned` files when the host does not.
pub fn files_read_for_summary(params: &ManageContextParams) -> Vec<String> {
    params.files_read_by_roo.clone().unwrap_or_default()
}

/// The files the task's agent edited, most recently edited first, from the tracker (none when
/// the task is not open in it): they lead the folded context's budget.
async fn files_edited_for_summary(deps: &Snapshot, task_id: Option<&str>) -> Vec<String> {
    match (task_id, &deps.files) {
        (Some(task_id), Some(files)) => files.files_edited(task_id).await.unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The folded file context sections of `paths` and `edited` (each file through the access
/// rule), in the budget's priority order.
fn folded_sections(
    deps: &Snapshot,
    paths: Vec<String>,
    edited: Vec<String>,
    cwd: Option<String>,
) -> Vec<String> {
    if paths.is_empty() && edited.is_empty() {
        return Vec::new();
    }
    let params = FoldContextParams {
        paths,
        cwd,
        max_chars: None,
        min_component_lines: None,
        edited_paths: Some(edited),
        prioritize: None,
    };
    fold::fold_context(
        &deps.state,
        &deps.policy,
        &deps.documents,
        &deps.outlines,
        &params,
    )
    .sections
}

fn manage_input(params: &mut ManageContextParams) -> Result<ManageInput, RpcError> {
    let messages = parse_history(Value::Array(std::mem::take(&mut params.messages)))
        .map_err(|e| RpcError::field("messages", e))?
        .messages;
    let summarizer = params.summarizer.clone().unwrap_or_default();
    let trigger = match params.trigger {
        ContextTrigger::Manual => Trigger::Manual,
        ContextTrigger::Automatic => Trigger::Automatic,
        ContextTrigger::Emergency => Trigger::Emergency,
    };
    Ok(ManageInput {
        trigger,
        messages,
        system_prompt: params.system_prompt.clone(),
        tools_json: params
            .tools
            .as_ref()
            .filter(|tools| tools.as_array().is_some_and(|list| !list.is_empty()))
            .map(Value::to_string),
        context_window: params.context_window,
        max_tokens: params.max_tokens,
        total_tokens: params.total_tokens,
        settings: threshold_settings(params.thresholds.clone()),
        custom_condensing_prompt: params.custom_condensing_prompt.clone(),
        environment_details: params.environment_details.clone(),
        folded_file_sections: Vec::new(),
        summarizer: SummarizerInfo {
            context_window: summarizer.context_window.unwrap_or(params.context_window),
            max_tokens: summarizer.max_tokens.or(params.max_tokens),
            supports_images: summarizer.supports_images.unwrap_or(false),
        },
        verify: None,
        last_request: None,
        guard: None,
    })
}

/// `lastRequest` as the core takes it, checked against the history: `messageCount` past the
/// end is a host bug that would count nothing as unsent, so it is refused naming the field.
fn last_request(
    usage: Option<&LastRequestUsage>,
    messages: usize,
) -> Result<Option<LastRequest>, RpcError> {
    let Some(usage) = usage else { return Ok(None) };
    let message_count = match usage.message_count {
        Some(count) if count > messages => {
            return Err(RpcError::field(
                "lastRequest.messageCount",
                format!("{count} is more than the {messages} messages given"),
            ));
        }
        Some(count) => count,
        // As with `totalTokens`: only the last message is new.
        None => messages.saturating_sub(1),
    };
    Ok(Some(LastRequest {
        input_tokens: usage.input_tokens,
        message_count,
    }))
}

/// Tells the host a summarize call is abandoned, when the handler is dropped (cancelled) or
/// times out while waiting for it.
struct AbandonNotice {
    client: Client,
    request_id: String,
    reason: Option<CancelReason>,
}

impl Drop for AbandonNotice {
    fn drop(&mut self) {
        let Some(reason) = self.reason else { return };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let client = self.client.clone();
        let params = HostCancelSummarizeParams {
            request_id: std::mem::take(&mut self.request_id),
            reason,
        };
        runtime.spawn(async move {
            client
                .send_notification::<HostCancelSummarize>(params)
                .await;
        });
    }
}

fn host_error_from_rpc(error: Error) -> HostError {
    let data = error.data.unwrap_or(Value::Null);
    let field = |key: &str| data.get(key).filter(|v| !v.is_null()).cloned();
    HostError {
        message: error.message.into_owned(),
        status: field("status"),
        code: field("code"),
        response: field("response"),
        body: field("body"),
    }
}

async fn ask_host(client: &Client, params: HostSummarizeParams, timeout_ms: u64) -> SummarizeReply {
    let mut notice = AbandonNotice {
        client: client.clone(),
        request_id: params.request_id.clone(),
        reason: Some(CancelReason::Cancelled),
    };
    let call = call_host::<HostSummarize>(client, params, Duration::from_millis(timeout_ms));
    let reply = match call.await {
        Err(HostCallError::TimedOut) => {
            notice.reason = Some(CancelReason::Timeout);
            return SummarizeReply::TimedOut {
                after_ms: timeout_ms,
            };
        }
        Err(HostCallError::Failed(error)) if error.code == ErrorCode::MethodNotFound => {
            SummarizeReply::NoSummarizer
        }
        Err(HostCallError::Failed(error)) => SummarizeReply::Failed {
            error: Box::new(host_error_from_rpc(error)),
            cost: 0.0,
        },
        Ok(result) => match result.error {
            Some(error) => SummarizeReply::Failed {
                error: Box::new(HostError {
                    message: error.message,
                    status: error.status,
                    code: error.code,
                    response: error.response,
                    body: error.body,
                }),
                cost: result.cost,
            },
            None if result.tool_call == Some(true) => {
                SummarizeReply::ToolCall { cost: result.cost }
            }
            None => SummarizeReply::Answer(SummarizerAnswer {
                text: result.text,
                cost: result.cost,
                output_tokens: result.output_tokens,
            }),
        },
    };
    notice.reason = None;
    reply
}

/// `roo/context/manage`: one path for all three triggers. On cancellation (`$/cancelRequest`)
/// the framework drops this future: no result is produced and the host keeps its history.
impl WaitingHandler for requests::ContextManage {
    async fn handle(
        deps: Snapshot,
        params: ManageContextParams,
    ) -> Result<ManageContextResult, RpcError> {
        manage(deps, params).await
    }
}

/// What a run needs before its first step (issues 30 and 32): the counting mode, the model's
/// calibration (with what the provider counted for the last request, learned first) and the
/// cache options.
struct RunPlan {
    tokens: std::sync::Arc<TokenCache>,
    memory: std::sync::Arc<crate::context_memory::ContextMemory>,
    storage_dir: Option<String>,
    model: Option<(String, String)>,
    mode: Mode,
    cache: CacheOptions,
    /// `(messageCount, inputTokens)` of the last request, when the host reported both.
    observed_count: Option<(usize, u64)>,
}

/// The calibration of the run's model, after learning from the last request (its messages
/// are `input.messages[..count]`). Reads `input`, never consumes it.
fn calibrate(
    plan: &RunPlan,
    input: &ManageInput,
) -> Result<(Option<Calibration>, Option<CalibrationInfo>), RpcError> {
    let Some((provider, model_id)) = &plan.model else {
        return Ok((None, None));
    };
    plan.memory.load(plan.storage_dir.as_deref())?;
    // What the provider counted for the last request: the fixed part and the effective
    // history of the messages it held, exactly and by class.
    let mut counted = ClassTokens::default();
    let mut observed = false;
    if let Some((count, provider_tokens)) = plan.observed_count {
        let exact = CachedCounter(&plan.tokens);
        let recorder = ClassRecorder::new(&exact);
        let fixed = recorder.count_text(&input.system_prompt) as u64
            + input
                .tools_json
                .as_deref()
                .map_or(0, |tools| recorder.count_text(tools) as u64);
        model_facing_tokens(&input.messages[..count], fixed, &recorder);
        counted = recorder.counted.get();
        observed = plan.memory.observe(
            provider,
            model_id,
            &counted,
            provider_tokens,
            plan.storage_dir.as_deref(),
        )?;
    }
    let calibration = plan.memory.calibration(provider, model_id);
    let info = calibration_info(&calibration, &counted, observed);
    Ok((Some(calibration), Some(info)))
}

/// The run's first step, counted with the calibration.
fn first_step(plan: RunPlan, input: ManageInput, calibration: Option<&Calibration>) -> ManageStep {
    with_model_counter(&plan.tokens, plan.mode, calibration, |counter| {
        begin_manage_with(input, plan.cache, counter, &mut UuidIds, &SystemClock)
    })
}

/// The first step of a run, its calibration, and for a held history (`history` in the params)
/// the base it ran on and, when decided at once, the changes it made.
struct Begun {
    step: ManageStep,
    calibration: Option<Calibration>,
    info: Option<CalibrationInfo>,
    held: Option<(HistoryState, u64, Option<HistoryChanges>)>,
}

async fn begin(
    deps: &Snapshot,
    params: &ManageContextParams,
    mut input: ManageInput,
    plan: RunPlan,
) -> Result<Begun, RpcError> {
    let Some(reference) = params.history.clone() else {
        input.last_request = last_request(params.last_request.as_ref(), input.messages.len())?;
        return blocking(move || {
            let (calibration, info) = calibrate(&plan, &input)?;
            let step = first_step(plan, input, calibration.as_ref());
            Ok(Begun {
                step,
                calibration,
                info,
                held: None,
            })
        })
        .await?;
    };
    if !input.messages.is_empty() {
        return Err(super::sync::both_named("messages"));
    }
    let mut held = super::sync::locked_at(deps, &reference).await?;
    let base = held.doc.state();
    let generation = held.generation;
    input.last_request = last_request(params.last_request.as_ref(), base.length)?;
    // The messages are lent to the run and given back inside this closure (also when it
    // fails), so a cancelled request (its future dropped) never leaves the held history
    // without them.
    blocking(move || {
        input.messages = held.doc.take_messages();
        let (calibration, info) = match calibrate(&plan, &input) {
            Ok(calibrated) => calibrated,
            Err(error) => {
                held.doc
                    .restore_messages(std::mem::take(&mut input.messages));
                return Err(error);
            }
        };
        let step = first_step(plan, input, calibration.as_ref());
        let (step, changes) = match step {
            ManageStep::Done(mut outcome) => {
                let messages = std::mem::take(&mut outcome.messages);
                let changes = held.settle(&reference.task_id, base, messages, outcome.changed)?;
                (ManageStep::Done(outcome), Some(changes))
            }
            ManageStep::Summarize(pending) => {
                // The host may change the history while its model writes the summary.
                held.doc.restore_messages(pending.input.messages.clone());
                (ManageStep::Summarize(pending), None)
            }
        };
        Ok(Begun {
            step,
            calibration,
            info,
            held: Some((base, generation, changes)),
        })
    })
    .await?
}

/// The changes of a run on a held history that waited for its summary, applied now.
async fn settle_after_summary(
    deps: &Snapshot,
    reference: &HistoryRef,
    base: HistoryState,
    generation: u64,
    outcome: &mut ManageOutcome,
) -> Result<HistoryChanges, RpcError> {
    let mut held = super::sync::locked(deps, &reference.task_id).await?;
    if held.generation != generation {
        return Err(crate::histories::out_of_sync(
            &reference.task_id,
            Some(held.doc.state()),
            "the task was opened again while its history was being condensed; the result is dropped",
        ));
    }
    let messages = std::mem::take(&mut outcome.messages);
    let (changed, task_id) = (outcome.changed, reference.task_id.clone());
    blocking(move || held.settle(&task_id, base, messages, changed)).await?
}

async fn manage(
    deps: Snapshot,
    mut params: ManageContextParams,
) -> Result<ManageContextResult, RpcError> {
    let model = named_model(params.provider.as_ref(), params.model_id.as_ref());
    let mode = model_count_mode(params.token_count_mode, model.as_ref());
    let cache = cache_options(
        params.cache.as_ref(),
        deps.state.settings().prefix_reuse_condense == Some(true),
    )?;
    let mut input = manage_input(&mut params)?;
    // The guard needs a task to remember and a host that reports usage (new hosts only).
    let guard_task = params
        .task_id
        .clone()
        .filter(|_| params.last_request.is_some());
    input.guard = guard_task
        .as_deref()
        .map(|task| deps.context_memory.guard(task));
    let input_guard = input.guard;
    input.verify = manage_verify_config(&deps, &params).await?;
    let plan = RunPlan {
        tokens: deps.tokens.clone(),
        memory: deps.context_memory.clone(),
        storage_dir: params.storage_dir.clone(),
        model,
        mode,
        cache,
        observed_count: params
            .last_request
            .as_ref()
            .and_then(|usage| usage.message_count.map(|count| (count, usage.input_tokens))),
    };
    let Begun {
        step,
        calibration,
        info,
        held,
    } = begin(&deps, &params, input, plan).await?;
    let mut outcome = match step {
        ManageStep::Done(outcome) => *outcome,
        ManageStep::Summarize(mut pending) => {
            let request = host_request(&mut pending.request, &params);
            let paths = files_read_for_summary(&params);
            let edited = files_edited_for_summary(&deps, params.task_id.as_deref()).await;
            let (cwd, fold_deps) = (params.cwd.clone(), deps.clone());
            let folding = blocking(move || folded_sections(&fold_deps, paths, edited, cwd));
            let timeout_ms = params.timeout_ms.unwrap_or(DEFAULT_SUMMARIZE_TIMEOUT_MS);
            let no_summarizer = deps.host_cannot_summarize.clone();
            let host = deps.host.clone();
            let started = std::time::Instant::now();
            let base_request = request.clone();
            let asking = async move {
                let Some(client) = host else {
                    return SummarizeReply::NoSummarizer;
                };
                if no_summarizer.load(Ordering::Relaxed) {
                    return SummarizeReply::NoSummarizer;
                }
                let reply = ask_host(&client, request, timeout_ms).await;
                if reply == SummarizeReply::NoSummarizer {
                    no_summarizer.store(true, Ordering::Relaxed);
                }
                reply
            };
            let (reply, sections) = tokio::join!(asking, folding);
            pending.input.folded_file_sections = sections.unwrap_or_else(|error| {
                tracing::warn!(%error, "folded file context failed; summary without it");
                Vec::new()
            });
            let remaining_ms = timeout_ms.saturating_sub(started.elapsed().as_millis() as u64);
            let (reply, pending, base_request) = fallback_once(
                &deps,
                (mode, calibration.clone()),
                reply,
                pending,
                base_request,
                &params,
                remaining_ms,
            )
            .await?;
            let remaining_ms = timeout_ms.saturating_sub(started.elapsed().as_millis() as u64);
            let (reply, pending) = retry_once(
                &deps,
                deps.host.as_ref(),
                (mode, calibration.clone()),
                reply,
                pending,
                &base_request,
                remaining_ms,
            )
            .await?;
            let tokens = deps.tokens.clone();
            blocking(move || {
                with_model_counter(&tokens, mode, calibration.as_ref(), |counter| {
                    finish_manage(*pending, reply, counter, &mut UuidIds, &SystemClock)
                })
            })
            .await?
        }
    };
    if let (Some(task), Some(guard)) = (guard_task.as_deref(), input_guard) {
        deps.context_memory
            .set_guard(task, outcome.next_guard(guard));
    }
    let changes = match (held, &params.history) {
        (Some((_, _, Some(changes))), _) => Some(changes),
        (Some((base, generation, None)), Some(reference)) => {
            Some(settle_after_summary(&deps, reference, base, generation, &mut outcome).await?)
        }
        _ => None,
    };
    let mut result = wire_result(outcome);
    result.calibration = info;
    if changes.is_some() {
        result.messages = None;
    }
    result.history = changes;
    Ok(result)
}

/// The core's cache options from `cache` (issue 30); `prefix_reuse_setting` is the
/// `prefixReuseCondense` setting given at `initialize`.
fn cache_options(
    params: Option<&CacheParams>,
    prefix_reuse_setting: bool,
) -> Result<CacheOptions, RpcError> {
    let defaults = CachePrices::default();
    let Some(params) = params else {
        return Ok(CacheOptions {
            prefix_reuse: prefix_reuse_setting.then_some(None),
            ..CacheOptions::default()
        });
    };
    let multiplier = |value: Option<f64>, default: f64, field: &str| match value {
        None => Ok(default),
        Some(v) if v.is_finite() && v >= 0.0 => Ok(v),
        Some(_) => Err(RpcError::field(
            format!("cache.{field}"),
            "must be a finite number, 0 or more",
        )),
    };
    let defer = match &params.defer {
        None => None,
        Some(defer) => Some(DeferPolicy {
            min_freed_tokens: defer.min_freed_tokens,
            max_break_even_requests: multiplier(
                defer.max_break_even_requests,
                DeferPolicy::default().max_break_even_requests,
                "defer.maxBreakEvenRequests",
            )?,
        }),
    };
    Ok(CacheOptions {
        prices: CachePrices {
            write: multiplier(params.write_multiplier, defaults.write, "writeMultiplier")?,
            read: multiplier(params.read_multiplier, defaults.read, "readMultiplier")?,
        },
        clock: CacheClock {
            last_request_at_ms: params.last_request_at_ms,
            ttl_ms: params.ttl_ms,
        },
        defer,
        prefix_reuse: params
            .prefix_reuse
            .unwrap_or(prefix_reuse_setting)
            .then_some(params.last_request_messages),
    })
}

/// The `roo/host/summarize` params of a request the core built (either shape); its messages
/// are moved out.
fn host_request(
    request: &mut CondenseRequest,
    params: &ManageContextParams,
) -> HostSummarizeParams {
    let continuation = request
        .replay
        .filter(|_| request.shape == RequestShapeKind::Continuation);
    HostSummarizeParams {
        request_id: uuid::Uuid::new_v4().to_string(),
        system_prompt: request.system_prompt.clone(),
        messages: std::mem::take(&mut request.messages)
            .into_iter()
            .map(|message| Value::Object(message.fields))
            .collect(),
        trigger: params.trigger,
        task_id: params.task_id.clone(),
        metadata: params.metadata.clone(),
        request_tokens: request.request_tokens,
        token_limit: request.token_limit,
        shape: continuation.map(|_| SummarizeShape::Continuation),
        continuation: continuation.map(|(replay_messages, replay_tokens)| SummarizeContinuation {
            replay_messages,
            replay_tokens,
            cache_breakpoints: "asLastRequest".into(),
        }),
    }
}

/// A continuation answered with a tool call falls back once to the standalone request (built
/// by the core's one assembler), within what is left of the timeout. This is the run's one
/// retry: the verification retry cannot follow it.
async fn fallback_once(
    deps: &Snapshot,
    (mode, calibration): (Mode, Option<Calibration>),
    reply: SummarizeReply,
    pending: Box<PendingCondense>,
    base: HostSummarizeParams,
    params: &ManageContextParams,
    remaining_ms: u64,
) -> Result<(SummarizeReply, Box<PendingCondense>, HostSummarizeParams), RpcError> {
    let SummarizeReply::ToolCall { cost: first_cost } = reply else {
        return Ok((reply, pending, base));
    };
    let tokens = deps.tokens.clone();
    let (mut pending, fallback) = blocking(move || {
        let fallback = with_model_counter(&tokens, mode, calibration.as_ref(), |counter| {
            standalone_fallback(&pending, counter, &SystemClock)
        });
        (pending, fallback)
    })
    .await?;
    let Some(fallback) = fallback else {
        return Ok((reply, pending, base));
    };
    pending.request = fallback;
    pending.retries = 1;
    let request = host_request(&mut pending.request, params);
    let sent = request.clone();
    let second = match deps.host.as_ref() {
        None => SummarizeReply::NoSummarizer,
        Some(_) if remaining_ms == 0 => SummarizeReply::TimedOut { after_ms: 0 },
        Some(client) => ask_host(client, request, remaining_ms).await,
    };
    let second = match second {
        SummarizeReply::Answer(answer) => SummarizeReply::Answer(SummarizerAnswer {
            cost: answer.cost + first_cost,
            ..answer
        }),
        SummarizeReply::ToolCall { cost } => SummarizeReply::ToolCall {
            cost: cost + first_cost,
        },
        SummarizeReply::Failed { error, cost } => SummarizeReply::Failed {
            error,
            cost: cost + first_cost,
        },
        other => other,
    };
    Ok((second, pending, sent))
}

/// The wire form of a cache impact (every result that changed the history).
pub(crate) fn wire_cache_impact(impact: &CacheImpact) -> CacheImpactInfo {
    CacheImpactInfo {
        first_changed_index: impact.first_changed_index,
        kept_prefix_tokens: impact.kept_prefix_tokens,
        rewrite_tokens: impact.rewrite_tokens,
        saved_tokens_per_request: impact.saved_tokens_per_request,
        break_even_requests: impact.break_even_requests,
        cold: impact.cold,
    }
}

fn wire_degradation(degradation: RequestDegradation) -> RequestDegradationInfo {
    RequestDegradationInfo {
        tool_results_shrunk: degradation.tool_results_shrunk,
        messages_omitted: degradation.messages_omitted,
        texts_shrunk: degradation.texts_shrunk,
    }
}

fn wire_event(event: ContextEvent) -> ContextEventMessage {
    let mut message = ContextEventMessage {
        say: ContextEventName::CondenseContextError,
        text: None,
        context_condense: None,
        context_truncation: None,
    };
    match event {
        ContextEvent::CondenseContext(condense) => {
            message.say = ContextEventName::CondenseContext;
            message.context_condense = Some(ContextCondense {
                cost: condense.cost,
                prev_context_tokens: condense.prev_context_tokens,
                new_context_tokens: condense.new_context_tokens,
                summary: condense.summary,
                condense_id: condense.condense_id,
                verification: condense.verification.as_deref().map(wire_verification),
            });
        }
        ContextEvent::CondenseContextError(text) => {
            message.say = ContextEventName::CondenseContextError;
            message.text = Some(text);
        }
        ContextEvent::SlidingWindowTruncation(truncation) => {
            message.say = ContextEventName::SlidingWindowTruncation;
            message.context_truncation = Some(ContextTruncation {
                truncation_id: truncation.truncation_id,
                messages_removed: truncation.messages_removed,
                prev_context_tokens: truncation.prev_context_tokens,
                new_context_tokens: truncation.new_context_tokens,
            });
        }
    }
    message
}

fn threshold_source_kind(source: &ThresholdSource) -> ThresholdSourceKind {
    match source {
        ThresholdSource::Global => ThresholdSourceKind::Global,
        ThresholdSource::Profile => ThresholdSourceKind::Profile,
        ThresholdSource::InvalidProfile { .. } => ThresholdSourceKind::InvalidProfile,
        ThresholdSource::Forced => ThresholdSourceKind::Forced,
    }
}

/// The wire result of an outcome, with its events from the one reporter.
pub fn wire_result(outcome: ManageOutcome) -> ManageContextResult {
    let events = report(&outcome).into_iter().map(wire_event).collect();
    let budget = ContextBudgetInfo {
        allowed_tokens: outcome.budget.allowed_tokens,
        reserved_tokens: outcome.budget.reserved_tokens,
        model_facing_tokens: outcome.budget.model_facing_tokens,
        context_percent: outcome.budget.context_percent,
        threshold: outcome.budget.threshold,
        threshold_source: threshold_source_kind(&outcome.budget.threshold_source),
    };
    ManageContextResult {
        changed: outcome.changed,
        messages: outcome.changed.then(|| {
            outcome
                .messages
                .into_iter()
                .map(|message: ApiMessage| Value::Object(message.fields))
                .collect()
        }),
        action: match outcome.action {
            ContextAction::None => ManageAction::None,
            ContextAction::Condensed => ManageAction::Condensed,
            ContextAction::Truncated => ManageAction::Truncated,
        },
        summary: outcome.summary,
        cost: outcome.cost,
        prev_context_tokens: outcome.prev_context_tokens,
        new_context_tokens: outcome.new_context_tokens,
        condense_id: outcome.condense_id,
        truncation_id: outcome.truncation_id,
        messages_removed: outcome.messages_removed,
        tool_results_shrunk: outcome.tool_results_shrunk,
        error: outcome.error,
        error_details: outcome.error_details,
        events,
        budget,
        request_degradation: outcome.request_degradation.map(wire_degradation),
        warnings: outcome.warnings,
        verification: outcome.verification.as_ref().map(wire_verification),
        history: None,
        cache_impact: outcome.cache_impact.as_ref().map(wire_cache_impact),
        deferred: outcome.deferred.map(|deferral| {
            let reason = match deferral.reason {
                DeferReason::FreesTooLittle { .. } => DeferReasonKind::FreesTooLittle,
                DeferReason::BreakEvenTooFar => DeferReasonKind::BreakEvenTooFar,
            };
            DeferredInfo {
                reason,
                min_freed_tokens: deferral.min_freed_tokens,
                estimated_impact: wire_cache_impact(&deferral.estimated_impact),
            }
        }),
        prefix_reuse: outcome.prefix_reuse.map(|reuse| PrefixReuseInfo {
            shape: match reuse.shape {
                RequestShapeKind::Standalone => SummarizeShape::Standalone,
                RequestShapeKind::Continuation => SummarizeShape::Continuation,
            },
            fallback: reuse.fallback.map(|fallback| match fallback {
                PrefixReuseFallback::ReplayTooLarge => PrefixReuseFallbackKind::ReplayTooLarge,
                PrefixReuseFallback::ToolCallAnswer => PrefixReuseFallbackKind::ToolCallAnswer,
            }),
        }),
        calibration: None,
    }
}

/// `roo/context/condense`: one condense now (`summarizeConversation`). The guards, the request,
/// the summary message and the tags are the core's; the host's model writes the text.
impl WaitingHandler for requests::ContextCondense {
    async fn handle(deps: Snapshot, params: CondenseParams) -> Result<CondenseResult, RpcError> {
        condense(deps, params).await
    }
}

fn failed_condense(failure: roo_context_core::context::CondenseFailure) -> CondenseResult {
    CondenseResult {
        changed: false,
        messages: None,
        summary: String::new(),
        cost: failure.cost,
        condense_id: None,
        summary_tokens: None,
        error: Some(failure.error),
        error_details: failure.error_details,
        request_degradation: None,
        cache_impact: None,
    }
}

async fn condense(deps: Snapshot, params: CondenseParams) -> Result<CondenseResult, RpcError> {
    let mode = Mode::Estimate;
    let messages = parse_history(Value::Array(params.messages))
        .map_err(|e| RpcError::field("messages", e))?
        .messages;
    let model = params.summarizer.clone().unwrap_or_default();
    // Without a window the request is sent as it is (the original never shortens it).
    let summarizer = SummarizerInfo {
        context_window: model.context_window.unwrap_or(u64::MAX / 4),
        max_tokens: model.max_tokens,
        supports_images: model.supports_images.unwrap_or(false),
    };
    let tokens = deps.tokens.clone();
    let (request_messages, custom) = (messages.clone(), params.custom_condensing_prompt.clone());
    let request = blocking(move || {
        with_counter(&tokens, mode, |counter| {
            build_condense_request(
                &request_messages,
                custom.as_deref(),
                &summarizer,
                counter,
                &SystemClock,
            )
        })
    })
    .await?;
    let request = match request {
        Ok(request) => request,
        Err(failure) => return Ok(failed_condense(failure)),
    };
    let degradation = wire_degradation(request.degradation.clone());
    let host_request = HostSummarizeParams {
        request_id: uuid::Uuid::new_v4().to_string(),
        system_prompt: request.system_prompt.clone(),
        messages: request
            .messages
            .into_iter()
            .map(|message| Value::Object(message.fields))
            .collect(),
        trigger: if params.automatic {
            ContextTrigger::Automatic
        } else {
            ContextTrigger::Manual
        },
        task_id: params.task_id.clone(),
        metadata: params.metadata.clone(),
        request_tokens: request.request_tokens,
        token_limit: request.token_limit,
        shape: None,
        continuation: None,
    };
    let timeout_ms = params.timeout_ms.unwrap_or(DEFAULT_SUMMARIZE_TIMEOUT_MS);
    let host = deps.host.clone();
    let asking = async move {
        match host {
            // Asked on every call: a host answers per call (each call may bring its own model).
            Some(client) => ask_host(&client, host_request, timeout_ms).await,
            None => SummarizeReply::NoSummarizer,
        }
    };
    let reply = asking.await;
    let answered = matches!(reply, SummarizeReply::Answer(_));
    let sections = match params.folded_file_sections.clone() {
        _ if !answered => Vec::new(),
        Some(sections) => sections,
        None => {
            let paths = params.files_read_by_roo.clone().unwrap_or_default();
            let (cwd, fold_deps) = (params.cwd.clone(), deps.clone());
            if paths.is_empty() {
                Vec::new()
            } else {
                blocking(move || folded_sections(&fold_deps, paths, Vec::new(), cwd))
                    .await
                    .unwrap_or_else(|error| {
                        tracing::warn!(%error, "folded file context failed; summary without it");
                        Vec::new()
                    })
            }
        }
    };
    let tokens = deps.tokens.clone();
    let (automatic, environment) = (params.automatic, params.environment_details.clone());
    let outcome = blocking(move || {
        with_counter(&tokens, mode, |counter| {
            let extras = SummaryExtras {
                folded_file_sections: &sections,
                environment_details: environment.as_deref(),
                addendum: None,
            };
            let outcome = finish_condense(
                messages,
                reply,
                automatic,
                &extras,
                counter,
                &mut UuidIds,
                &SystemClock,
            );
            // The history before the summary is the input, its new tags dangling without it.
            let impact = match &outcome {
                CondenseOutcome::Condensed { messages, .. } if !messages.is_empty() => {
                    let before = &messages[..messages.len() - 1];
                    let tokens =
                        roo_context_core::conversation::HistoryTokens::new(before, counter);
                    Some(wire_cache_impact(&roo_context_core::context::cache_impact(
                        before,
                        messages,
                        0,
                        &tokens,
                        &CachePrices::default(),
                        false,
                    )))
                }
                _ => None,
            };
            (outcome, impact)
        })
    })
    .await?;
    let (outcome, cache_impact) = outcome;
    let mut result = match outcome {
        CondenseOutcome::Failed(failure) => failed_condense(failure),
        CondenseOutcome::Condensed {
            messages,
            summary,
            condense_id,
            cost,
            summary_tokens,
        } => CondenseResult {
            changed: true,
            messages: Some(
                messages
                    .into_iter()
                    .map(|message| Value::Object(message.fields))
                    .collect(),
            ),
            summary,
            cost,
            condense_id: Some(condense_id),
            summary_tokens: Some(summary_tokens),
            error: None,
            error_details: None,
            request_degradation: None,
            cache_impact,
        },
    };
    result.request_degradation = Some(degradation);
    Ok(result)
}

/// `roo/context/willManage`.
impl Handler for requests::ContextWillManage {
    fn handle(
        snapshot: &Snapshot,
        params: WillManageContextParams,
    ) -> Result<WillManageContextResult, RpcError> {
        will_manage(snapshot, params)
    }

    /// Only counting messages grows with the input; numbers alone need no heavy slot.
    fn heavy(params: &WillManageContextParams) -> bool {
        params.new_messages.is_some()
            || (params.last_message_tokens.is_none() && params.last_message.is_some())
    }
}

fn will_manage(
    snapshot: &Snapshot,
    params: WillManageContextParams,
) -> Result<WillManageContextResult, RpcError> {
    let tokens: &TokenCache = &snapshot.tokens;
    let model = named_model(params.provider.as_ref(), params.model_id.as_ref());
    let mode = model_count_mode(params.token_count_mode, model.as_ref());
    let calibration = model
        .as_ref()
        .map(|(provider, model)| snapshot.context_memory.calibration(provider, model));
    let mut unsent = ClassTokens::default();
    let last_message_tokens = match (
        &params.new_messages,
        params.last_message_tokens,
        &params.last_message,
    ) {
        // The whole unsent batch, each message as `lastMessage` would be counted.
        (Some(messages), _, _) => {
            let recorder_base = CachedCounter(tokens);
            let recorder = ClassRecorder::new(&recorder_base);
            for message in messages {
                content_tokens(message.get("content"), &recorder);
            }
            unsent = recorder.counted.get();
            with_model_counter(tokens, mode, calibration.as_ref(), |counter| {
                messages.iter().fold(0u64, |sum, message| {
                    sum.saturating_add(content_tokens(message.get("content"), counter) as u64)
                })
            })
        }
        (None, Some(tokens), _) => tokens,
        (None, None, Some(message)) => {
            with_model_counter(tokens, mode, calibration.as_ref(), |counter| {
                content_tokens(message.get("content"), counter) as u64
            })
        }
        (None, None, None) => 0,
    };
    let input = WillManageInput {
        total_tokens: params
            .last_request
            .as_ref()
            .map_or(params.total_tokens, |usage| usage.input_tokens),
        last_message_tokens,
        context_window: params.context_window,
        max_tokens: params.max_tokens,
        settings: threshold_settings(params.thresholds),
        guard: params
            .task_id
            .as_deref()
            .filter(|_| params.last_request.is_some())
            .map(|task| snapshot.context_memory.guard(task)),
    };
    let plan = will_manage_plan(&input);
    let warnings = match plan.threshold_source {
        ThresholdSource::InvalidProfile { value } => vec![invalid_profile_threshold_warning(
            value,
            &input.settings.current_profile_id,
            input.settings.auto_condense_context_percent,
        )],
        _ => Vec::new(),
    };
    Ok(WillManageContextResult {
        will_manage: plan.will_manage(),
        prev_context_tokens: plan.prev_context_tokens,
        allowed_tokens: plan.allowed_tokens,
        context_percent: plan.context_percent,
        threshold: plan.threshold,
        should_condense: plan.should_condense,
        over_budget: plan.over_budget,
        truncate_fraction: TRUNCATION_FRACTION,
        warnings,
        calibration: calibration
            .as_ref()
            .map(|calibration| calibration_info(calibration, &unsent, false)),
    })
}

/// `roo/context/classifyError`.
impl Handler for requests::ContextClassifyError {
    fn handle(
        _snapshot: &Snapshot,
        params: ClassifyErrorParams,
    ) -> Result<ClassifyErrorResult, RpcError> {
        Ok(ClassifyErrorResult {
            is_context_window_error: is_context_window_exceeded_error(&params.error),
        })
    }

    /// One pass over one error object: on the blocking pool, but never queued behind heavy work.
    fn heavy(_params: &ClassifyErrorParams) -> bool {
        false
    }
}

/// `roo/context/cacheBreakpoints` (issue 30): the core's `cache_breakpoints` on the effective
/// history, also as stored indices.
impl Handler for requests::ContextCacheBreakpoints {
    fn handle(
        _snapshot: &Snapshot,
        params: CacheBreakpointsParams,
    ) -> Result<CacheBreakpointsResult, RpcError> {
        let max = params.max.unwrap_or(MAX_CACHE_BREAKPOINTS);
        if !(1..=MAX_CACHE_BREAKPOINTS).contains(&max) {
            return Err(RpcError::field("max", "must be 1 to 4"));
        }
        let messages = parse_history(Value::Array(params.messages))
            .map_err(|e| RpcError::field("messages", e))?
            .messages;
        let effective_indices = cache_breakpoints(&messages, max);
        let sources =
            roo_context_core::conversation::effective_api_history(&messages).source_indices;
        let stored_indices = effective_indices.iter().map(|&i| sources[i]).collect();
        Ok(CacheBreakpointsResult {
            effective_indices,
            stored_indices,
        })
    }
}
