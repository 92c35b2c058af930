//! Odd-but-usable histories: parsing from JSON and the diagnostics that explain what looked wrong.
//!
//! Degraded input is not an error here: every function still returns a best-effort result.
//! Only a history that is not an array of objects is rejected, since nothing can be kept of it.

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde::Serialize;
use serde_json::Value;

use super::message::{ApiMessage, Block, Content};

/// What kind of oddity a [`Diagnostic`] reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiagnosticCode {
    /// `role` is absent or not a string.
    MissingRole,
    /// `role` is a string other than `user` or `assistant`.
    UnknownRole,
    /// `content` is absent or `null`.
    MissingContent,
    /// `content` is neither a string nor an array.
    InvalidContent,
    /// A content block is not an object or has no string `type`.
    InvalidBlock,
    /// `ts` is present but not a number.
    InvalidTimestamp,
    /// A summary (`isSummary`) without a string `condenseId`.
    SummaryWithoutId,
    /// A truncation marker without a string `truncationId`.
    MarkerWithoutId,
    /// Two summaries share a `condenseId`, or two markers share a `truncationId`.
    DuplicateId,
    /// Two `tool_use` blocks share an id.
    DuplicateToolUseId,
    /// A `tool_use` block without a string `id`.
    ToolUseWithoutId,
    /// A `tool_result` whose `tool_use_id` matches no earlier `tool_use`.
    OrphanToolResult,
    /// A `condenseParent` or `truncationParent` naming a summary or marker that does not exist.
    DanglingParent,
    /// A tag field (`condenseId`, `condenseParent`, ...) that is present but not a string.
    InvalidTag,
    /// A removed `condense_context` event had no `condenseId`; its summary was matched by text.
    SummaryMatchedByText,
}

/// One oddity found in a history, with the position of the message it concerns.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diagnostic {
    /// Index of the message in the input list, when the oddity concerns one message.
    pub message_index: Option<usize>,
    /// The kind of oddity.
    pub code: DiagnosticCode,
    /// A human-readable explanation.
    pub message: String,
}

impl Diagnostic {
    /// A diagnostic about message `index`.
    pub fn at(index: usize, code: DiagnosticCode, message: impl Into<String>) -> Self {
        Diagnostic {
            message_index: Some(index),
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let code = serde_json::to_value(self.code).unwrap_or(Value::Null);
        let code = code.as_str().unwrap_or("?");
        match self.message_index {
            Some(index) => write!(f, "#{index} {code}: {}", self.message),
            None => write!(f, "{code}: {}", self.message),
        }
    }
}

/// A history that cannot be used at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HistoryError {
    /// The history is not a JSON array.
    #[error("the history must be an array of messages, found {found}")]
    NotAnArray {
        /// The JSON type that was found.
        found: &'static str,
    },
    /// One entry is not a JSON object.
    #[error("message {index} must be an object, found {found}")]
    MessageNotAnObject {
        /// Index of the entry.
        index: usize,
        /// The JSON type that was found.
        found: &'static str,
    },
}

/// A parsed history: the messages, untouched, plus what looked odd about them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParsedHistory {
    /// The messages, in order, exactly as given.
    pub messages: Vec<ApiMessage>,
    /// Oddities found by [`diagnose_history`].
    pub diagnostics: Vec<Diagnostic>,
}

/// Parses a stored history (`api_conversation_history.json` contents) without changing a byte.
///
/// Rejects only what cannot be a history (not an array, or an entry that is not an object);
/// everything else is accepted and [diagnosed](diagnose_history).
pub fn parse_history(value: Value) -> Result<ParsedHistory, HistoryError> {
    let Value::Array(entries) = value else {
        return Err(HistoryError::NotAnArray {
            found: json_type(&value),
        });
    };
    let mut messages = Vec::with_capacity(entries.len());
    for (index, entry) in entries.into_iter().enumerate() {
        match entry {
            Value::Object(fields) => messages.push(ApiMessage { fields }),
            other => {
                return Err(HistoryError::MessageNotAnObject {
                    index,
                    found: json_type(&other),
                });
            }
        }
    }
    let diagnostics = diagnose_history(&messages);
    Ok(ParsedHistory {
        messages,
        diagnostics,
    })
}

