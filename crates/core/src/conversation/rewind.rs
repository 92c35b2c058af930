//! Rewind (the message manager's API-history part, spec §6): deleting the conversation's tail
//! also deletes the summaries and truncation markers created by the events being deleted.

use std::collections::HashSet;

use serde_json::Value;

use super::Clock;
use super::diagnostics::{Diagnostic, DiagnosticCode};
use super::effective::{RewrittenHistory, cleanup_after_truncation};
use super::message::{ApiMessage, Block};

/// First line of every summary's first text block; used to match legacy events by summary text.
pub const SUMMARY_HEADING: &str = "## Conversation Summary";

/// The summary and marker ids carried by the UI events a rewind removes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RemovedContextIds {
    /// `contextCondense.condenseId` of every removed `condense_context` event.
    pub condense_ids: Vec<String>,
    /// `contextTruncation.truncationId` of every removed `sliding_window_truncation` event.
    pub truncation_ids: Vec<String>,
    /// `contextCondense.summary` of removed `condense_context` events that had no `condenseId`
    /// (the original's emergency path); their summaries are matched by text instead.
    pub summaries_without_id: Vec<String>,
}

impl RemovedContextIds {
    /// Collects the ids from removed UI events (`ClineMessage`s); other events are ignored.
    pub fn from_ui_events<'a>(events: impl IntoIterator<Item = &'a Value>) -> Self {
        let mut ids = RemovedContextIds::default();
        for event in events {
            let field = |outer: &str, inner: &str| {
                event
                    .get(outer)
                    .and_then(|value| value.get(inner))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            };
            match event.get("say").and_then(Value::as_str) {
                Some("condense_context") => {
                    match field("contextCondense", "condenseId").filter(|id| !id.is_empty()) {
                        Some(id) => ids.condense_ids.push(id),
                        None => {
                            if let Some(summary) = field("contextCondense", "summary") {
                                ids.summaries_without_id.push(summary);
                            }
                        }
                    }
                }
                Some("sliding_window_truncation") => {
                    if let Some(id) = field("contextTruncation", "truncationId") {
                        ids.truncation_ids.push(id);
                    }
                }
                _ => {}
            }
        }
        ids
    }
}

/// Options of a rewind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RewindOptions {
    /// Keep the UI message at the target timestamp (edit / checkpoint restore). The API cutoff
    /// stays the target timestamp either way.
    pub include_target_message: bool,
    /// Skip [`cleanup_after_truncation`] (dangling tags stay).
    pub skip_cleanup: bool,
}

/// Where to rewind to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RewindTarget {
    /// The UI message whose `ts` equals this value exactly.
    Timestamp(f64),
    /// Keep UI messages `[0, index)`.
    Index(usize),
}

/// The outcome of a rewind over both lists.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RewindOutcome {
    /// How many UI messages to keep (the host truncates its list to this length).
    pub ui_messages_kept: usize,
    /// The ids found in the removed UI events.
    pub removed_ids: RemovedContextIds,
    /// The API timestamp cutoff that was applied (before the race-fix adjustment).
    pub api_cutoff_ts: f64,
    /// The rewound API history.
    pub api_history: RewrittenHistory,
    /// Oddities met on the way (non-numeric timestamps, legacy events matched by text).
    pub diagnostics: Vec<Diagnostic>,
}

/// A rewind that cannot be done.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RewindError {
    /// No UI message has exactly this `ts`.
    #[error("Message with timestamp {0} not found in clineMessages")]
    TimestampNotFound(f64),
}

/// `rewindToTimestamp` / `rewindToIndex` over the UI events and the API history (spec §6.1).
///
/// The UI list is only read: the result says how many of its messages to keep. `clock` supplies
/// the cutoff when rewinding to an index past the end of the UI list.
pub fn rewind(
    ui_messages: &[Value],
    api_history: Vec<ApiMessage>,
    target: RewindTarget,
    options: RewindOptions,
    clock: &dyn Clock,
) -> Result<RewindOutcome, RewindError> {
    let (ui_messages_kept, cutoff) = match target {
        RewindTarget::Timestamp(ts) => {
            let index = ui_messages
                .iter()
                .position(|event| event.get("ts").and_then(Value::as_f64) == Some(ts))
                .ok_or(RewindError::TimestampNotFound(ts))?;
            let kept = if options.include_target_message {
                index + 1
            } else {
                index
            };
            (kept, ts)
        }
        RewindTarget::Index(index) => {
            let cutoff = ui_messages
                .get(index)
                .and_then(|event| event.get("ts"))
                .and_then(Value::as_f64)
                .unwrap_or(clock.now_ms() as f64);
            (index.min(ui_messages.len()), cutoff)
        }
    };
    let removed_ids = RemovedContextIds::from_ui_events(&ui_messages[ui_messages_kept..]);
    let (api_history, diagnostics) =
        rewind_api_history(api_history, cutoff, &removed_ids, options.skip_cleanup);
    Ok(RewindOutcome {
        ui_messages_kept,
        removed_ids,
        api_cutoff_ts: cutoff,
        api_history,
        diagnostics,
    })
}

