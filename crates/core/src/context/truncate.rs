//! Sliding-window truncation (spec §5.6, counted on the effective history) and zero-progress
//! recovery (§5.8 as decided): hide the older half of what the model sees behind a marker, and
//! when that is not enough shrink the largest textual tool results; succeed only when the result
//! fits the budget and is smaller than before, otherwise fail with the numbers.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashSet};

use serde_json::Value;

use super::condense::number;
use super::shrink::{ShrinkScope, shrink_largest_texts};
use crate::conversation::{
    ApiMessage, Clock, HistoryTokens, IdSource, Role, TokenCounter, effective_api_history,
};

/// Share of the visible messages (after the first) the fallback truncation hides.
pub const TRUNCATION_FRACTION: f64 = 0.5;
/// Shrink-and-measure rounds of the recovery.
const RECOVERY_ROUNDS: usize = 6;

/// The marker's text: `[Sliding window truncation: <n> messages hidden to reduce context]`.
pub fn truncation_marker_text(messages_hidden: usize) -> String {
    format!("[Sliding window truncation: {messages_hidden} messages hidden to reduce context]")
}

/// The controlled error when nothing more can be done.
pub fn recovery_failed_error(prev_context_tokens: u64, allowed_tokens: u64) -> String {
    format!(
        "Context window recovery failed: the conversation ({prev_context_tokens} tokens) exceeds the available budget ({allowed_tokens} tokens) and no messages can be removed or tool results shrunk further. Reduce the size of individual tool outputs or start a new task."
    )
}

/// Tokens the model sees: `fixed_tokens` (system prompt, tool definitions) plus every message of
/// the effective history (markers included: they are sent).
pub fn model_facing_tokens<M: AsRef<ApiMessage>>(
    messages: &[M],
    fixed_tokens: u64,
    counter: &dyn TokenCounter,
) -> u64 {
    model_facing_tokens_with(messages, fixed_tokens, &HistoryTokens::new(&[], counter))
}

/// [`model_facing_tokens`] counting through a per-call memo.
pub(crate) fn model_facing_tokens_with<M: AsRef<ApiMessage>>(
    messages: &[M],
    fixed_tokens: u64,
    tokens: &HistoryTokens<'_>,
) -> u64 {
    let effective = effective_api_history(messages);
    fixed_tokens + tokens.total(&effective.messages) as u64
}

/// A change to the stored history, applied without copying untouched messages.
#[derive(Clone, Debug, PartialEq)]
pub enum HistoryEdit {
    /// Keep stored message `i` as it is.
    Keep(usize),
    /// Stored message `i`, tagged or with shrunk tool results.
    Replace(usize, ApiMessage),
    /// A new message (a truncation marker).
    Insert(ApiMessage),
}

/// Applies edits to the stored history they were computed from.
pub fn apply_edits(original: Vec<ApiMessage>, edits: Vec<HistoryEdit>) -> Vec<ApiMessage> {
    let mut slots: Vec<Option<ApiMessage>> = original.into_iter().map(Some).collect();
    edits
        .into_iter()
        .map(|edit| match edit {
            HistoryEdit::Keep(index) => slots[index].take().unwrap_or_default(),
            HistoryEdit::Replace(_, message) | HistoryEdit::Insert(message) => message,
        })
        .collect()
}

/// A draft of the history: borrowed where untouched, with each entry's stored index.
struct Draft<'a> {
    messages: Vec<Cow<'a, ApiMessage>>,
    origin: Vec<Option<usize>>,
}

impl<'a> Draft<'a> {
    fn of(messages: &'a [ApiMessage]) -> Self {
        Draft {
            messages: messages.iter().map(Cow::Borrowed).collect(),
            origin: (0..messages.len()).map(Some).collect(),
        }
    }

