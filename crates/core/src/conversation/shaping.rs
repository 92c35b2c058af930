//! Request shaping that is never persisted: merging consecutive messages, synthetic tool results,
//! tool blocks as text and command blocks for the summarization request (spec §3.4, §3.6, §3.7, §7.1).

use std::borrow::Cow;
use std::collections::HashSet;

use serde_json::{Map, Number, Value, json};

use super::Clock;
use super::effective::DerivedHistory;
use super::message::{ApiMessage, Block, Content, Role, SYNTHETIC_TOOL_RESULT_TEXT, is_truthy};

/// Placeholder for an image when the summarizing model cannot take images.
pub const IMAGE_PLACEHOLDER_TEXT: &str = "[Referenced image in conversation]";

/// `mergeConsecutiveApiMessages`: joins consecutive messages of the same role (when the role is in
/// `roles`) into one, for the API request only (spec §7.1).
///
/// A message is merged into the previous one iff both have the same role, the role is in `roles`,
/// the current message is not a summary and neither is a truncation marker. Contents are
/// normalized to block arrays and concatenated; every other field comes from the earlier message;
/// `ts` becomes the larger of the two. Deviation: a message whose content is neither a string, an
/// array nor absent is never merged (merging would drop it).
pub fn merge_consecutive_api_messages<'a, M: AsRef<ApiMessage>>(
    messages: &'a [M],
    roles: &[Role],
) -> DerivedHistory<'a> {
    let mut merged: Vec<Cow<'a, ApiMessage>> = Vec::with_capacity(messages.len());
    let mut changed = false;
    for message in messages {
        let current = message.as_ref();
        if let Some(previous) = merged.last_mut()
            && can_merge(previous, current, roles)
        {
            merge_into(previous.to_mut(), current);
            changed = true;
            continue;
        }
        merged.push(Cow::Borrowed(current));
    }
    DerivedHistory {
        messages: merged,
        changed,
    }
}

fn can_merge(previous: &ApiMessage, current: &ApiMessage, roles: &[Role]) -> bool {
    let Some(role) = current.role() else {
        return false;
    };
    previous.role() == Some(role)
        && roles.contains(&role)
        && !current.is_summary()
        && !previous.is_truncation_marker()
        && !current.is_truncation_marker()
        && !matches!(previous.content(), Content::Other(_))
        && !matches!(current.content(), Content::Other(_))
}

fn merge_into(previous: &mut ApiMessage, current: &ApiMessage) {
    let mut blocks = content_as_blocks(previous.content());
    blocks.extend(content_as_blocks(current.content()));
    previous.set_content(Value::Array(blocks));

    let (earlier, later) = (previous.ts().unwrap_or(0.0), current.ts().unwrap_or(0.0));
    let maximum = earlier.max(later);
    let ts = if maximum != 0.0 && !maximum.is_nan() {
        if later > earlier {
            current.fields.get("ts").cloned()
        } else {
            previous.fields.get("ts").cloned()
        }
    } else if previous.fields.get("ts").is_some_and(is_truthy) {
        previous.fields.get("ts").cloned()
    } else {
        current.fields.get("ts").cloned().filter(|ts| !ts.is_null())
    };
    match ts {
        Some(ts) => {
            previous.fields.insert("ts".into(), ts);
        }
        None => {
            previous.remove_field("ts");
        }
    }
}

fn content_as_blocks(content: Content<'_>) -> Vec<Value> {
    match content {
        Content::Missing | Content::Other(_) => Vec::new(),
        Content::Text(text) => vec![json!({"type": "text", "text": text})],
        Content::Blocks(blocks) => blocks.to_vec(),
    }
}

