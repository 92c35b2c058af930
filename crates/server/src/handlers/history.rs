//! `roo/history/*` and `roo/tokens/count`: the effective history, API merging, rewind and token
//! counts, over the host's messages passed through untouched.

use roo_context_core::context::truncate_by_fraction;
use roo_context_core::conversation::{
    ApiMessage, Diagnostic, RewindOptions, RewindTarget, Role, SystemClock,
    cleanup_after_truncation, content_tokens, diagnose_history, effective_api_history,
    extract_command_blocks, history_token_breakdown, inject_synthetic_tool_results,
    merge_consecutive_api_messages, messages_since_last_summary, parse_history, rewind,
    transform_messages_for_condensing,
};
use roo_context_protocol::history::*;
use serde_json::Value;

use roo_context_protocol::requests;

use super::sync::HistoryInput;
use super::{Handler, Snapshot};
use crate::counting::{Mode, with_model_counter};
use crate::rpc::RpcError;
use roo_context_core::conversation::TokenCounter;

fn parse(
    field: &str,
    messages: Vec<Value>,
) -> Result<(Vec<ApiMessage>, Vec<Diagnostic>), RpcError> {
    parse_history(Value::Array(messages))
        .map(|parsed| (parsed.messages, parsed.diagnostics))
        .map_err(|e| RpcError::field(field, e))
}

fn wire_diagnostics(diagnostics: &[Diagnostic]) -> Vec<HistoryDiagnostic> {
    diagnostics
        .iter()
        .map(|d| HistoryDiagnostic {
            message_index: d.message_index,
            code: serde_json::to_value(d.code)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default(),
            message: d.message.clone(),
        })
        .collect()
}

fn to_values<'a>(messages: impl IntoIterator<Item = &'a ApiMessage>) -> Vec<Value> {
    messages
        .into_iter()
        .map(|m| Value::Object(m.fields.clone()))
        .collect()
}

/// `roo/history/effective`.
impl Handler for requests::HistoryEffective {
    fn handle(
        snapshot: &Snapshot,
        params: EffectiveHistoryParams,
    ) -> Result<EffectiveHistoryResult, RpcError> {
        if let Some(reference) = &params.history {
            if !params.messages.is_empty() {
                return Err(super::sync::both_named("messages"));
            }
            let held = HistoryInput::resolve_blocking(snapshot, None, Some(reference))?
                .expect("a reference resolves to a history");
            let messages = held.messages();
            let effective = effective_api_history(messages);
            return Ok(EffectiveHistoryResult {
                messages: Vec::new(),
                source_indices: effective.source_indices.clone(),
                changed: effective.changed,
                since_last_summary_count: params
                    .include_since_last_summary
                    .then(|| messages_since_last_summary(messages).len()),
                diagnostics: wire_diagnostics(&diagnose_history(messages)),
            });
        }
        let (messages, diagnostics) = parse("messages", params.messages)?;
        let effective = effective_api_history(&messages);
        Ok(EffectiveHistoryResult {
            messages: to_values(effective.messages.iter().map(|m| m.as_ref())),
            source_indices: effective.source_indices.clone(),
            changed: effective.changed,
            since_last_summary_count: params
                .include_since_last_summary
                .then(|| messages_since_last_summary(&messages).len()),
            diagnostics: wire_diagnostics(&diagnostics),
        })
    }
}

/// `roo/history/merge`.
impl Handler for requests::HistoryMerge {
    fn handle(
        _snapshot: &Snapshot,
        params: MergeHistoryParams,
    ) -> Result<MergeHistoryResult, RpcError> {
        let roles = match &params.roles {
            None => vec![Role::User],
            Some(names) => names
                .iter()
                .enumerate()
                .map(|(i, name)| match name.as_str() {
                    "user" => Ok(Role::User),
                    "assistant" => Ok(Role::Assistant),
                    other => Err(RpcError::field(
                        format!("roles[{i}]"),
                        format!("unknown role {other:?} (expected \"user\" or \"assistant\")"),
                    )),
                })
                .collect::<Result<_, _>>()?,
        };
        let (messages, _) = parse("messages", params.messages)?;
        let merged = merge_consecutive_api_messages(&messages, &roles);
        Ok(MergeHistoryResult {
            messages: to_values(merged.messages.iter().map(|m| m.as_ref())),
            changed: merged.changed,
        })
    }
}

