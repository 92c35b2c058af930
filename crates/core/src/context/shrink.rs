//! The one owner of shrinking text in place (PR #1617's `shrinkOversizedToolResults`, with the
//! notice's own tokens reserved): used by zero-progress recovery and by the summarize-request size
//! check. Shrinking keeps every block's shape (a `tool_result` keeps its `tool_use_id`, an array
//! item keeps its other fields) so tool pairs stay valid.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::conversation::{ApiMessage, Block, TokenCounter};

/// Texts at or below this many UTF-16 code units are never shrunk, and none is shrunk below it.
pub const TOOL_RESULT_SHRINK_FLOOR_CHARS: usize = 200;

const TOOL_NOTICE_PREFIX: &str = "\n[Tool result truncated: ";
const TOOL_NOTICE_SUFFIX: &str = " characters removed to fit the context budget]";
const TEXT_NOTICE_PREFIX: &str = "\n[Text truncated: ";
const TEXT_NOTICE_SUFFIX: &str = " characters removed to fit the summarizer's context window]";

/// The notice appended to a shrunk tool result.
pub fn tool_result_shrink_notice(removed_chars: u64) -> String {
    format!("{TOOL_NOTICE_PREFIX}{removed_chars}{TOOL_NOTICE_SUFFIX}")
}

/// Which texts may be shrunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShrinkScope {
    /// Textual `tool_result` contents only (string content, or `text` items of array content).
    ToolResults,
    /// Tool results and every other text (string contents, `text` blocks): the summarize request's
    /// last resort.
    AllText,
}

#[derive(Clone, Copy, Debug)]
enum Location {
    ContentString,
    TextBlock(usize),
    ToolResultString(usize),
    ToolResultItem(usize, usize),
}

impl Location {
    /// The content block holding the text (`None` for string content).
    fn block(self) -> Option<usize> {
        match self {
            Location::ContentString => None,
            Location::TextBlock(block)
            | Location::ToolResultString(block)
            | Location::ToolResultItem(block, _) => Some(block),
        }
    }

    fn is_tool_result(self) -> bool {
        matches!(
            self,
            Location::ToolResultString(_) | Location::ToolResultItem(..)
        )
    }
}

struct Candidate<'t> {
    message: usize,
    location: Location,
    tokens: usize,
    /// The text without an earlier notice.
    base: &'t str,
    /// Its length in UTF-16 code units.
    length: usize,
    /// Characters an earlier notice says were removed.
    previously_removed: u64,
}

fn text_at(message: &ApiMessage, location: Location) -> Option<&str> {
    let content = message.fields.get("content")?;
    match location {
        Location::ContentString => content.as_str(),
        Location::TextBlock(block) => content.get(block)?.get("text")?.as_str(),
        Location::ToolResultString(block) => content.get(block)?.get("content")?.as_str(),
        Location::ToolResultItem(block, item) => content
            .get(block)?
            .get("content")?
            .get(item)?
            .get("text")?
            .as_str(),
    }
}

/// One step of the path from a message's fields to a text.
#[derive(Clone, Copy)]
enum Step {
    Key(&'static str),
    Index(usize),
}

fn path(location: Location) -> Vec<Step> {
    let content = Step::Key("content");
    match location {
        Location::ContentString => vec![content],
        Location::TextBlock(block) => vec![content, Step::Index(block), Step::Key("text")],
        Location::ToolResultString(block) => {
            vec![content, Step::Index(block), Step::Key("content")]
        }
        Location::ToolResultItem(block, item) => vec![
            content,
            Step::Index(block),
            Step::Key("content"),
            Step::Index(item),
            Step::Key("text"),
        ],
    }
}

/// A copy of `map` with the value at `path` (which exists) replaced by `new`, without copying
/// the value it replaces; keys keep their order.
fn map_replacing(
    map: &Map<String, Value>,
    path: &[Step],
    new: &mut Option<Value>,
) -> Map<String, Value> {
    let (Some(Step::Key(target)), rest) = (path.first(), path.get(1..).unwrap_or_default()) else {
        return map.clone();
    };
    let mut copy = Map::with_capacity(map.len());
    for (key, value) in map {
        let value = if key == target {
            value_replacing(value, rest, new)
        } else {
            value.clone()
        };
        copy.insert(key.clone(), value);
    }
    copy
}

fn value_replacing(value: &Value, path: &[Step], new: &mut Option<Value>) -> Value {
    match (path.first(), value) {
        (None, _) => new.take().unwrap_or_else(|| value.clone()),
        (Some(Step::Key(_)), Value::Object(map)) => Value::Object(map_replacing(map, path, new)),
        (Some(Step::Index(target)), Value::Array(items)) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(index, item)| {
                    if index == *target {
                        value_replacing(item, &path[1..], new)
                    } else {
                        item.clone()
                    }
                })
                .collect(),
        ),
        _ => value.clone(),
    }
}

