//! The one owner of per-message token accounting: what the model sees of each message (spec §8.1).
//!
//! The core does not tokenize: a [`TokenCounter`] supplied by the caller (o200k_base from the
//! tokens crate, a host-provided count, or a test stub) counts text and images and may cache.

use std::cell::OnceCell;

use serde::Serialize;
use serde_json::Value;

use super::message::{ApiMessage, Block, Content, field};

/// Counts tokens of what the model sees. Implemented for any `Fn(&str) -> usize`.
pub trait TokenCounter {
    /// Tokens of a piece of text.
    fn count_text(&self, text: &str) -> usize;

    /// Tokens of an image given its base64 `data` (when the source has one): the original's
    /// estimate `ceil(sqrt(len(data)))`, or a flat 300 without data. Lengths are UTF-16 units.
    fn count_image(&self, data: Option<&str>) -> usize {
        match data {
            Some(data) => ceil_sqrt(data.encode_utf16().count()),
            None => 300,
        }
    }

    /// The final count of one content list from the sum of its blocks (the original's estimate
    /// multiplies by 1.5 and rounds up here; see [`Estimate`]). Identity by default.
    fn finish(&self, raw: usize) -> usize {
        raw
    }
}

impl<F: Fn(&str) -> usize> TokenCounter for F {
    fn count_text(&self, text: &str) -> usize {
        self(text)
    }
}

/// Wraps a counter to apply the original's fudge factor: `ceil(sum × 1.5)` per content list.
#[derive(Clone, Copy, Debug, Default)]
pub struct Estimate<C>(pub C);

impl<C: TokenCounter> TokenCounter for Estimate<C> {
    fn count_text(&self, text: &str) -> usize {
        self.0.count_text(text)
    }

    fn count_image(&self, data: Option<&str>) -> usize {
        self.0.count_image(data)
    }

    fn finish(&self, raw: usize) -> usize {
        let raw = self.0.finish(raw);
        raw.saturating_mul(3).div_ceil(2)
    }
}

/// Token counts of a list of messages.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenBreakdown {
    /// Sum of `per_message`.
    pub total: usize,
    /// Tokens of each message's content, in input order.
    pub per_message: Vec<usize>,
}

/// Tokens of every message's content (pass the effective history to count what the model sees).
pub fn history_token_breakdown<M: AsRef<ApiMessage>>(
    messages: &[M],
    counter: &dyn TokenCounter,
) -> TokenBreakdown {
    HistoryTokens::new(&[], counter).breakdown(messages)
}

/// A per-call memo of [`message_tokens`] for the messages of one stored history: each is counted
/// at most once however many passes (budget, request sizing, truncation) measure it. A message is
/// recognised by being an element of that history (derived lists borrow it); any other message
/// (an edited copy, a marker, an injected one) is counted afresh each time.
pub struct HistoryTokens<'a> {
    history: &'a [ApiMessage],
    counts: Vec<OnceCell<usize>>,
    counter: &'a dyn TokenCounter,
}

impl<'a> HistoryTokens<'a> {
    /// A memo for `history`, counting with `counter` on first use of each message.
    pub fn new(history: &'a [ApiMessage], counter: &'a dyn TokenCounter) -> Self {
        HistoryTokens {
            history,
            counts: (0..history.len()).map(|_| OnceCell::new()).collect(),
            counter,
        }
    }

    /// The counter behind the memo (for texts that are not whole messages).
    pub fn counter(&self) -> &'a dyn TokenCounter {
        self.counter
    }

    /// The position of `message` in the memo's history, when it is one of its elements.
    fn index_of(&self, message: &ApiMessage) -> Option<usize> {
        let size = std::mem::size_of::<ApiMessage>();
        let start = self.history.as_ptr() as usize;
        let offset = (message as *const ApiMessage as usize).checked_sub(start)?;
        let index = offset / size;
        (offset % size == 0 && index < self.history.len()).then_some(index)
    }

    /// [`message_tokens`] of one message, from the memo when it belongs to the history.
    pub fn message(&self, message: &ApiMessage) -> usize {
        match self.index_of(message) {
            Some(index) => {
                *self.counts[index].get_or_init(|| message_tokens(message, self.counter))
            }
            None => message_tokens(message, self.counter),
        }
    }

    /// [`history_token_breakdown`] through the memo.
    pub fn breakdown<M: AsRef<ApiMessage>>(&self, messages: &[M]) -> TokenBreakdown {
        let per_message: Vec<usize> = messages
            .iter()
            .map(|message| self.message(message.as_ref()))
            .collect();
        TokenBreakdown {
            total: per_message.iter().fold(0, |sum, n| sum.saturating_add(*n)),
            per_message,
        }
    }

    /// The `total` of [`HistoryTokens::breakdown`], without the per-message list.
    pub fn total<M: AsRef<ApiMessage>>(&self, messages: &[M]) -> usize {
        messages.iter().fold(0, |sum, message| {
            sum.saturating_add(self.message(message.as_ref()))
        })
    }
}

