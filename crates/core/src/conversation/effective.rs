//! What the model actually sees of a non-destructively tagged history (spec §3.5, §3.8, §3.9).

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::Value;

use super::message::{ApiMessage, Block, Content, is_truthy};

/// The effective API history: the messages sent to the model, borrowed where untouched.
#[derive(Clone, Debug, PartialEq)]
pub struct EffectiveHistory<'a> {
    /// The visible messages, in order. `Cow::Owned` only where orphan tool results were dropped.
    pub messages: Vec<Cow<'a, ApiMessage>>,
    /// For each visible message, its index in the stored history.
    pub source_indices: Vec<usize>,
    /// `false` when the effective history is exactly the stored history.
    pub changed: bool,
}

/// A list of messages derived from an input list, borrowed where untouched.
#[derive(Clone, Debug, PartialEq)]
pub struct DerivedHistory<'a> {
    /// The resulting messages.
    pub messages: Vec<Cow<'a, ApiMessage>>,
    /// `false` when `messages` serializes to exactly the input.
    pub changed: bool,
}

impl DerivedHistory<'_> {
    /// The messages as owned values.
    pub fn into_owned(self) -> Vec<ApiMessage> {
        self.messages.into_iter().map(Cow::into_owned).collect()
    }
}

impl EffectiveHistory<'_> {
    /// The messages as owned values.
    pub fn into_owned(self) -> Vec<ApiMessage> {
        self.messages.into_iter().map(Cow::into_owned).collect()
    }
}

/// An owned history rewritten in place (cleanup, rewind), with what changed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RewrittenHistory {
    /// The resulting stored history.
    pub messages: Vec<ApiMessage>,
    /// `false` when `messages` serializes to exactly the input.
    pub changed: bool,
}

/// `getEffectiveApiHistory`: the messages the model sees (spec §3.8).
///
/// With a summary (`isSummary === true`): the suffix from the last summary, minus messages hidden
/// by a truncation marker inside the suffix, minus `tool_result` blocks whose `tool_use` is not
/// among the remaining messages (a user message left empty by this is dropped). Messages after the summary are
/// kept even if they carry a `condenseParent`.
///
/// Without a summary: every message except those whose `condenseParent` or `truncationParent`
/// names an existing summary or marker (dangling tags are ignored, so those messages show again).
pub fn effective_api_history<M: AsRef<ApiMessage>>(messages: &[M]) -> EffectiveHistory<'_> {
    let last_summary = messages
        .iter()
        .rposition(|message| message.as_ref().is_summary_strictly_true());
    match last_summary {
        Some(start) => fresh_start_history(messages, start),
        None => history_without_summary(messages),
    }
}

fn fresh_start_history<M: AsRef<ApiMessage>>(messages: &[M], start: usize) -> EffectiveHistory<'_> {
    let suffix = &messages[start..];
    let marker_ids: HashSet<&str> = suffix
        .iter()
        .map(AsRef::as_ref)
        .filter(|message| message.is_truncation_marker())
        .filter_map(ApiMessage::truncation_id)
        .collect();
    let hidden = |message: &ApiMessage| {
        message
            .truncation_parent()
            .is_some_and(|parent| marker_ids.contains(parent))
    };
    // Deviation from the original (which collects tool uses before hiding truncated messages):
    // only tool uses the model will see count, so a tool result whose tool use is hidden by a
    // truncation marker is filtered too. Otherwise the provider rejects the request.
    let tool_use_ids: HashSet<&str> = suffix
        .iter()
        .map(AsRef::as_ref)
        .filter(|message| message.is_assistant() && !hidden(message))
        .flat_map(|message| message.blocks())
        .filter_map(|block| match Block::view(block) {
            Block::ToolUse { id, .. } => id,
            _ => None,
        })
        .collect();

    let mut result = EffectiveHistory {
        messages: Vec::with_capacity(suffix.len()),
        source_indices: Vec::with_capacity(suffix.len()),
        changed: start > 0,
    };
    for (offset, message) in suffix.iter().enumerate() {
        let message = message.as_ref();
        if hidden(message) {
            result.changed = true;
            continue;
        }
        let visible = match without_orphan_tool_results(message, &tool_use_ids) {
            OrphanFilter::Untouched => with_hygiene(Cow::Borrowed(message)),
            OrphanFilter::Filtered(copy) => with_hygiene(Cow::Owned(copy)),
            OrphanFilter::Emptied => {
                result.changed = true;
                continue;
            }
        };
        result.changed |= matches!(visible, Cow::Owned(_));
        result.messages.push(visible);
        result.source_indices.push(start + offset);
    }
    result
}

