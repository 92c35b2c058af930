//! `roo/context/hygiene` (issue 31): the I/O around the core's tool-output hygiene
//! (`context::hygiene::shape_history`): the history sent or held, the one token counter, and
//! the answer as the tagged messages or as ops against the held history.

use std::collections::HashSet;

use roo_context_core::context::{
    DEFAULT_BATCH_TOKENS, DEFAULT_KEEP_RECENT_TURNS, DEFAULT_MASK_ABOVE_TOKENS, HygieneKind,
    HygieneOptions, apply_hygiene, plan_hygiene,
};
use roo_context_protocol::context::{
    ContextHygieneParams, ContextHygieneResult, HygieneDecision, HygieneKind as WireKind,
};
use roo_context_protocol::requests;
use serde_json::Value;

use super::sync::HistoryInput;
use super::{Handler, Snapshot};
use crate::counting::{Mode, with_counter};
use crate::rpc::RpcError;

impl Handler for requests::ContextHygiene {
    fn handle(
        snapshot: &Snapshot,
        params: ContextHygieneParams,
    ) -> Result<ContextHygieneResult, RpcError> {
        let keep_recent_turns = params
            .keep_recent_turns
            .unwrap_or(DEFAULT_KEEP_RECENT_TURNS);
        if keep_recent_turns == 0 {
            // The newest results have not been seen by the model yet: masking them would hide
            // what it asked for.
            return Err(RpcError::field("keepRecentTurns", "must be at least 1"));
        }
        let options = HygieneOptions {
            keep_recent_turns,
            mask_above_tokens: params
                .mask_above_tokens
                .unwrap_or(DEFAULT_MASK_ABOVE_TOKENS),
            batch_tokens: params.batch_tokens.unwrap_or(DEFAULT_BATCH_TOKENS),
            mask: params.mask.unwrap_or(true),
            elide_superseded: params.elide_superseded.unwrap_or(true),
            pinned: params.pinned.into_iter().collect::<HashSet<_>>(),
            edited_paths: params.edited_paths,
        };
        let input = HistoryInput::resolve_blocking(
            snapshot,
            Some(params.messages),
            params.history.as_ref(),
        )?
        .expect("messages default to an empty history");
        let mode = params.token_count_mode.unwrap_or(Mode::Estimate);
        let (outcome, history) =
            with_counter(&snapshot.tokens, mode, |counter| -> Result<_, RpcError> {
                let plan = plan_hygiene(input.messages(), &options, counter);
                match (input, &params.history) {
                    (HistoryInput::Held(mut held), Some(reference)) => {
                        let base = held.doc.state();
                        // A held history is copied only when a decision changes it (most
                        // calls wait for a batch and change nothing).
                        let messages = if plan.is_empty() {
                            Vec::new()
                        } else {
                            held.doc.messages().to_vec()
                        };
                        let mut outcome = apply_hygiene(messages, plan, counter);
                        // Only `contextHygiene` fields change, at indices the history already
                        // has: the ops are `replace`s, which commute with appends as a
                        // condense's tags do.
                        let messages = std::mem::take(&mut outcome.messages);
                        let changes =
                            held.settle(&reference.task_id, base, messages, outcome.changed)?;
                        Ok((outcome, Some(changes)))
                    }
                    (HistoryInput::Sent(messages), _) => {
                        Ok((apply_hygiene(messages, plan, counter), None))
                    }
                    (HistoryInput::Held(_), None) => {
                        unreachable!("a held history comes from a reference")
                    }
                }
            })?;
        let decisions = outcome
            .decisions
            .iter()
            .map(|d| HygieneDecision {
                tool_use_id: d.tool_use_id.clone(),
                kind: match d.kind {
                    HygieneKind::Masked => WireKind::Masked,
                    HygieneKind::Superseded => WireKind::Superseded,
                },
                message_index: d.message_index,
                tool: d.tool.clone(),
                tokens: d.tokens,
                output_id: d.output_id.clone(),
                superseded_by: d.superseded_by.clone(),
            })
            .collect();
        let messages = outcome
            .messages
            .into_iter()
            .map(|m| Value::Object(m.fields))
            .collect();
        Ok(ContextHygieneResult {
            changed: outcome.changed,
            messages,
            history,
            decisions,
            unpinned: outcome.unpinned,
            tokens_before: outcome.tokens_before,
            tokens_after: outcome.tokens_after,
            kept_prefix_messages: outcome.kept_prefix_messages,
            first_changed_index: outcome.first_changed_index,
            pending_tokens: outcome.pending_tokens,
            deferred: outcome.deferred,
            edited_paths: outcome.edited_paths,
        })
    }
}