    fn into_edits(self) -> Vec<HistoryEdit> {
        self.messages
            .into_iter()
            .zip(self.origin)
            .map(|(message, origin)| match (message, origin) {
                (Cow::Borrowed(_), Some(index)) => HistoryEdit::Keep(index),
                (Cow::Owned(message), Some(index)) => HistoryEdit::Replace(index, message),
                (message, None) => HistoryEdit::Insert(message.into_owned()),
            })
            .collect()
    }
}

/// Hides the older `fraction` of the visible messages (the first one always stays) behind a
/// marker. Visible = the effective history minus markers, so hidden or condensed messages are
/// never counted twice. Returns how many were hidden (even; 0 changes nothing).
fn slide_window(
    draft: &mut Draft<'_>,
    fraction: f64,
    truncation_id: &str,
    clock: &dyn Clock,
) -> usize {
    let visible: Vec<usize> = effective_api_history(&draft.messages)
        .source_indices
        .into_iter()
        .filter(|&index| !draft.messages[index].is_truncation_marker())
        .collect();
    if visible.is_empty() {
        return 0;
    }
    let raw = ((visible.len() - 1) as f64 * fraction).floor() as usize;
    let hidden = raw - raw % 2;
    if hidden == 0 {
        return 0;
    }
    for &index in &visible[1..=hidden] {
        draft.messages[index]
            .to_mut()
            .set_truncation_parent(truncation_id);
    }
    let insert_at = visible.get(hidden + 1).copied();
    let ts = insert_at
        .and_then(|index| draft.messages[index].ts())
        .filter(|ts| *ts != 0.0)
        .map_or(clock.now_ms() as f64 - 1.0, |ts| ts - 1.0);
    let mut marker = ApiMessage::new(Role::User, Value::String(truncation_marker_text(hidden)));
    marker.fields.insert("ts".into(), number(ts));
    marker
        .fields
        .insert("isTruncationMarker".into(), Value::Bool(true));
    marker.fields.insert(
        "truncationId".into(),
        Value::String(truncation_id.to_owned()),
    );
    let position = insert_at.unwrap_or(draft.messages.len());
    draft.messages.insert(position, Cow::Owned(marker));
    draft.origin.insert(position, None);
    hidden
}

/// The result of [`reduce_context`].
#[derive(Clone, Debug, PartialEq)]
pub enum Reduction {
    /// The history now fits the budget and is smaller than before.
    Fits {
        /// Edits to the stored history ([`apply_edits`]).
        edits: Vec<HistoryEdit>,
        /// Id of the truncation (of its marker, when messages were hidden).
        truncation_id: String,
        /// Messages hidden behind the marker (0 when only tool results were shrunk).
        messages_removed: usize,
        /// Tool results shrunk in place.
        tool_results_shrunk: usize,
        /// Model-facing tokens afterwards.
        new_context_tokens: u64,
    },
    /// Nothing that fits could be reached; the history stays as it was.
    Failed {
        /// [`recovery_failed_error`].
        error: String,
        /// What was tried, with the numbers.
        error_details: String,
    },
}

/// Sliding-window truncation with zero-progress recovery. `prev_context_tokens` is the size that
/// triggered it (for the error text); success needs the model-facing count to drop and to fit
/// `allowed_tokens`.
pub fn reduce_context(
    messages: &[ApiMessage],
    fixed_tokens: u64,
    prev_context_tokens: u64,
    allowed_tokens: u64,
    ids: &mut dyn IdSource,
    clock: &dyn Clock,
    counter: &dyn TokenCounter,
) -> Reduction {
    let tokens = HistoryTokens::new(messages, counter);
    reduce_context_with(
        messages,
        fixed_tokens,
        prev_context_tokens,
        allowed_tokens,
        ids,
        clock,
        &tokens,
    )
}