/// `injectSyntheticToolResults`: when some `tool_use` (in an assistant message) has no
/// `tool_result` anywhere (in a user message), appends one user message answering each of them,
/// in first-seen order, with [`SYNTHETIC_TOOL_RESULT_TEXT`] and `ts` = `clock.now_ms()` (spec §3.6).
pub fn inject_synthetic_tool_results<'a, M: AsRef<ApiMessage>>(
    messages: &'a [M],
    clock: &dyn Clock,
) -> DerivedHistory<'a> {
    let mut answered: HashSet<&str> = HashSet::new();
    for message in messages.iter().map(AsRef::as_ref).filter(|m| m.is_user()) {
        for block in message.blocks() {
            if let Block::ToolResult {
                tool_use_id: Some(id),
                ..
            } = Block::view(block)
            {
                answered.insert(id);
            }
        }
    }
    let mut orphans: Vec<&str> = Vec::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for message in messages
        .iter()
        .map(AsRef::as_ref)
        .filter(|m| m.is_assistant())
    {
        for block in message.blocks() {
            if let Block::ToolUse { id: Some(id), .. } = Block::view(block)
                && !answered.contains(id)
                && seen.insert(id)
            {
                orphans.push(id);
            }
        }
    }
    let mut result: Vec<Cow<'a, ApiMessage>> =
        messages.iter().map(|m| Cow::Borrowed(m.as_ref())).collect();
    if orphans.is_empty() {
        return DerivedHistory {
            messages: result,
            changed: false,
        };
    }
    let answers: Vec<Value> = orphans
        .iter()
        .map(|id| json!({"type": "tool_result", "tool_use_id": id, "content": SYNTHETIC_TOOL_RESULT_TEXT}))
        .collect();
    let mut message = ApiMessage::new(Role::User, Value::Array(answers));
    message
        .fields
        .insert("ts".into(), Value::Number(clock.now_ms().into()));
    result.push(Cow::Owned(message));
    DerivedHistory {
        messages: result,
        changed: true,
    }
}

/// `toolUseToText`: `[Tool Use: <name>]` then one `key: value` line per input key (spec §3.4).
pub fn tool_use_to_text(name: Option<&str>, input: Option<&Value>) -> String {
    let name = name.unwrap_or("undefined");
    let body = match input {
        Some(Value::Object(object)) => object
            .iter()
            .map(|(key, value)| format!("{key}: {}", js_value_for_line(value)))
            .collect::<Vec<_>>()
            .join("\n"),
        // Arrays are objects in JavaScript: their keys are the indices.
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(index, value)| format!("{index}: {}", js_value_for_line(value)))
            .collect::<Vec<_>>()
            .join("\n"),
        Some(scalar) => js_string(scalar),
        None => "undefined".to_string(),
    };
    format!("[Tool Use: {name}]\n{body}")
}

/// `toolResultToText`: `[Tool Result]` or `[Tool Result (Error)]`, then the content (spec §3.4).
pub fn tool_result_to_text(content: Option<&Value>, is_error: bool) -> String {
    let header = if is_error {
        "[Tool Result (Error)]"
    } else {
        "[Tool Result]"
    };
    match content {
        Some(Value::String(text)) => format!("{header}\n{text}"),
        Some(Value::Array(items)) => {
            let lines: Vec<Cow<'_, str>> = items
                .iter()
                .map(|item| match Block::view(item) {
                    Block::Text { text } => Cow::Borrowed(text.unwrap_or("")),
                    Block::Image { .. } => Cow::Borrowed("[Image]"),
                    Block::ToolUse { .. } => Cow::Borrowed("[tool_use]"),
                    Block::ToolResult { .. } => Cow::Borrowed("[tool_result]"),
                    Block::Other { kind, .. } => {
                        Cow::Owned(format!("[{}]", kind.unwrap_or("undefined")))
                    }
                })
                .collect();
            format!("{header}\n{}", lines.join("\n"))
        }
        _ => header.to_string(),
    }
}

/// `convertToolBlocksToText`: `tool_use` and `tool_result` blocks become text blocks; every other
/// block and string content is returned unchanged. `None` when nothing needed converting.
pub fn convert_tool_blocks_to_text(content: &Value) -> Option<Value> {
    let Value::Array(blocks) = content else {
        return None;
    };
    let mut converted = false;
    let blocks: Vec<Value> = blocks
        .iter()
        .map(|block| match Block::view(block) {
            Block::ToolUse { name, input, .. } => {
                converted = true;
                json!({"type": "text", "text": tool_use_to_text(name, input)})
            }
            Block::ToolResult {
                content, is_error, ..
            } => {
                converted = true;
                json!({"type": "text", "text": tool_result_to_text(content, is_error)})
            }
            _ => block.clone(),
        })
        .collect();
    converted.then_some(Value::Array(blocks))
}

/// `transformMessagesForCondensing`: every message with its tool blocks as text; other fields kept.
pub fn transform_messages_for_condensing<'a, M: AsRef<ApiMessage>>(
    messages: &'a [M],
) -> DerivedHistory<'a> {
    map_contents(messages, convert_tool_blocks_to_text)
}

