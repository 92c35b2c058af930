//! The original's per-block counting rules (`src/utils/tiktoken.ts`), on borrowed, serde-free parts.
//!
//! Text blocks count their tokens; an image counts `ceil(sqrt(len(data)))` (UTF-16 length of the
//! base64 string) or a flat 300 without data; tool_use and tool_result blocks count the tokens of
//! a fixed text serialization; other block types count 0. In [`CountMode::Estimate`] the sum is
//! multiplied by 1.5 and rounded up once, as the original does for a whole content array.

use crate::{count_exact, fudge};

/// Tokens the original charges for an image block whose source has no `data` field.
pub const IMAGE_WITHOUT_DATA_TOKENS: usize = 300;

/// How a content array is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CountMode {
    /// Exact o200k_base counts for text (images use the original's formula, unfudged).
    #[default]
    Exact,
    /// The original's estimate: the exact sum × 1.5, rounded up once (`Math.ceil(sum * 1.5)`).
    Estimate,
}

/// One content block of a message, borrowed from the caller's message model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentPart<'a> {
    /// A `text` block (a missing `text` field is the empty string).
    Text(&'a str),
    /// An `image` block. `data_len_utf16` is the length in UTF-16 code units (what JavaScript's
    /// `.length` returns) of `source.data`, or `None` when the source has no `data` field.
    /// [`ContentPart::image_from_data`] computes it from the string.
    Image {
        /// UTF-16 length of the base64 data, `None` when there is no `data` field.
        data_len_utf16: Option<usize>,
    },
    /// A `tool_use` block, counted as `Tool: <name>` + `\nArguments: <input_json>` when there is an
    /// input. The caller passes the compact JSON of `input` (JavaScript's `JSON.stringify`), or
    /// `[serialization error]` where that failed.
    ToolUse {
        /// The tool's name (`undefined` where the original would print a missing name).
        name: &'a str,
        /// Compact JSON of `input`, `None` when `input` is undefined.
        input_json: Option<&'a str>,
    },
    /// A `tool_result` block, counted as the lines `Tool Result (<id>)`, `[Error]` when
    /// `is_error`, then its content (see [`ToolResultContent`]), joined with `\n`.
    ToolResult {
        /// The `tool_use_id` field as printed by the original.
        tool_use_id: &'a str,
        /// Whether `is_error` is truthy.
        is_error: bool,
        /// The block's content.
        content: ToolResultContent<'a>,
    },
    /// Any other block type (thinking, document, unknown): counts 0, as in the original.
    Other,
}

impl<'a> ContentPart<'a> {
    /// An image block from its base64 data (`None` when the source has no `data` field).
    pub fn image_from_data(data: Option<&str>) -> ContentPart<'a> {
        ContentPart::Image {
            data_len_utf16: data.map(utf16_len),
        }
    }
}

/// The content of a `tool_result` block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolResultContent<'a> {
    /// No content, or content that is neither a string nor an array: adds no line.
    Missing,
    /// String content: one line (which may itself contain newlines).
    Text(&'a str),
    /// Array content: one line per item.
    Items(&'a [ToolResultItem<'a>]),
}

/// One item of a `tool_result` block's array content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolResultItem<'a> {
    /// A `text` item: its text (a missing `text` is the empty string).
    Text(&'a str),
    /// An `image` item: the line `[Image content]`.
    Image,
    /// Any other item: the line `[Unsupported content block: <type>]`; `None` prints `undefined`.
    Other {
        /// The item's `type` as JavaScript's `String(type)` would print it.
        block_type: Option<&'a str>,
    },
}

/// The length of `text` in UTF-16 code units, JavaScript's `string.length`.
pub fn utf16_len(text: &str) -> usize {
    if text.is_ascii() {
        return text.len();
    }
    text.chars().map(char::len_utf16).sum()
}

/// The original's raw image charge: `ceil(sqrt(data_len_utf16))`, or 300 without data.
///
/// Computed in `f64` like JavaScript's `Math.ceil(Math.sqrt(n))`, so results match bit for bit.
pub fn image_tokens(data_len_utf16: Option<usize>) -> usize {
    match data_len_utf16 {
        Some(len) => (len as f64).sqrt().ceil() as usize,
        None => IMAGE_WITHOUT_DATA_TOKENS,
    }
}

/// The text the original counts for a `tool_use` block.
pub fn tool_use_text(name: &str, input_json: Option<&str>) -> String {
    match input_json {
        Some(json) => format!("Tool: {name}\nArguments: {json}"),
        None => format!("Tool: {name}"),
    }
}

/// The text the original counts for a `tool_result` block.
pub fn tool_result_text(
    tool_use_id: &str,
    is_error: bool,
    content: &ToolResultContent<'_>,
) -> String {
    let mut text = format!("Tool Result ({tool_use_id})");
    if is_error {
        text.push_str("\n[Error]");
    }
    match content {
        ToolResultContent::Missing => {}
        ToolResultContent::Text(body) => {
            text.push('\n');
            text.push_str(body);
        }
        ToolResultContent::Items(items) => {
            for item in *items {
                text.push('\n');
                match item {
                    ToolResultItem::Text(body) => text.push_str(body),
                    ToolResultItem::Image => text.push_str("[Image content]"),
                    ToolResultItem::Other { block_type } => {
                        text.push_str("[Unsupported content block: ");
                        text.push_str(block_type.unwrap_or("undefined"));
                        text.push(']');
                    }
                }
            }
        }
    }
    text
}

