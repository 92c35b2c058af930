//! `roo/history/open`, `change`, `read`, `flush`, `close` (issue 29): a task's history held by
//! the sidecar. The state and its persistence are [`crate::histories`]'s; this module checks
//! versions and runs the work on the blocking pool, each task's requests in arrival order.

use roo_context_core::conversation::ApiMessage;
use roo_context_core::conversation::sync::{HistoryDoc, HistoryState, digest_hex, parse_digest};
use roo_context_protocol::requests;
use roo_context_protocol::sync::*;

use super::{Snapshot, WaitingHandler};
use crate::histories::{self, Held, core_op, out_of_sync, wire_state};
use crate::rpc::{RpcError, blocking};

fn storage_dir(params: &HistoryOpenParams) -> Result<std::path::PathBuf, RpcError> {
    let dir = params.storage_dir.as_deref().ok_or_else(|| {
        RpcError::field(
            "storageDir",
            "required with `source: file` or `persist: sidecar`",
        )
    })?;
    let dir = std::path::PathBuf::from(dir);
    if !dir.is_absolute() {
        return Err(RpcError::field("storageDir", "must be an absolute path"));
    }
    if !dir.is_dir() {
        return Err(RpcError::field(
            "storageDir",
            format!("{} is not a folder", dir.display()),
        ));
    }
    Ok(dir)
}

fn expect_matches(expect: &HistoryExpect, state: HistoryState) -> Result<bool, RpcError> {
    let digest = parse_digest(&expect.digest)
        .ok_or_else(|| RpcError::field("expect.digest", "not a digest (16 hex digits)"))?;
    Ok(expect.length == state.length && digest == state.digest)
}

impl WaitingHandler for requests::HistoryOpen {
    async fn handle(
        deps: Snapshot,
        params: HistoryOpenParams,
    ) -> Result<HistoryOpenResult, RpcError> {
        let persist = params.persist == HistoryPersist::Sidecar;
        let dir = match (params.source, persist) {
            (HistorySource::Inline, false) => None,
            _ => Some(storage_dir(&params)?),
        };
        if let Some(expect) = &params.expect {
            parse_digest(&expect.digest)
                .ok_or_else(|| RpcError::field("expect.digest", "not a digest (16 hex digits)"))?;
        }
        let (source, messages, digests) = (params.source, params.messages, params.content_digests);
        if source == HistorySource::Inline && messages.is_none() {
            return Err(RpcError::field(
                "messages",
                "required with `source: inline`",
            ));
        }
        let earlier_claim = if persist {
            let dir = dir.as_deref().expect("checked: persisting needs a folder");
            deps.histories
                .claim(&params.task_id, dir)
                .map_err(|why| RpcError::field("storageDir", why))?
        } else {
            None
        };
        let task_id = params.task_id.clone();
        let loaded = blocking(move || -> Result<histories::Loaded, RpcError> {
            match source {
                HistorySource::File => histories::load(dir.as_deref().expect("checked"), persist),
                HistorySource::Inline => {
                    let messages =
                        histories::parse_messages("messages", messages.unwrap_or_default())?;
                    let content_digests = histories::parse_digests("contentDigests", digests)?;
                    let doc = HistoryDoc::new(messages, content_digests)
                        .map_err(|error| RpcError::field("contentDigests", error.message))?;
                    histories::adopt_inline(doc, dir.as_deref())
                }
            }
        })
        .await
        .and_then(|loaded| loaded);
        let loaded = match loaded {
            Ok(loaded) => loaded,
            Err(error) => {
                // The task keeps what it had: its folder while still held, else none.
                if persist {
                    let still_held = deps.histories.get(&task_id).is_some();
                    deps.histories
                        .restore_claim(&task_id, earlier_claim.filter(|_| still_held));
                }
                return Err(error);
            }
        };
        if !persist {
            deps.histories.release(&task_id);
        }
        let mut held = loaded.held;
        held.continue_after(deps.histories.last_version(&task_id).await);
        let state = held.doc.state();
        deps.histories.insert(&params.task_id, held);
        if let Some(expect) = &params.expect
            && !expect_matches(expect, state)?
        {
            return Err(out_of_sync(
                &params.task_id,
                Some(state),
                &format!(
                    "expected {} messages with digest {}, found {} with {}",
                    expect.length,
                    expect.digest,
                    state.length,
                    digest_hex(state.digest)
                ),
            ));
        }
        Ok(HistoryOpenResult {
            state: wire_state(state),
            recovery: loaded.recovery,
        })
    }
}