/// Replaces every top-level `image` block with a text block `placeholder` (normally
/// [`IMAGE_PLACEHOLDER_TEXT`]), for a summarizer without image support. Images nested inside
/// tool results are left alone, like the original.
pub fn replace_image_blocks<'a, M: AsRef<ApiMessage>>(
    messages: &'a [M],
    placeholder: &str,
) -> DerivedHistory<'a> {
    map_contents(messages, |content| {
        let blocks = content.as_array()?;
        if !blocks
            .iter()
            .any(|block| matches!(Block::view(block), Block::Image { .. }))
        {
            return None;
        }
        Some(Value::Array(
            blocks
                .iter()
                .map(|block| match Block::view(block) {
                    Block::Image { .. } => json!({"type": "text", "text": placeholder}),
                    _ => block.clone(),
                })
                .collect(),
        ))
    })
}

fn map_contents<'a, M: AsRef<ApiMessage>>(
    messages: &'a [M],
    mut convert: impl FnMut(&Value) -> Option<Value>,
) -> DerivedHistory<'a> {
    let mut changed = false;
    let messages = messages
        .iter()
        .map(|message| {
            let message = message.as_ref();
            match message.fields.get("content").and_then(&mut convert) {
                Some(content) => {
                    changed = true;
                    let mut copy = message.clone();
                    copy.set_content(content);
                    Cow::Owned(copy)
                }
                None => Cow::Borrowed(message),
            }
        })
        .collect();
    DerivedHistory { messages, changed }
}

/// Strips a message down to `{role, content}` (the summarization request's shape).
pub fn role_and_content_only(message: &ApiMessage) -> ApiMessage {
    let mut fields = Map::new();
    for key in ["role", "content"] {
        if let Some(value) = message.fields.get(key) {
            fields.insert(key.into(), value.clone());
        }
    }
    ApiMessage { fields }
}

/// `extractCommandBlocks`: every `<command...>...</command>` block of a message's text (string
/// content, or its text blocks joined with `\n`), joined with `\n`; `""` when none (spec §3.7).
pub fn extract_command_blocks(message: &ApiMessage) -> String {
    let text: Cow<'_, str> = match message.content() {
        Content::Text(text) => Cow::Borrowed(text),
        Content::Blocks(blocks) => Cow::Owned(
            blocks
                .iter()
                .filter_map(|block| match Block::view(block) {
                    Block::Text { text } => Some(text.unwrap_or("")),
                    _ => None,
                })
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        Content::Missing | Content::Other(_) => return String::new(),
    };
    find_command_blocks(&text).join("\n")
}

/// The non-overlapping matches of `<command[^>]*>[\s\S]*?</command>`, in linear time.
fn find_command_blocks(text: &str) -> Vec<&str> {
    const OPEN: &str = "<command";
    const CLOSE: &str = "</command>";
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(offset) = text[from..].find(OPEN) {
        let start = from + offset;
        // `[^>]*>` can only end at the first `>` after the tag name.
        let Some(gt) = text[start + OPEN.len()..].find('>') else {
            break;
        };
        let body = start + OPEN.len() + gt + 1;
        // The shortest body ends at the first closing tag; no later start can do better.
        let Some(close) = text[body..].find(CLOSE) else {
            break;
        };
        let end = body + close + CLOSE.len();
        found.push(&text[start..end]);
        from = end;
    }
    found
}

/// A value on a `key: value` line: pretty JSON for objects and arrays, `String(x)` otherwise.
fn js_value_for_line(value: &Value) -> String {
    match value {
        Value::Object(_) | Value::Array(_) => serde_json::to_string_pretty(value)
            .map(crate::wire_text::stringified)
            .unwrap_or_else(|_| js_string(value)),
        scalar => js_string(scalar),
    }
}

/// JavaScript's `String(x)` for a JSON value (the one owner of this rule in the core).
pub(crate) fn js_string(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(flag) => flag.to_string(),
        Value::Number(number) => js_number(number),
        Value::String(text) => text.clone(),
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::Null => String::new(),
                other => js_string(other),
            })
            .collect::<Vec<_>>()
            .join(","),
        Value::Object(_) => "[object Object]".into(),
    }
}

fn js_number(number: &Number) -> String {
    match number.as_f64() {
        Some(float) if number.is_f64() && float.fract() == 0.0 && float.abs() < 1e21 => {
            // `String(400.0)` is "400"; adding +0 turns -0 into 0, as `String(-0)` prints "0".
            format!("{:.0}", float + 0.0)
        }
        _ => number.to_string(),
    }
}