/// The JavaScript-ish name of a JSON value's type, for error messages.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Lists everything odd about a history, in message order. Linear in the history's size.
pub fn diagnose_history<M: AsRef<ApiMessage>>(messages: &[M]) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let mut summary_ids: HashMap<&str, usize> = HashMap::new();
    let mut marker_ids: HashMap<&str, usize> = HashMap::new();
    let mut tool_use_ids: HashMap<&str, usize> = HashMap::new();

    for (index, message) in messages.iter().enumerate() {
        let message = message.as_ref();
        diagnose_fields(index, message, &mut diagnostics);
        if message.is_summary() {
            match message.condense_id() {
                Some(id) => {
                    if let Some(first) = summary_ids.insert(id, index) {
                        diagnostics.push(Diagnostic::at(
                            index,
                            DiagnosticCode::DuplicateId,
                            format!("condenseId {id:?} is also used by message {first}"),
                        ));
                    }
                }
                None => diagnostics.push(Diagnostic::at(
                    index,
                    DiagnosticCode::SummaryWithoutId,
                    "summary has no condenseId; rewind cannot find it by id",
                )),
            }
        }
        if message.is_truncation_marker() {
            match message.truncation_id() {
                Some(id) => {
                    if let Some(first) = marker_ids.insert(id, index) {
                        diagnostics.push(Diagnostic::at(
                            index,
                            DiagnosticCode::DuplicateId,
                            format!("truncationId {id:?} is also used by message {first}"),
                        ));
                    }
                }
                None => diagnostics.push(Diagnostic::at(
                    index,
                    DiagnosticCode::MarkerWithoutId,
                    "truncation marker has no truncationId",
                )),
            }
        }
        for block in message.blocks() {
            match Block::view(block) {
                Block::ToolUse { id: Some(id), .. } => {
                    if let Some(first) = tool_use_ids.insert(id, index) {
                        diagnostics.push(Diagnostic::at(
                            index,
                            DiagnosticCode::DuplicateToolUseId,
                            format!("tool_use id {id:?} is also used in message {first}"),
                        ));
                    }
                }
                Block::ToolUse { id: None, .. } => diagnostics.push(Diagnostic::at(
                    index,
                    DiagnosticCode::ToolUseWithoutId,
                    "tool_use block has no string id",
                )),
                Block::ToolResult { tool_use_id, .. }
                    if tool_use_id.is_none_or(|id| !tool_use_ids.contains_key(id)) =>
                {
                    let id = tool_use_id.map_or("a missing id".to_string(), |id| format!("{id:?}"));
                    diagnostics.push(Diagnostic::at(
                        index,
                        DiagnosticCode::OrphanToolResult,
                        format!("tool_result for {id} answers no earlier tool_use"),
                    ));
                }
                _ => {}
            }
        }
    }

    let summaries: HashSet<&str> = summary_ids.keys().copied().collect();
    let markers: HashSet<&str> = marker_ids.keys().copied().collect();
    for (index, message) in messages.iter().enumerate() {
        let message = message.as_ref();
        if let Some(parent) = message.condense_parent()
            && !summaries.contains(parent)
        {
            diagnostics.push(Diagnostic::at(
                index,
                DiagnosticCode::DanglingParent,
                format!("condenseParent {parent:?} names no summary; the tag is ignored"),
            ));
        }
        if let Some(parent) = message.truncation_parent()
            && !markers.contains(parent)
        {
            diagnostics.push(Diagnostic::at(
                index,
                DiagnosticCode::DanglingParent,
                format!("truncationParent {parent:?} names no marker; the tag is ignored"),
            ));
        }
    }
    diagnostics.sort_by_key(|diagnostic| diagnostic.message_index);
    diagnostics
}

fn diagnose_fields(index: usize, message: &ApiMessage, diagnostics: &mut Vec<Diagnostic>) {
    match message.fields.get("role") {
        Some(Value::String(role)) if role == "user" || role == "assistant" => {}
        Some(Value::String(role)) => diagnostics.push(Diagnostic::at(
            index,
            DiagnosticCode::UnknownRole,
            format!("role {role:?} is neither user nor assistant"),
        )),
        _ => diagnostics.push(Diagnostic::at(
            index,
            DiagnosticCode::MissingRole,
            "message has no string role",
        )),
    }
    match message.content() {
        Content::Missing => diagnostics.push(Diagnostic::at(
            index,
            DiagnosticCode::MissingContent,
            "message has no content",
        )),
        Content::Other(value) => diagnostics.push(Diagnostic::at(
            index,
            DiagnosticCode::InvalidContent,
            format!(
                "content is a {}, not a string or an array",
                json_type(value)
            ),
        )),
        Content::Text(_) => {}
        Content::Blocks(blocks) => {
            for (position, block) in blocks.iter().enumerate() {
                let typed = block
                    .as_object()
                    .is_some_and(|object| object.get("type").is_some_and(Value::is_string));
                if !typed {
                    diagnostics.push(Diagnostic::at(
                        index,
                        DiagnosticCode::InvalidBlock,
                        format!("content block {position} has no string type"),
                    ));
                }
            }
        }
    }
    if let Some(ts) = message.fields.get("ts")
        && !ts.is_number()
        && !ts.is_null()
    {
        diagnostics.push(Diagnostic::at(
            index,
            DiagnosticCode::InvalidTimestamp,
            format!("ts is a {}, not a number; treated as absent", json_type(ts)),
        ));
    }
    for key in [
        "condenseId",
        "condenseParent",
        "truncationId",
        "truncationParent",
    ] {
        if let Some(value) = message.fields.get(key)
            && !value.is_string()
            && !value.is_null()
        {
            diagnostics.push(Diagnostic::at(
                index,
                DiagnosticCode::InvalidTag,
                format!("{key} is a {}, not a string; ignored", json_type(value)),
            ));
        }
    }
}