/// Puts `text` at `location` (where a text is). A borrowed message becomes an owned copy made
/// without copying the text it replaces.
fn replace_text(message: &mut Cow<'_, ApiMessage>, location: Location, text: String) {
    match message {
        Cow::Borrowed(original) => {
            let fields = map_replacing(
                &original.fields,
                &path(location),
                &mut Some(Value::String(text)),
            );
            *message = Cow::Owned(ApiMessage { fields });
        }
        Cow::Owned(owned) => {
            if let Some(slot) = slot_at(owned, location) {
                *slot = Value::String(text);
            }
        }
    }
}

fn slot_at(message: &mut ApiMessage, location: Location) -> Option<&mut Value> {
    let content = message.fields.get_mut("content")?;
    match location {
        Location::ContentString => Some(content),
        Location::TextBlock(block) => content.get_mut(block)?.get_mut("text"),
        Location::ToolResultString(block) => content.get_mut(block)?.get_mut("content"),
        Location::ToolResultItem(block, item) => content
            .get_mut(block)?
            .get_mut("content")?
            .get_mut(item)?
            .get_mut("text"),
    }
}

fn locations(message: &ApiMessage, scope: ShrinkScope) -> Vec<Location> {
    let mut found = Vec::new();
    // A tool result the model sees as a hygiene placeholder (issue 31) is not shrunk: its stored
    // bytes are not what the model sees, so cutting them frees nothing and loses what the
    // placeholder promises is kept.
    let shaped = |block: &Value| match Block::view(block) {
        Block::ToolResult {
            tool_use_id: Some(id),
            ..
        } => super::hygiene::has_placeholder(message, id),
        _ => false,
    };
    match message.fields.get("content") {
        Some(Value::String(_)) if scope == ShrinkScope::AllText => {
            found.push(Location::ContentString)
        }
        Some(Value::Array(blocks)) => {
            for (index, block) in blocks.iter().enumerate() {
                if shaped(block) {
                    continue;
                }
                match Block::view(block) {
                    Block::Text { text: Some(_) } if scope == ShrinkScope::AllText => {
                        found.push(Location::TextBlock(index))
                    }
                    Block::ToolResult {
                        content: Some(Value::String(_)),
                        ..
                    } => found.push(Location::ToolResultString(index)),
                    Block::ToolResult {
                        content: Some(Value::Array(items)),
                        ..
                    } => {
                        for (item_index, item) in items.iter().enumerate() {
                            if let Block::Text { text: Some(_) } = Block::view(item) {
                                found.push(Location::ToolResultItem(index, item_index));
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    found
}

/// Splits an earlier notice off a text: (text before it, characters it says were removed).
fn split_notice(text: &str) -> (&str, u64) {
    for (prefix, suffix) in [
        (TOOL_NOTICE_PREFIX, TOOL_NOTICE_SUFFIX),
        (TEXT_NOTICE_PREFIX, TEXT_NOTICE_SUFFIX),
    ] {
        if let Some(head) = text.strip_suffix(suffix)
            && let Some(start) = head.rfind(prefix)
            && let Ok(removed) = head[start + prefix.len()..].parse::<u64>()
        {
            return (&text[..start], removed);
        }
    }
    (text, 0)
}

fn notice(location: Location, removed: u64) -> String {
    if location.is_tool_result() {
        tool_result_shrink_notice(removed)
    } else {
        format!("{TEXT_NOTICE_PREFIX}{removed}{TEXT_NOTICE_SUFFIX}")
    }
}

/// Length of `text` in UTF-16 code units (`encode_utf16().count()`, counted over the bytes: every
/// byte but continuation bytes starts a character, and 4-byte characters take two units).
fn utf16_len(text: &str) -> usize {
    if text.is_ascii() {
        return text.len();
    }
    // At most 2 units per byte, so a chunk of 127 bytes sums within a `u8` (which vectorizes).
    text.as_bytes()
        .chunks(127)
        .map(|chunk| {
            let units = chunk.iter().fold(0u8, |units, &byte| {
                units + u8::from(byte & 0xC0 != 0x80) + u8::from(byte >= 0xF0)
            });
            usize::from(units)
        })
        .sum()
}

/// The shortest prefix of `text` with at least `units` UTF-16 code units, never splitting a
/// character (so a cut at the floor keeps the floor).
fn utf16_prefix(text: &str, units: usize) -> &str {
    let mut used = 0;
    for (index, ch) in text.char_indices() {
        if used >= units {
            return &text[..index];
        }
        used += ch.len_utf16();
    }
    text
}

/// Raw (pre-[`TokenCounter::finish`]) tokens that free at least `finished` finished tokens.
fn raw_tokens_for(finished: usize, counter: &dyn TokenCounter) -> usize {
    let (mut low, mut high) = (0usize, finished);
    if counter.finish(high) < finished {
        return high;
    }
    while low < high {
        let middle = low + (high - low) / 2;
        if counter.finish(middle) >= finished {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    low
}

/// One content block whose text was shortened: a tool result (or a text) is one block, however
/// many of its texts were cut and however many rounds cut it, so callers count distinct blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ShrunkBlock {
    /// Index of the message.
    pub message: usize,
    /// Index of the content block (`None` for string content).
    pub block: Option<usize>,
}

/// Shrinks the largest eligible texts of `messages[i]` (for `eligible(i)`) until about
/// `tokens_to_free` tokens are saved; returns the blocks edited (each once). Edited messages become
/// owned copies; the others stay borrowed. Callers re-measure: this is an estimate.
pub fn shrink_largest_texts(
    messages: &mut [Cow<'_, ApiMessage>],
    eligible: &dyn Fn(usize) -> bool,
    tokens_to_free: usize,
    scope: ShrinkScope,
    counter: &dyn TokenCounter,
) -> Vec<ShrunkBlock> {
    if tokens_to_free == 0 {
        return Vec::new();
    }
    let mut candidates = Vec::new();
    for (index, message) in messages.iter().enumerate() {
        if !eligible(index) {
            continue;
        }
        for location in locations(message, scope) {
            let Some(text) = text_at(message, location) else {
                continue;
            };
            let (base, previously_removed) = split_notice(text);
            if base.len() <= TOOL_RESULT_SHRINK_FLOOR_CHARS
                && utf16_len(base) <= TOOL_RESULT_SHRINK_FLOOR_CHARS
            {
                continue;
            }
            candidates.push(Candidate {
                message: index,
                location,
                tokens: counter.count_text(base),
                // Measured now, while the text is in cache.
                length: utf16_len(base),
                base,
                previously_removed,
            });
        }
    }
    // Largest first; the sort is stable, so equal sizes keep history order.
    candidates.sort_by_key(|candidate| std::cmp::Reverse(candidate.tokens));

    // Plan every cut first (each candidate is a different text, so one cut never changes
    // another's input), then apply them.
    let mut remaining = raw_tokens_for(tokens_to_free, counter);
    let mut cuts: Vec<(usize, Location, String)> = Vec::new();
    for candidate in candidates {
        if remaining == 0 {
            break;
        }
        let Candidate {
            base,
            length,
            previously_removed,
            ..
        } = candidate;
        let chars_per_token = length as f64 / candidate.tokens.max(1) as f64;
        let notice_tokens = counter.count_text(&notice(
            candidate.location,
            previously_removed + length as u64,
        ));
        let keep_tokens = candidate
            .tokens
            .saturating_sub(remaining.saturating_add(notice_tokens))
            .max(1);
        let keep_chars = ((keep_tokens as f64 * chars_per_token).floor() as usize)
            .max(TOOL_RESULT_SHRINK_FLOOR_CHARS);
        if keep_chars >= length {
            continue;
        }
        let kept = utf16_prefix(base, keep_chars);
        let removed = length.saturating_sub(utf16_len(kept));
        if removed == 0 {
            continue;
        }
        let freed =
            ((removed as f64 / chars_per_token).floor() as usize).saturating_sub(notice_tokens);
        if freed == 0 {
            // The notice would cost as much as the cut saves.
            continue;
        }
        let new_text = format!(
            "{kept}{}",
            notice(candidate.location, previously_removed + removed as u64)
        );
        cuts.push((candidate.message, candidate.location, new_text));
        remaining = remaining.saturating_sub(freed);
    }
    let mut edited: Vec<ShrunkBlock> = cuts
        .iter()
        .map(|(message, location, _)| ShrunkBlock {
            message: *message,
            block: location.block(),
        })
        .collect();
    edited.sort_unstable();
    edited.dedup();
    for (message, location, text) in cuts {
        replace_text(&mut messages[message], location, text);
    }
    edited
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn utf16_len_matches_encode_utf16() {
        let long = "é日本😀a".repeat(100);
        for text in [
            "",
            "plain ascii",
            "é",
            "日本語",
            "😀 emoji 😀",
            "mixed é 😀 x",
            &long,
        ] {
            assert_eq!(utf16_len(text), text.encode_utf16().count(), "{text}");
        }
    }

    #[test]
    fn replacing_a_borrowed_text_equals_editing_a_copy() {
        let message: ApiMessage = serde_json::from_value(json!({
            "role": "user",
            "content": [
                {"type": "text", "text": "before"},
                {"type": "tool_result", "tool_use_id": "t1", "content": [
                    {"type": "image", "source": {"data": "AAAA"}},
                    {"type": "text", "text": "old", "extra": 1}
                ], "is_error": false}
            ],
            "ts": 5
        }))
        .unwrap();
        for location in [Location::TextBlock(0), Location::ToolResultItem(1, 1)] {
            let mut expected = message.clone();
            *slot_at(&mut expected, location).unwrap() = Value::String("new".into());
            let mut edited = Cow::Borrowed(&message);
            replace_text(&mut edited, location, "new".into());
            assert_eq!(
                serde_json::to_string(edited.as_ref()).unwrap(),
                serde_json::to_string(&expected).unwrap()
            );
        }
    }
}