/// Counts a content array with the original's rules (see the module docs), without a cache.
///
/// [`TokenCache::count_content`] does the same and remembers the count of each text.
pub fn count_content(parts: &[ContentPart<'_>], mode: CountMode) -> usize {
    count_content_with(parts, mode, count_exact)
}

/// [`count_content`] with the exact text counter supplied (plain or cached).
pub(crate) fn count_content_with(
    parts: &[ContentPart<'_>],
    mode: CountMode,
    count_text: impl Fn(&str) -> usize,
) -> usize {
    let raw = parts
        .iter()
        .map(|part| match part {
            ContentPart::Text(text) => count_text(text),
            ContentPart::Image { data_len_utf16 } => image_tokens(*data_len_utf16),
            ContentPart::ToolUse { name, input_json } => {
                count_text(&tool_use_text(name, *input_json))
            }
            ContentPart::ToolResult {
                tool_use_id,
                is_error,
                content,
            } => count_text(&tool_result_text(tool_use_id, *is_error, content)),
            ContentPart::Other => 0,
        })
        .fold(0usize, usize::saturating_add);
    match mode {
        CountMode::Exact => raw,
        CountMode::Estimate => fudge(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(parts: &[ContentPart<'_>], exact: usize, estimate: usize) {
        assert_eq!(
            count_content(parts, CountMode::Exact),
            exact,
            "exact of {parts:?}"
        );
        assert_eq!(
            count_content(parts, CountMode::Estimate),
            estimate,
            "estimate of {parts:?}"
        );
        let cache = crate::TokenCache::default();
        assert_eq!(
            cache.count_content(parts, CountMode::Estimate),
            estimate,
            "cold cache"
        );
        assert_eq!(
            cache.count_content(parts, CountMode::Estimate),
            estimate,
            "warm cache"
        );
        assert_eq!(
            cache.count_content(parts, CountMode::Exact),
            exact,
            "warm cache, exact"
        );
    }

    #[test]
    fn spec_known_values() {
        check(&[], 0, 0);
        check(&[ContentPart::Text("Hello world")], 2, 3);
        check(&[ContentPart::Text("")], 0, 0);
        let data = "A".repeat(1000);
        check(&[ContentPart::image_from_data(Some(&data))], 32, 48);
        check(&[ContentPart::image_from_data(None)], 300, 450);
        check(&[ContentPart::Other], 0, 0);
    }

    #[test]
    fn fudge_applies_once_to_the_sum_not_per_block() {
        // 2 + 2 = 4 → 6; per block it would be 3 + 3.
        check(
            &[
                ContentPart::Text("Hello world"),
                ContentPart::Text("Hello world"),
            ],
            4,
            6,
        );
        // 1 + 1 = 2 → 3; per block it would be 2 + 2.
        check(
            &[ContentPart::Text("hello"), ContentPart::Text("hello")],
            2,
            3,
        );
    }

    #[test]
    fn image_formula_matches_javascript() {
        for (len, expected) in [
            (0, 0),
            (1, 1),
            (2, 2),
            (4, 2),
            (5, 3),
            (1000, 32),
            (1024, 32),
            (1025, 33),
        ] {
            assert_eq!(image_tokens(Some(len)), expected, "image_tokens({len})");
        }
        assert_eq!(image_tokens(None), 300);
    }

    #[test]
    fn image_length_is_counted_in_utf16_units() {
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("😀"), 2);
        assert_eq!(
            ContentPart::image_from_data(Some("😀😀")),
            ContentPart::Image {
                data_len_utf16: Some(4)
            }
        );
    }

    #[test]
    fn tool_use_serialization() {
        assert_eq!(tool_use_text("read_file", None), "Tool: read_file");
        assert_eq!(
            tool_use_text("read_file", Some(r#"{"path":"a.rs"}"#)),
            "Tool: read_file\nArguments: {\"path\":\"a.rs\"}"
        );
        let part = ContentPart::ToolUse {
            name: "read_file",
            input_json: Some(r#"{"path":"a.rs"}"#),
        };
        let raw = count_exact("Tool: read_file\nArguments: {\"path\":\"a.rs\"}");
        check(&[part], raw, fudge(raw));
    }

    #[test]
    fn tool_result_serialization() {
        let items = [
            ToolResultItem::Text("line one"),
            ToolResultItem::Text(""),
            ToolResultItem::Image,
            ToolResultItem::Other {
                block_type: Some("document"),
            },
            ToolResultItem::Other { block_type: None },
        ];
        for (id, is_error, content, expected) in [
            ("t1", false, ToolResultContent::Missing, "Tool Result (t1)"),
            (
                "t1",
                true,
                ToolResultContent::Missing,
                "Tool Result (t1)\n[Error]",
            ),
            (
                "t2",
                false,
                ToolResultContent::Text("ok"),
                "Tool Result (t2)\nok",
            ),
            (
                "t2",
                true,
                ToolResultContent::Text(""),
                "Tool Result (t2)\n[Error]\n",
            ),
            (
                "t3",
                false,
                ToolResultContent::Items(&items),
                "Tool Result (t3)\nline one\n\n[Image content]\n[Unsupported content block: document]\n[Unsupported content block: undefined]",
            ),
            (
                "t4",
                false,
                ToolResultContent::Items(&[]),
                "Tool Result (t4)",
            ),
        ] {
            assert_eq!(tool_result_text(id, is_error, &content), expected);
            let raw = count_exact(expected);
            check(
                &[ContentPart::ToolResult {
                    tool_use_id: id,
                    is_error,
                    content,
                }],
                raw,
                fudge(raw),
            );
        }
    }
}
