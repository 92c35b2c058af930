//! `roo/context/*`: one handler for manual, automatic and emergency context management, the
//! threshold pre-check and error classification. The core decides; this module counts with the
//! shared token cache on the blocking pool, asks the host for the summary (`roo/host/summarize`,
//! with a timeout and cancellation), and folds the files the task read into the summary.

use std::sync::atomic::Ordering;
use std::time::Duration;

use roo_context_core::context::verify::{
    CheckId, CheckReport, FileAction, FileRecord, OnFail, TodoItem, TodoStatus, VerifyInput,
    VerifySettings, build_addendum, tracked_file_records, verify_summary as verify_text,
};
use roo_context_core::context::{
    CondenseOutcome, ContextAction, ContextEvent, HostError, ManageInput, ManageOutcome,
    ManageStep, PendingCondense, RequestDegradation, SummarizeReply, SummarizerAnswer,
    SummarizerInfo, SummaryExtras, SummaryVerification, TRUNCATION_FRACTION, ThresholdSettings,
    ThresholdSource, Trigger, VerifyConfig, WillManageInput, begin_manage, build_condense_request,
    finish_condense, finish_manage, invalid_profile_threshold_warning,
    is_context_window_exceeded_error, report, retry_request, will_manage_plan,
};
use roo_context_core::conversation::{
    ApiMessage, IdSource, SystemClock, content_tokens, parse_history,
};
use roo_context_protocol::context::*;
use roo_context_protocol::fold::FoldContextParams;
use roo_context_protocol::methods;
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

use crate::counting::{Mode, with_counter};
use crate::handlers::fold;
use crate::tracker::FileTracker;

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
    })
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

async fn manage(
    deps: Snapshot,
    mut params: ManageContextParams,
) -> Result<ManageContextResult, RpcError> {
    let mode = count_mode(params.token_count_mode);
    let mut input = manage_input(&mut params)?;
    input.verify = manage_verify_config(&deps, &params).await?;
    let tokens = deps.tokens.clone();
    let step = blocking(move || {
        with_counter(&tokens, mode, |counter| {
            begin_manage(input, counter, &mut UuidIds, &SystemClock)
        })
    })
    .await?;
    let outcome = match step {
        ManageStep::Done(outcome) => *outcome,
        ManageStep::Summarize(mut pending) => {
            let request = HostSummarizeParams {
                request_id: uuid::Uuid::new_v4().to_string(),
                system_prompt: pending.request.system_prompt.clone(),
                messages: std::mem::take(&mut pending.request.messages)
                    .into_iter()
                    .map(|message| Value::Object(message.fields))
                    .collect(),
                trigger: params.trigger,
                task_id: params.task_id.clone(),
                metadata: params.metadata.clone(),
                request_tokens: pending.request.request_tokens,
                token_limit: pending.request.token_limit,
            };
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
            let (reply, pending) = retry_once(
                &deps,
                deps.host.as_ref(),
                mode,
                reply,
                pending,
                &base_request,
                remaining_ms,
            )
            .await?;
            let tokens = deps.tokens.clone();
            blocking(move || {
                with_counter(&tokens, mode, |counter| {
                    finish_manage(*pending, reply, counter, &mut UuidIds, &SystemClock)
                })
            })
            .await?
        }
    };
    Ok(wire_result(outcome))
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
            finish_condense(
                messages,
                reply,
                automatic,
                &extras,
                counter,
                &mut UuidIds,
                &SystemClock,
            )
        })
    })
    .await?;
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
        will_manage(&snapshot.tokens, params)
    }

    /// Only counting `lastMessage` grows with the input; numbers alone need no heavy slot.
    fn heavy(params: &WillManageContextParams) -> bool {
        params.last_message_tokens.is_none() && params.last_message.is_some()
    }
}

fn will_manage(
    tokens: &TokenCache,
    params: WillManageContextParams,
) -> Result<WillManageContextResult, RpcError> {
    let mode = count_mode(params.token_count_mode);
    let last_message_tokens = match (params.last_message_tokens, &params.last_message) {
        (Some(tokens), _) => tokens,
        (None, Some(message)) => with_counter(tokens, mode, |counter| {
            content_tokens(message.get("content"), counter) as u64
        }),
        (None, None) => 0,
    };
    let input = WillManageInput {
        total_tokens: params.total_tokens,
        last_message_tokens,
        context_window: params.context_window,
        max_tokens: params.max_tokens,
        settings: threshold_settings(params.thresholds),
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