/// [`reduce_context`] counting through a per-call memo of `messages`.
pub(crate) fn reduce_context_with(
    messages: &[ApiMessage],
    fixed_tokens: u64,
    prev_context_tokens: u64,
    allowed_tokens: u64,
    ids: &mut dyn IdSource,
    clock: &dyn Clock,
    tokens: &HistoryTokens<'_>,
) -> Reduction {
    let counter = tokens.counter();
    let before = model_facing_tokens_with(messages, fixed_tokens, tokens);
    let truncation_id = ids.next_id();
    let mut draft = Draft::of(messages);
    let messages_removed = slide_window(&mut draft, TRUNCATION_FRACTION, &truncation_id, clock);
    let mut now = model_facing_tokens_with(&draft.messages, fixed_tokens, tokens);
    // Distinct tool results: one result cut in two rounds is one.
    let mut shrunk = BTreeSet::new();
    for _ in 0..RECOVERY_ROUNDS {
        if now <= allowed_tokens {
            break;
        }
        let visible: HashSet<usize> = effective_api_history(&draft.messages)
            .source_indices
            .into_iter()
            .collect();
        let edited = shrink_largest_texts(
            &mut draft.messages,
            &|index| visible.contains(&index),
            (now - allowed_tokens) as usize,
            ShrinkScope::ToolResults,
            counter,
        );
        if edited.is_empty() {
            break;
        }
        shrunk.extend(edited);
        now = model_facing_tokens_with(&draft.messages, fixed_tokens, tokens);
    }
    let tool_results_shrunk = shrunk.len();
    if now <= allowed_tokens && now < before {
        return Reduction::Fits {
            edits: draft.into_edits(),
            truncation_id,
            messages_removed,
            tool_results_shrunk,
            new_context_tokens: now,
        };
    }
    let error_details = if messages_removed == 0 && tool_results_shrunk == 0 {
        "Fallback truncation removed 0 messages and no eligible textual tool_result could be shrunk below its floor.".to_owned()
    } else if now > allowed_tokens {
        format!(
            "Fallback truncation would hide {messages_removed} messages and shrink {tool_results_shrunk} tool results, reaching {now} tokens (from {before}), still above the budget of {allowed_tokens} tokens; nothing was changed."
        )
    } else {
        // It would fit, but only because it was already small: hiding messages behind a marker
        // made nothing smaller.
        format!(
            "Fallback truncation would hide {messages_removed} messages and shrink {tool_results_shrunk} tool results, reaching {now} tokens (from {before}): the context would not get smaller; nothing was changed."
        )
    };
    Reduction::Failed {
        error: recovery_failed_error(prev_context_tokens, allowed_tokens),
        error_details,
    }
}

/// The sliding window alone (the original's `truncateConversation`): what it hid.
#[derive(Clone, Debug, PartialEq)]
pub struct FractionTruncation {
    /// The tagged history with its marker; exactly the input when nothing was hidden.
    pub messages: Vec<ApiMessage>,
    /// Messages hidden (even; 0 changes nothing).
    pub messages_removed: usize,
    /// Indices into `messages` of what the model still sees, the marker excluded.
    pub visible_indices: Vec<usize>,
}

/// Hides the older `fraction` of the visible messages (the first always stays) behind a marker
/// with `truncation_id`, with no budget and no recovery: the caller decided to truncate.
/// Visible, as in [`reduce_context`], is what the model sees minus markers, so messages already
/// hidden or condensed are never counted again.
pub fn truncate_by_fraction(
    messages: &[ApiMessage],
    fraction: f64,
    truncation_id: &str,
    clock: &dyn Clock,
) -> FractionTruncation {
    let fraction = if fraction.is_finite() {
        fraction.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let mut draft = Draft::of(messages);
    let messages_removed = slide_window(&mut draft, fraction, truncation_id, clock);
    let result = if messages_removed == 0 {
        messages.to_vec()
    } else {
        draft
            .messages
            .into_iter()
            .map(Cow::into_owned)
            .collect::<Vec<_>>()
    };
    let visible_indices = effective_api_history(&result)
        .source_indices
        .into_iter()
        .filter(|&index| !result[index].is_truncation_marker())
        .collect();
    FractionTruncation {
        messages: result,
        messages_removed,
        visible_indices,
    }
}