/// `roo/history/rewind`.
impl Handler for requests::HistoryRewind {
    fn handle(snapshot: &Snapshot, params: RewindParams) -> Result<RewindResult, RpcError> {
        let target = match (params.ts, params.index) {
            (Some(ts), None) => RewindTarget::Timestamp(ts),
            (None, Some(index)) => RewindTarget::Index(index),
            _ => {
                return Err(RpcError::params(
                    "exactly one of the fields `ts` and `index` must be given",
                ));
            }
        };
        let held = match &params.history {
            Some(_) if !params.api_messages.is_empty() => {
                return Err(super::sync::both_named("apiMessages"));
            }
            Some(reference) => Some((
                reference,
                HistoryInput::resolve_blocking(snapshot, None, Some(reference))?
                    .expect("a reference resolves to a history"),
            )),
            None => None,
        };
        // A held history is copied for the rewind (a user's action, not per request): a
        // refused rewind leaves it as it was.
        let api = match &held {
            Some((_, history)) => history.messages().to_vec(),
            None => parse("apiMessages", params.api_messages)?.0,
        };
        let outcome = rewind(
            &params.ui_messages,
            api,
            target,
            RewindOptions {
                include_target_message: params.include_target_message,
                skip_cleanup: params.skip_cleanup,
            },
            &SystemClock,
        )
        .map_err(|e| RpcError::field("ts", e))?;
        let changed = outcome.api_history.changed;
        let (api_messages, changes) = match held {
            None => (to_values(&outcome.api_history.messages), None),
            Some((reference, HistoryInput::Held(mut held))) => {
                let base = held.doc.state();
                let changes = held.settle(
                    &reference.task_id,
                    base,
                    outcome.api_history.messages.clone(),
                    changed,
                )?;
                if changed {
                    // A host-initiated rewrite: appends on an older base no longer commute.
                    held.append_floor = held.doc.state().version;
                }
                (Vec::new(), Some(changes))
            }
            Some((_, HistoryInput::Sent(_))) => {
                unreachable!("a reference resolves to a held history")
            }
        };
        Ok(RewindResult {
            ui_messages_kept: outcome.ui_messages_kept,
            changed,
            api_messages,
            history: changes,
            removed_condense_ids: outcome.removed_ids.condense_ids.clone(),
            removed_truncation_ids: outcome.removed_ids.truncation_ids.clone(),
            api_cutoff_ts: outcome.api_cutoff_ts,
            diagnostics: wire_diagnostics(&outcome.diagnostics),
        })
    }
}

/// `roo/history/cleanup`.
impl Handler for requests::HistoryCleanup {
    fn handle(
        _snapshot: &Snapshot,
        params: CleanupHistoryParams,
    ) -> Result<CleanupHistoryResult, RpcError> {
        let (messages, _) = parse("messages", params.messages)?;
        let before = messages.clone();
        let cleaned = cleanup_after_truncation(messages);
        let changed_indices = before
            .iter()
            .zip(&cleaned.messages)
            .enumerate()
            .filter(|(_, (old, new))| old.fields != new.fields)
            .map(|(index, _)| index)
            .collect();
        Ok(CleanupHistoryResult {
            messages: to_values(&cleaned.messages),
            changed: cleaned.changed,
            changed_indices,
        })
    }
}

/// `roo/history/truncate`.
impl Handler for requests::HistoryTruncate {
    fn handle(
        snapshot: &Snapshot,
        params: TruncateHistoryParams,
    ) -> Result<TruncateHistoryResult, RpcError> {
        if !params.fraction.is_finite() {
            return Err(RpcError::field("fraction", "must be a finite number"));
        }
        let (messages, _) = parse("messages", params.messages)?;
        let truncation_id = uuid::Uuid::new_v4().to_string();
        let truncated =
            truncate_by_fraction(&messages, params.fraction, &truncation_id, &SystemClock);
        let cache_impact = (truncated.messages_removed > 0).then(|| {
            crate::counting::with_counter(
                &snapshot.tokens,
                crate::counting::Mode::Estimate,
                |counter| {
                    let tokens =
                        roo_context_core::conversation::HistoryTokens::new(&messages, counter);
                    super::context::wire_cache_impact(&roo_context_core::context::cache_impact(
                        &messages,
                        &truncated.messages,
                        0,
                        &tokens,
                        &roo_context_core::context::CachePrices::default(),
                        false,
                    ))
                },
            )
        });
        Ok(TruncateHistoryResult {
            cache_impact,
            changed: truncated.messages_removed > 0,
            messages: to_values(&truncated.messages),
            truncation_id,
            messages_removed: truncated.messages_removed,
            visible_indices: truncated.visible_indices,
        })
    }
}