/// The API-history part of a rewind (spec §6.2 step 3): timestamp cutoff with the race fix,
/// removal of the summaries and markers named by `removed`, then (unless `skip_cleanup`) the
/// cleanup of tags whose summary or marker is gone.
///
/// Messages without a truthy numeric `ts` are always kept.
pub fn rewind_api_history(
    messages: Vec<ApiMessage>,
    cutoff_ts: f64,
    removed: &RemovedContextIds,
    skip_cleanup: bool,
) -> (RewrittenHistory, Vec<Diagnostic>) {
    let mut diagnostics = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if let Some(ts) = message.fields.get("ts")
            && !ts.is_number()
            && !ts.is_null()
        {
            diagnostics.push(Diagnostic::at(
                index,
                DiagnosticCode::InvalidTimestamp,
                "ts is not a number; the message is kept by the rewind",
            ));
        }
    }
    let cutoff = adjusted_cutoff(&messages, cutoff_ts);
    let condense_ids: HashSet<&str> = removed.condense_ids.iter().map(String::as_str).collect();
    let truncation_ids: HashSet<&str> = removed.truncation_ids.iter().map(String::as_str).collect();
    let summary_texts: HashSet<String> = removed
        .summaries_without_id
        .iter()
        .map(|summary| format!("{SUMMARY_HEADING}\n{summary}"))
        .collect();

    let original_len = messages.len();
    let mut kept = Vec::with_capacity(original_len);
    for (index, message) in messages.into_iter().enumerate() {
        if message.has_truthy_ts() && message.ts().is_some_and(|ts| ts >= cutoff) {
            continue;
        }
        if message.is_summary() {
            if message
                .condense_id()
                .is_some_and(|id| condense_ids.contains(id))
            {
                continue;
            }
            if !summary_texts.is_empty()
                && first_text(&message).is_some_and(|text| summary_texts.contains(text))
            {
                diagnostics.push(Diagnostic::at(
                    index,
                    DiagnosticCode::SummaryMatchedByText,
                    "removed by its summary text: the condense_context event had no condenseId",
                ));
                continue;
            }
        }
        if message.is_truncation_marker()
            && message
                .truncation_id()
                .is_some_and(|id| truncation_ids.contains(id))
        {
            continue;
        }
        kept.push(message);
    }
    let removed_any = kept.len() != original_len;
    let history = if skip_cleanup {
        RewrittenHistory {
            messages: kept,
            changed: false,
        }
    } else {
        cleanup_after_truncation(kept)
    };
    (
        RewrittenHistory {
            changed: history.changed || removed_any,
            messages: history.messages,
        },
        diagnostics,
    )
}

/// The race fix (spec §6.2 a): when no message has exactly the cutoff `ts` but some message is
/// older, cut at the first user message at or after the cutoff, so assistant messages streamed
/// while a tool ran are kept.
fn adjusted_cutoff(messages: &[ApiMessage], cutoff: f64) -> f64 {
    let exact = messages.iter().any(|message| message.ts() == Some(cutoff));
    // A `ts` of 0 means "no timestamp", as in the keep rule below.
    let some_older = messages
        .iter()
        .any(|message| message.has_truthy_ts() && message.ts().is_some_and(|ts| ts < cutoff));
    if exact || !some_older {
        return cutoff;
    }
    messages
        .iter()
        .filter(|message| message.is_user())
        .filter_map(ApiMessage::ts)
        .find(|ts| *ts >= cutoff)
        .unwrap_or(cutoff)
}

fn first_text(message: &ApiMessage) -> Option<&str> {
    message
        .blocks()
        .iter()
        .find_map(|block| match Block::view(block) {
            Block::Text { text } => text,
            _ => None,
        })
}