/// The task's held history, locked (requests of one task apply in arrival order). One whose
/// messages an internal error lost is dropped: the host opens it again.
pub async fn locked(
    deps: &Snapshot,
    task_id: &str,
) -> Result<tokio::sync::OwnedMutexGuard<Held>, RpcError> {
    let held = held(deps, task_id)?.lock_owned().await;
    usable(deps, task_id, held)
}

/// [`locked`] from a thread of the blocking pool (the `blocking` lane's handlers).
pub fn locked_blocking(
    deps: &Snapshot,
    task_id: &str,
) -> Result<tokio::sync::OwnedMutexGuard<Held>, RpcError> {
    let held = held(deps, task_id)?.blocking_lock_owned();
    usable(deps, task_id, held)
}

fn held(
    deps: &Snapshot,
    task_id: &str,
) -> Result<std::sync::Arc<tokio::sync::Mutex<Held>>, RpcError> {
    deps.histories.get(task_id).ok_or_else(|| {
        out_of_sync(
            task_id,
            None,
            "the sidecar holds no history for it (open it)",
        )
    })
}

fn usable(
    deps: &Snapshot,
    task_id: &str,
    held: tokio::sync::OwnedMutexGuard<Held>,
) -> Result<tokio::sync::OwnedMutexGuard<Held>, RpcError> {
    if histories::is_broken(&held) {
        deps.histories.remove(task_id, held.doc.state().version);
        return Err(out_of_sync(
            task_id,
            None,
            "its history was lost after an internal error (open it again)",
        ));
    }
    Ok(held)
}

fn at_version(
    reference: &HistoryRef,
    held: tokio::sync::OwnedMutexGuard<Held>,
) -> Result<tokio::sync::OwnedMutexGuard<Held>, RpcError> {
    let state = held.doc.state();
    if state.version != reference.version {
        return Err(out_of_sync(
            &reference.task_id,
            Some(state),
            &format!("version {} is not the sidecar's", reference.version),
        ));
    }
    Ok(held)
}

/// [`locked`], at exactly `version` (`-32010` otherwise).
pub async fn locked_at(
    deps: &Snapshot,
    reference: &HistoryRef,
) -> Result<tokio::sync::OwnedMutexGuard<Held>, RpcError> {
    at_version(reference, locked(deps, &reference.task_id).await?)
}

/// A request's history: the `messages` it sent, or the held one its `history` names (borrowed
/// under the task's lock, never copied).
pub enum HistoryInput {
    /// Sent with the request.
    Sent(Vec<ApiMessage>),
    /// Held by the sidecar.
    Held(tokio::sync::OwnedMutexGuard<Held>),
}

impl HistoryInput {
    /// Either `messages` or `history` (both is an error naming `messages`); blocking lane.
    pub fn resolve_blocking(
        deps: &Snapshot,
        messages: Option<Vec<serde_json::Value>>,
        history: Option<&HistoryRef>,
    ) -> Result<Option<HistoryInput>, RpcError> {
        match (messages, history) {
            (Some(messages), None) => Ok(Some(HistoryInput::Sent(parse_sent(messages)?))),
            // An empty `messages` beside a reference is the field's default, not a second history.
            (Some(messages), Some(_)) if !messages.is_empty() => Err(both()),
            (_, Some(reference)) => Ok(Some(HistoryInput::Held(at_version(
                reference,
                locked_blocking(deps, &reference.task_id)?,
            )?))),
            (None, None) => Ok(None),
        }
    }

    /// [`HistoryInput::resolve_blocking`] for the `waiting` lane.
    pub async fn resolve(
        deps: &Snapshot,
        messages: Vec<serde_json::Value>,
        history: Option<&HistoryRef>,
    ) -> Result<HistoryInput, RpcError> {
        match history {
            None => Ok(HistoryInput::Sent(parse_sent(messages)?)),
            Some(_) if !messages.is_empty() => Err(both()),
            Some(reference) => Ok(HistoryInput::Held(locked_at(deps, reference).await?)),
        }
    }

    /// The messages.
    pub fn messages(&self) -> &[ApiMessage] {
        match self {
            HistoryInput::Sent(messages) => messages,
            HistoryInput::Held(held) => held.doc.messages(),
        }
    }
}

