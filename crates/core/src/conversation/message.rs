//! The persisted `ApiMessage` shape, kept as raw JSON so every unknown field and block survives untouched.
//!
//! A message is a JSON object viewed through typed accessors rather than deserialized into a
//! struct: a typed struct with `#[serde(flatten)]` extras would reorder keys and rewrite numbers
//! (`1.0` vs `1`), and the host must get back exactly what it sent.
//!
//! Unknown fields and key order round-trip; numbers round-trip by value, integers staying
//! integers and floats floats, but not their spelling: `1e5` comes back `100000.0`, `1.50` as
//! `1.5`, `-0` as `-0.0` (moved from ARCHITECTURE.md's code map).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Synthetic text of a tool result injected for a `tool_use` that never got an answer.
pub const SYNTHETIC_TOOL_RESULT_TEXT: &str =
    "Context condensation triggered. Tool execution deferred.";

/// One entry of the stored API conversation history (`api_conversation_history.json`).
///
/// The fields are the raw JSON object, in the host's key order. Known fields are read through
/// accessors; edits go through methods that keep every other key where it was.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ApiMessage {
    /// The raw JSON object, in the host's key order.
    pub fields: Map<String, Value>,
}

impl AsRef<ApiMessage> for ApiMessage {
    fn as_ref(&self) -> &ApiMessage {
        self
    }
}

impl From<Map<String, Value>> for ApiMessage {
    fn from(fields: Map<String, Value>) -> Self {
        ApiMessage { fields }
    }
}

/// The two roles the API history knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// `"user"`: the human, tool results, summaries and truncation markers.
    User,
    /// `"assistant"`: the model, including `tool_use` blocks.
    Assistant,
}