/// `roo/history/toolBlocksAsText`.
impl Handler for requests::HistoryToolBlocksAsText {
    fn handle(
        _snapshot: &Snapshot,
        params: ToolBlocksAsTextParams,
    ) -> Result<ShapedHistoryResult, RpcError> {
        let (messages, _) = parse("messages", params.messages)?;
        let shaped = transform_messages_for_condensing(&messages);
        Ok(ShapedHistoryResult {
            messages: to_values(shaped.messages.iter().map(|m| m.as_ref())),
            changed: shaped.changed,
        })
    }
}

/// `roo/history/injectSyntheticToolResults`.
impl Handler for requests::HistoryInjectSyntheticToolResults {
    fn handle(
        _snapshot: &Snapshot,
        params: InjectSyntheticToolResultsParams,
    ) -> Result<ShapedHistoryResult, RpcError> {
        let (messages, _) = parse("messages", params.messages)?;
        let shaped = inject_synthetic_tool_results(&messages, &SystemClock);
        Ok(ShapedHistoryResult {
            messages: to_values(shaped.messages.iter().map(|m| m.as_ref())),
            changed: shaped.changed,
        })
    }
}

/// `roo/history/commandBlocks`.
impl Handler for requests::HistoryCommandBlocks {
    fn handle(
        _snapshot: &Snapshot,
        params: CommandBlocksParams,
    ) -> Result<CommandBlocksResult, RpcError> {
        let (messages, _) = parse("message", vec![params.message])?;
        Ok(CommandBlocksResult {
            text: messages
                .first()
                .map(extract_command_blocks)
                .unwrap_or_default(),
        })
    }

    fn heavy(_params: &CommandBlocksParams) -> bool {
        false
    }
}

/// `roo/tokens/count`.
impl Handler for requests::TokensCount {
    fn handle(
        snapshot: &Snapshot,
        params: CountTokensParams,
    ) -> Result<CountTokensResult, RpcError> {
        let cache = &*snapshot.tokens;
        let mode = params.mode.unwrap_or(Mode::Exact);
        let calibration = params.model_id.as_ref().map(|model| {
            let provider = params.provider.as_deref().unwrap_or_default();
            snapshot.context_memory.calibration(provider, model)
        });
        let history = HistoryInput::resolve_blocking(
            snapshot,
            params.messages.clone(),
            params.history.as_ref(),
        )?;
        let messages = history.as_ref().map(HistoryInput::messages);
        let effective = params.effective.unwrap_or(true);
        let count = |counter: &dyn TokenCounter| -> Result<CountTokensResult, RpcError> {
            match (&params.text, &params.blocks, &messages) {
                (Some(text), None, None) => Ok(CountTokensResult {
                    total: content_tokens(Some(&Value::String(text.clone())), counter),
                    per_message: None,
                    calibrated: None,
                }),
                (None, Some(blocks), None) => Ok(CountTokensResult {
                    total: content_tokens(Some(&Value::Array(blocks.clone())), counter),
                    per_message: None,
                    calibrated: None,
                }),
                (None, None, Some(messages)) => {
                    let messages: &[ApiMessage] = messages;
                    let (breakdown, indices) = if effective {
                        let effective = effective_api_history(messages);
                        let breakdown = history_token_breakdown(&effective.messages, counter);
                        (breakdown, effective.source_indices)
                    } else {
                        let breakdown = history_token_breakdown(messages, counter);
                        (breakdown, (0..messages.len()).collect())
                    };
                    Ok(CountTokensResult {
                        total: breakdown.total,
                        per_message: Some(
                            indices
                                .into_iter()
                                .zip(breakdown.per_message)
                                .map(|(index, tokens)| MessageTokens { index, tokens })
                                .collect(),
                        ),
                        calibrated: None,
                    })
                }
                _ => Err(RpcError::params(
                    "exactly one of the fields `text`, `blocks` and `messages` must be given",
                )),
            }
        };
        let mut result = with_model_counter(cache, mode, calibration.as_ref(), |c| count(c))?;
        // Beside the figure of `mode`, the provider's (calibrated) one when the model is named.
        if let Some(calibration) = &calibration {
            let calibrated =
                with_model_counter(cache, Mode::Calibrated, Some(calibration), |c| count(c))?.total;
            result.calibrated = Some(calibrated);
        }
        Ok(result)
    }
}