fn parse_sent(messages: Vec<serde_json::Value>) -> Result<Vec<ApiMessage>, RpcError> {
    histories::parse_messages("messages", messages)
}

fn both() -> RpcError {
    both_named("messages")
}

/// The error of a request that sent its history in `field` and named a held one too.
pub fn both_named(field: &str) -> RpcError {
    RpcError::field(
        field,
        format!("give either `{field}` or a `history` reference, not both"),
    )
}

/// Whether a batch based on `base` may apply to `held`: the current version, or an older one
/// no host change since (only appends and context management, which commute with appends).
fn base_accepted(held: &Held, base: u64, appends_only: bool) -> bool {
    let current = held.doc.state().version;
    base == current || (appends_only && base >= held.append_floor && base < current)
}

impl WaitingHandler for requests::HistoryChange {
    async fn handle(
        deps: Snapshot,
        params: HistoryChangeParams,
    ) -> Result<HistoryChangeResult, RpcError> {
        let appends_only = params
            .ops
            .iter()
            .all(|op| matches!(op, HistoryOpWire::Append { .. }));
        let mut held = locked(&deps, &params.task_id).await?;
        if !base_accepted(&held, params.base_version, appends_only) {
            return Err(out_of_sync(
                &params.task_id,
                Some(held.doc.state()),
                &format!("baseVersion {} is not the sidecar's", params.base_version),
            ));
        }
        let task_id = params.task_id;
        blocking(move || {
            let wire_ops = params.ops;
            let ops = wire_ops
                .iter()
                .cloned()
                .enumerate()
                .map(|(at, op)| core_op(&format!("ops[{at}]"), op))
                .collect::<Result<Vec<_>, _>>()?;
            let state = held.doc.apply(ops).map_err(|error| {
                RpcError::field(format!("ops[{}].{}", error.op, error.field), error.message)
            })?;
            if !appends_only {
                held.append_floor = state.version;
                held.rewritten_at = state.version;
            }
            let durable = match held.persist(&wire_ops) {
                Ok(durable) => durable,
                Err(error) => {
                    tracing::warn!(%error, task = %task_id, "history change not persisted");
                    false
                }
            };
            Ok(HistoryChangeResult {
                state: wire_state(state),
                durable,
            })
        })
        .await?
    }
}

impl WaitingHandler for requests::HistoryRead {
    async fn handle(
        deps: Snapshot,
        params: HistoryReadParams,
    ) -> Result<HistoryReadResult, RpcError> {
        let held = locked(&deps, &params.task_id).await?;
        blocking(move || {
            let length = held.doc.state().length;
            let to = params.to.unwrap_or(length);
            let from = params.from.unwrap_or(0);
            if to > length {
                return Err(RpcError::field(
                    "to",
                    format!("{to} is past the history's {length} messages"),
                ));
            }
            if from > to {
                return Err(RpcError::field(
                    "from",
                    format!("{from} is after `to` ({to})"),
                ));
            }
            Ok(HistoryReadResult {
                state: wire_state(held.doc.state()),
                messages: held.doc.messages()[from..to]
                    .iter()
                    .map(|message| serde_json::Value::Object(message.fields.clone()))
                    .collect(),
                content_digests: held.doc.content_digests()[from..to]
                    .iter()
                    .map(|digest| digest_hex(*digest))
                    .collect(),
            })
        })
        .await?
    }
}

async fn flush(
    mut held: tokio::sync::OwnedMutexGuard<Held>,
) -> Result<HistoryFlushResult, RpcError> {
    blocking(move || {
        let bytes_written = held
            .flush()
            .map_err(|error| RpcError::internal(format!("history not written: {error}")))?;
        Ok(HistoryFlushResult {
            state: wire_state(held.doc.state()),
            bytes_written,
        })
    })
    .await?
}

impl WaitingHandler for requests::HistoryFlush {
    async fn handle(
        deps: Snapshot,
        params: HistoryTaskParams,
    ) -> Result<HistoryFlushResult, RpcError> {
        flush(locked(&deps, &params.task_id).await?).await
    }
}

impl WaitingHandler for requests::HistoryClose {
    async fn handle(
        deps: Snapshot,
        params: HistoryTaskParams,
    ) -> Result<HistoryFlushResult, RpcError> {
        let held = locked(&deps, &params.task_id).await?;
        let result = flush(held).await?;
        deps.histories.remove(&params.task_id, result.state.version);
        Ok(result)
    }
}