impl Role {
    /// The wire spelling of the role.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// A borrowed view of a message's `content` field.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Content<'a> {
    /// The field is absent (or `null`).
    Missing,
    /// A plain string.
    Text(&'a str),
    /// An array of content blocks (each is raw JSON, normally an object with a `type`).
    Blocks(&'a [Value]),
    /// Anything else (a number, an object...): odd input, kept untouched.
    Other(&'a Value),
}

impl<'a> Content<'a> {
    /// Views a raw `content` value.
    pub fn view(raw: Option<&'a Value>) -> Self {
        match raw {
            None | Some(Value::Null) => Content::Missing,
            Some(Value::String(text)) => Content::Text(text),
            Some(Value::Array(blocks)) => Content::Blocks(blocks),
            Some(other) => Content::Other(other),
        }
    }
}

/// A borrowed view of one content block, by its `type`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Block<'a> {
    /// `{type:"text", text}`; `text` is `None` when absent or not a string.
    Text {
        /// The text, when it is a string.
        text: Option<&'a str>,
    },
    /// `{type:"image", source}`.
    Image {
        /// The `source` object (`{type:"base64", media_type, data}` or another kind).
        source: Option<&'a Value>,
    },
    /// `{type:"tool_use", id, name, input}` (assistant).
    ToolUse {
        /// The call id, when it is a string.
        id: Option<&'a str>,
        /// The tool name, when it is a string.
        name: Option<&'a str>,
        /// The input, any JSON (absent when `None`).
        input: Option<&'a Value>,
    },
    /// `{type:"tool_result", tool_use_id, content?, is_error?}` (user).
    ToolResult {
        /// The id of the answered call, when it is a string.
        tool_use_id: Option<&'a str>,
        /// The content: a string, an array of blocks, or absent.
        content: Option<&'a Value>,
        /// JavaScript truthiness of `is_error`.
        is_error: bool,
    },
    /// Any other block type (reasoning, documents, future kinds) or a non-object entry.
    Other {
        /// The `type` field when it is a string.
        kind: Option<&'a str>,
        /// The raw block.
        raw: &'a Value,
    },
}

/// `object[key]`: a linear scan for the small objects messages and blocks are (no key hashing),
/// the map's own lookup for larger ones. Keys are unique, so both find the same entry.
pub(crate) fn field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    if object.len() <= 8 {
        object
            .iter()
            .find(|(name, _)| name.as_str() == key)
            .map(|(_, value)| value)
    } else {
        object.get(key)
    }
}

/// The block keys [`Block::view`] reads, by slot.
const BLOCK_KEYS: [&str; 9] = [
    "type",
    "text",
    "source",
    "id",
    "name",
    "input",
    "tool_use_id",
    "content",
    "is_error",
];
const TYPE: usize = 0;
const TEXT: usize = 1;
const SOURCE: usize = 2;
const ID: usize = 3;
const NAME: usize = 4;
const INPUT: usize = 5;
const TOOL_USE_ID: usize = 6;
const CONTENT: usize = 7;
const IS_ERROR: usize = 8;

impl<'a> Block<'a> {
    /// The block's `type` when it is a string, read without viewing the rest: a walk that wants
    /// one kind of block skips the others without reading their other keys.
    pub fn kind(raw: &'a Value) -> Option<&'a str> {
        let object = raw.as_object()?;
        let value = if object.len() <= 8 {
            object
                .iter()
                .find_map(|(key, value)| (key == "type").then_some(value))
        } else {
            object.get("type")
        };
        value.and_then(Value::as_str)
    }

    /// Views a raw block. A small block's keys are read in one pass (a lookup per field
    /// compared every key again, and history walks view every block of every message); a large
    /// one uses the map's own lookups. Keys are unique, so both give the same view.
    pub fn view(raw: &'a Value) -> Self {
        let Some(object) = raw.as_object() else {
            return Block::Other { kind: None, raw };
        };
        let mut slots: [Option<&'a Value>; 9] = [None; 9];
        if object.len() <= 8 {
            for (key, value) in object {
                let slot = match key.as_str() {
                    "type" => TYPE,
                    "text" => TEXT,
                    "source" => SOURCE,
                    "id" => ID,
                    "name" => NAME,
                    "input" => INPUT,
                    "tool_use_id" => TOOL_USE_ID,
                    "content" => CONTENT,
                    "is_error" => IS_ERROR,
                    _ => continue,
                };
                slots[slot] = Some(value);
            }
        } else {
            for (slot, key) in BLOCK_KEYS.iter().enumerate() {
                slots[slot] = object.get(*key);
            }
        }
        let string = |slot: usize| slots[slot].and_then(Value::as_str);
        match string(TYPE) {
            Some("text") => Block::Text { text: string(TEXT) },
            Some("image") => Block::Image {
                source: slots[SOURCE],
            },
            Some("tool_use") => Block::ToolUse {
                id: string(ID),
                name: string(NAME),
                input: slots[INPUT],
            },
            Some("tool_result") => Block::ToolResult {
                tool_use_id: string(TOOL_USE_ID),
                content: slots[CONTENT].filter(|value| !value.is_null()),
                is_error: slots[IS_ERROR].is_some_and(is_truthy),
            },
            kind => Block::Other { kind, raw },
        }
    }
}

/// What [`ApiMessage::head`] reads of a message.
#[derive(Clone, Copy, Debug)]
pub struct MessageHead<'a> {
    /// [`ApiMessage::role`].
    pub role: Option<Role>,
    /// [`ApiMessage::content`].
    pub content: Content<'a>,
    /// [`ApiMessage::is_summary`].
    pub is_summary: bool,
    /// [`ApiMessage::is_truncation_marker`].
    pub is_truncation_marker: bool,
}

/// JavaScript truthiness of a JSON value (`false`, `0`, `""` and `null` are falsy).
pub fn is_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64().is_some_and(|n| n != 0.0 && !n.is_nan()),
        Value::String(text) => !text.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

impl ApiMessage {
    /// A message with `role` and `content` only (in that key order).
    pub fn new(role: Role, content: Value) -> Self {
        let mut fields = Map::new();
        fields.insert("role".into(), Value::String(role.as_str().into()));
        fields.insert("content".into(), content);
        ApiMessage { fields }
    }

    /// The role, when it is `"user"` or `"assistant"`.
    pub fn role(&self) -> Option<Role> {
        match self.role_str()? {
            "user" => Some(Role::User),
            "assistant" => Some(Role::Assistant),
            _ => None,
        }
    }

    /// The raw `role` string, whatever it says.
    pub fn role_str(&self) -> Option<&str> {
        self.str_field("role")
    }

    /// `true` when the role is `"user"`.
    pub fn is_user(&self) -> bool {
        self.role() == Some(Role::User)
    }

    /// `true` when the role is `"assistant"`.
    pub fn is_assistant(&self) -> bool {
        self.role() == Some(Role::Assistant)
    }