/// Tokens of one message's content (string content counts as one text block).
pub fn message_tokens(message: &ApiMessage, counter: &dyn TokenCounter) -> usize {
    content_tokens(field(&message.fields, "content"), counter)
}

/// Tokens of a raw `content` value: a string, an array of blocks, or anything else (0).
pub fn content_tokens(content: Option<&Value>, counter: &dyn TokenCounter) -> usize {
    match Content::view(content) {
        Content::Text(text) if !text.is_empty() => counter.finish(counter.count_text(text)),
        Content::Blocks(blocks) if !blocks.is_empty() => {
            let raw = blocks.iter().fold(0usize, |sum, block| {
                sum.saturating_add(block_tokens(block, counter))
            });
            counter.finish(raw)
        }
        _ => 0,
    }
}

/// Raw tokens of one block (before [`TokenCounter::finish`]); unknown block types count 0.
pub fn block_tokens(block: &Value, counter: &dyn TokenCounter) -> usize {
    match Block::view(block) {
        Block::Text { text } => text.map_or(0, |text| counter.count_text(text)),
        Block::Image { source } => {
            let data = source
                .and_then(Value::as_object)
                .and_then(|source| source.get("data"));
            match data {
                Some(data) => counter.count_image(Some(data.as_str().unwrap_or(""))),
                None => counter.count_image(None),
            }
        }
        Block::ToolUse { name, input, .. } => {
            counter.count_text(&tool_use_for_counting(name, input))
        }
        Block::ToolResult {
            tool_use_id,
            content,
            is_error,
        } => counter.count_text(&tool_result_for_counting(tool_use_id, content, is_error)),
        Block::Other { .. } => 0,
    }
}

/// `Tool: <name>` and, when there is an input, `\nArguments: <compact JSON>`.
fn tool_use_for_counting(name: Option<&str>, input: Option<&Value>) -> String {
    let mut text = format!("Tool: {}", name.unwrap_or("undefined"));
    if let Some(input) = input {
        text.push_str("\nArguments: ");
        // JSON.stringify's text: a lone surrogate is counted as its six-character escape.
        text.push_str(&crate::wire_text::stringified(
            serde_json::to_string(input).unwrap_or_else(|_| "[serialization error]".into()),
        ));
    }
    text
}

/// `Tool Result (<id>)`, `[Error]` when failed, then the content, one line per item.
fn tool_result_for_counting(
    tool_use_id: Option<&str>,
    content: Option<&Value>,
    is_error: bool,
) -> String {
    // The lines joined with `\n`, written straight into one buffer (no copy per line).
    let id = tool_use_id.unwrap_or("undefined");
    let content_len = match content {
        Some(Value::String(text)) => text.len() + 1,
        _ => 0,
    };
    let mut text = String::with_capacity(16 + id.len() + 8 + content_len);
    text.push_str("Tool Result (");
    text.push_str(id);
    text.push(')');
    if is_error {
        text.push_str("\n[Error]");
    }
    match content {
        Some(Value::String(line)) => {
            text.push('\n');
            text.push_str(line);
        }
        Some(Value::Array(items)) => {
            for item in items {
                text.push('\n');
                match Block::view(item) {
                    Block::Text { text: line } => text.push_str(line.unwrap_or("")),
                    Block::Image { .. } => text.push_str("[Image content]"),
                    Block::ToolUse { .. } => text.push_str("[Unsupported content block: tool_use]"),
                    Block::ToolResult { .. } => {
                        text.push_str("[Unsupported content block: tool_result]")
                    }
                    Block::Other { kind, .. } => {
                        text.push_str("[Unsupported content block: ");
                        text.push_str(kind.unwrap_or("undefined"));
                        text.push(']');
                    }
                }
            }
        }
        _ => {}
    }
    text
}

/// `ceil(sqrt(n))` in exact integer arithmetic.
fn ceil_sqrt(n: usize) -> usize {
    if n == 0 {
        return 0;
    }
    let mut root = (n as f64).sqrt() as usize;
    while root.saturating_mul(root) < n {
        root += 1;
    }
    while root > 0 && (root - 1).saturating_mul(root - 1) >= n {
        root -= 1;
    }
    root
}