/// The message as the model sees it once its tool-output hygiene decisions apply (issue 31:
/// old observations masked, superseded reads elided; `context::hygiene` decides them).
fn with_hygiene(message: Cow<'_, ApiMessage>) -> Cow<'_, ApiMessage> {
    if !crate::context::hygiene::has_hygiene(&message) {
        return message;
    }
    match crate::context::hygiene::hygiene_view(&message) {
        Some(shaped) => Cow::Owned(shaped),
        None => message,
    }
}

enum OrphanFilter {
    Untouched,
    Filtered(ApiMessage),
    Emptied,
}

fn without_orphan_tool_results(message: &ApiMessage, tool_use_ids: &HashSet<&str>) -> OrphanFilter {
    if !message.is_user() {
        return OrphanFilter::Untouched;
    }
    let Content::Blocks(blocks) = message.content() else {
        return OrphanFilter::Untouched;
    };
    let is_orphan = |block: &Value| match Block::view(block) {
        Block::ToolResult { tool_use_id, .. } => {
            tool_use_id.is_none_or(|id| !tool_use_ids.contains(id))
        }
        _ => false,
    };
    if !blocks.iter().any(is_orphan) {
        return OrphanFilter::Untouched;
    }
    let kept: Vec<Value> = blocks
        .iter()
        .filter(|block| !is_orphan(block))
        .cloned()
        .collect();
    if kept.is_empty() {
        return OrphanFilter::Emptied;
    }
    let mut copy = message.clone();
    copy.set_content(Value::Array(kept));
    OrphanFilter::Filtered(copy)
}

fn history_without_summary<M: AsRef<ApiMessage>>(messages: &[M]) -> EffectiveHistory<'_> {
    let (summary_ids, marker_ids) = existing_ids(messages);
    let mut result = EffectiveHistory {
        messages: Vec::with_capacity(messages.len()),
        source_indices: Vec::with_capacity(messages.len()),
        changed: false,
    };
    for (index, message) in messages.iter().enumerate() {
        let message = message.as_ref();
        let condensed = message
            .condense_parent()
            .is_some_and(|parent| summary_ids.contains(parent));
        let truncated = message
            .truncation_parent()
            .is_some_and(|parent| marker_ids.contains(parent));
        if condensed || truncated {
            result.changed = true;
        } else {
            let visible = with_hygiene(Cow::Borrowed(message));
            result.changed |= matches!(visible, Cow::Owned(_));
            result.messages.push(visible);
            result.source_indices.push(index);
        }
    }
    result
}

/// The `condenseId`s of summaries and the `truncationId`s of markers present in `messages`.
fn existing_ids<M: AsRef<ApiMessage>>(messages: &[M]) -> (HashSet<&str>, HashSet<&str>) {
    let mut summary_ids = HashSet::new();
    let mut marker_ids = HashSet::new();
    for message in messages {
        let message = message.as_ref();
        if message.is_summary()
            && let Some(id) = message.condense_id()
        {
            summary_ids.insert(id);
        }
        if message.is_truncation_marker()
            && let Some(id) = message.truncation_id()
        {
            marker_ids.insert(id);
        }
    }
    (summary_ids, marker_ids)
}

/// `getMessagesSinceLastSummary`: the suffix from the last message with a truthy `isSummary`
/// (inclusive), or the whole list when there is none (spec §3.5).
pub fn messages_since_last_summary<M: AsRef<ApiMessage>>(messages: &[M]) -> &[M] {
    match messages
        .iter()
        .rposition(|message| message.as_ref().is_summary())
    {
        Some(start) => &messages[start..],
        None => messages,
    }
}

/// `cleanupAfterTruncation`: removes `condenseParent` / `truncationParent` tags that name a
/// summary or marker no longer in the history, so those messages become visible again
/// (spec §3.9). Valid tags stay where they were in the key order; length and order are kept.
pub fn cleanup_after_truncation(mut messages: Vec<ApiMessage>) -> RewrittenHistory {
    let (summary_ids, marker_ids) = existing_ids(&messages);
    let (summary_ids, marker_ids): (HashSet<String>, HashSet<String>) = (
        summary_ids.into_iter().map(str::to_owned).collect(),
        marker_ids.into_iter().map(str::to_owned).collect(),
    );
    let mut changed = false;
    for message in &mut messages {
        changed |= drop_dangling_tag(message, "condenseParent", &summary_ids);
        changed |= drop_dangling_tag(message, "truncationParent", &marker_ids);
    }
    // Hygiene decisions made after the history's end (a rewind cut it) are undone the same way.
    changed |= crate::context::hygiene::drop_undone_hygiene(&mut messages);
    RewrittenHistory { messages, changed }
}

/// Removes `key` when present but not naming one of `existing` (a non-string tag never does).
fn drop_dangling_tag(message: &mut ApiMessage, key: &str, existing: &HashSet<String>) -> bool {
    let dangling = match message.fields.get(key) {
        Some(Value::String(parent)) => !parent.is_empty() && !existing.contains(parent),
        // Falsy tags (`null`, `0`, `false`) hide nothing and are left alone, like the original.
        Some(other) => is_truthy(other),
        None => false,
    };
    if dangling {
        message.remove_field(key);
    }
    dangling
}