    /// The `content` field, viewed.
    pub fn content(&self) -> Content<'_> {
        Content::view(field(&self.fields, "content"))
    }

    /// The role, the content and the summary / truncation-marker flags, read in one pass over a
    /// small message's keys (what a walk over a long history reads of every message).
    pub fn head(&self) -> MessageHead<'_> {
        if self.fields.len() > 8 {
            return MessageHead {
                role: self.role(),
                content: self.content(),
                is_summary: self.is_summary(),
                is_truncation_marker: self.is_truncation_marker(),
            };
        }
        let (mut role, mut content) = (None, None);
        let (mut is_summary, mut is_truncation_marker) = (false, false);
        for (key, value) in &self.fields {
            match key.as_str() {
                "role" => {
                    role = match value.as_str() {
                        Some("user") => Some(Role::User),
                        Some("assistant") => Some(Role::Assistant),
                        _ => None,
                    }
                }
                "content" => content = Some(value),
                "isSummary" => is_summary = is_truthy(value),
                "isTruncationMarker" => is_truncation_marker = is_truthy(value),
                _ => {}
            }
        }
        MessageHead {
            role,
            content: Content::view(content),
            is_summary,
            is_truncation_marker,
        }
    }

    /// The content blocks when the content is an array; empty otherwise.
    pub fn blocks(&self) -> &[Value] {
        match self.content() {
            Content::Blocks(blocks) => blocks,
            _ => &[],
        }
    }

    /// Replaces the content, keeping the key where it was (or appending it when absent).
    pub fn set_content(&mut self, content: Value) {
        self.fields.insert("content".into(), content);
    }

    /// `ts` when it is a number (milliseconds).
    pub fn ts(&self) -> Option<f64> {
        field(&self.fields, "ts").and_then(Value::as_f64)
    }

    /// JavaScript truthiness of `ts`: absent, `null`, `0` and non-numbers count as "no timestamp".
    pub fn has_truthy_ts(&self) -> bool {
        self.ts().is_some_and(|ts| ts != 0.0 && !ts.is_nan())
    }

    /// `isSummary` is truthy (JavaScript rules).
    pub fn is_summary(&self) -> bool {
        self.truthy_field("isSummary")
    }

    /// `isSummary === true` exactly (the effective-history test).
    pub fn is_summary_strictly_true(&self) -> bool {
        field(&self.fields, "isSummary") == Some(&Value::Bool(true))
    }

    /// `condenseId` (the summary's own id), when it is a string.
    pub fn condense_id(&self) -> Option<&str> {
        self.str_field("condenseId")
    }

    /// `condenseParent` (the summary hiding this message), when it is a string.
    pub fn condense_parent(&self) -> Option<&str> {
        self.str_field("condenseParent")
    }

    /// `isTruncationMarker` is truthy.
    pub fn is_truncation_marker(&self) -> bool {
        self.truthy_field("isTruncationMarker")
    }

    /// `truncationId` (the marker's own id), when it is a string.
    pub fn truncation_id(&self) -> Option<&str> {
        self.str_field("truncationId")
    }

    /// `truncationParent` (the marker hiding this message), when it is a string.
    pub fn truncation_parent(&self) -> Option<&str> {
        self.str_field("truncationParent")
    }

    /// Sets `condenseParent`, keeping the key's position when it already exists.
    pub fn set_condense_parent(&mut self, condense_id: &str) {
        self.fields
            .insert("condenseParent".into(), Value::String(condense_id.into()));
    }

    /// Sets `truncationParent`, keeping the key's position when it already exists.
    pub fn set_truncation_parent(&mut self, truncation_id: &str) {
        self.fields.insert(
            "truncationParent".into(),
            Value::String(truncation_id.into()),
        );
    }

    /// Removes a field without disturbing the order of the others; returns what was there.
    pub fn remove_field(&mut self, key: &str) -> Option<Value> {
        self.fields.shift_remove(key)
    }

    /// A string field, when present and a string.
    pub fn str_field(&self, key: &str) -> Option<&str> {
        field(&self.fields, key).and_then(Value::as_str)
    }

    fn truthy_field(&self, key: &str) -> bool {
        field(&self.fields, key).is_some_and(is_truthy)
    }
}
