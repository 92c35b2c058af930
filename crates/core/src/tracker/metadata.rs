//! The `task_metadata.json` model: the original's shape and key order, so a file written by the
//! extension loads and is written back unchanged; unknown keys and values are kept in place.

use serde_json::{Map, Value};

/// File name of a task's metadata, inside the task's storage folder.
pub const TASK_METADATA_FILE: &str = "task_metadata.json";

const FILES_IN_CONTEXT: &str = "files_in_context";
const PATH: &str = "path";
const RECORD_STATE: &str = "record_state";
const RECORD_SOURCE: &str = "record_source";
const ROO_READ_DATE: &str = "roo_read_date";
const ROO_EDIT_DATE: &str = "roo_edit_date";
const USER_EDIT_DATE: &str = "user_edit_date";

/// Whether a record is the current one for its path (`active`) or superseded (`stale`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RecordState {
    /// The newest record of its path.
    Active,
    /// Superseded by a newer record of the same path.
    Stale,
    /// A value this version does not know, kept verbatim.
    Other(String),
}

impl RecordState {
    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            RecordState::Active => "active",
            RecordState::Stale => "stale",
            RecordState::Other(other) => other,
        }
    }

    /// Parses the wire spelling; unknown values become [`RecordState::Other`].
    pub fn parse(text: &str) -> RecordState {
        match text {
            "active" => RecordState::Active,
            "stale" => RecordState::Stale,
            other => RecordState::Other(other.to_owned()),
        }
    }
}

/// How a file came into the task's context.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum RecordSource {
    /// Read by the `read_file` tool.
    ReadTool,
    /// Changed on disk (or in an editor buffer) by someone other than the agent.
    UserEdited,
    /// Written by one of the agent's editing tools.
    RooEdited,
    /// Attached through an `@`-mention.
    FileMentioned,
    /// A value this version does not know, kept verbatim.
    Other(String),
}

impl RecordSource {
    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            RecordSource::ReadTool => "read_tool",
            RecordSource::UserEdited => "user_edited",
            RecordSource::RooEdited => "roo_edited",
            RecordSource::FileMentioned => "file_mentioned",
            RecordSource::Other(other) => other,
        }
    }

    /// Parses the wire spelling; unknown values become [`RecordSource::Other`].
    pub fn parse(text: &str) -> RecordSource {
        match text {
            "read_tool" => RecordSource::ReadTool,
            "user_edited" => RecordSource::UserEdited,
            "roo_edited" => RecordSource::RooEdited,
            "file_mentioned" => RecordSource::FileMentioned,
            other => RecordSource::Other(other.to_owned()),
        }
    }
}

/// One record of `files_in_context`. Dates are milliseconds since the Unix epoch.
///
/// An entry loaded from a file remembers the object it came from: writing it back keeps unknown
/// keys, key order and number spelling, and only replaces the values that were changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileMetadataEntry {
    /// The path as the caller gave it.
    pub path: String,
    /// Active or stale.
    pub record_state: RecordState,
    /// How the file came into context.
    pub record_source: RecordSource,
    /// Last time the agent read (or wrote) the file.
    pub roo_read_date: Option<i64>,
    /// Last time the agent wrote the file.
    pub roo_edit_date: Option<i64>,
    /// Last time someone else changed the file.
    pub user_edit_date: Option<i64>,
    stored: Option<Map<String, Value>>,
}

/// Why a `task_metadata.json` cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetadataError {
    /// Not JSON at all (a truncated or foreign file).
    #[error("not valid JSON: {0}")]
    InvalidJson(String),
    /// JSON, but not an object.
    #[error("the top level is not a JSON object")]
    NotAnObject,
    /// `files_in_context` exists but is not an array.
    #[error("`files_in_context` is not an array")]
    FilesInContextNotAnArray,
    /// An entry lacks a usable `path`, `record_state` or `record_source`.
    #[error("`files_in_context[{index}]`: {reason}")]
    InvalidEntry {
        /// Position in `files_in_context`.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
}

/// A task's metadata: the records plus every other top-level key, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskMetadata {
    /// Every record, oldest first; history is append-only.
    pub files_in_context: Vec<FileMetadataEntry>,
    stored: Map<String, Value>,
}

/// A date as the original stores it: a number, or `null`. Non-integral numbers are truncated;
/// anything else counts as no date (and is written back untouched unless the date changes).
fn parse_date(value: Option<&Value>) -> Option<i64> {
    let number = value?.as_number()?;
    number.as_i64().or_else(|| {
        number
            .as_f64()
            .filter(|f| f.is_finite())
            .map(|f| f.trunc() as i64)
    })
}

fn date_value(date: Option<i64>) -> Value {
    date.map_or(Value::Null, Value::from)
}

impl FileMetadataEntry {
    /// A new entry (not loaded from a file) with the given fields.
    pub fn new(
        path: &str,
        record_state: RecordState,
        record_source: RecordSource,
        dates: [Option<i64>; 3],
    ) -> FileMetadataEntry {
        FileMetadataEntry {
            path: path.to_owned(),
            record_state,
            record_source,
            roo_read_date: dates[0],
            roo_edit_date: dates[1],
            user_edit_date: dates[2],
            stored: None,
        }
    }

    pub(crate) fn from_value(
        index: usize,
        value: Value,
    ) -> Result<FileMetadataEntry, MetadataError> {
        let Value::Object(object) = value else {
            return Err(MetadataError::InvalidEntry {
                index,
                reason: "not an object".into(),
            });
        };
        let text = |key: &str| -> Result<String, MetadataError> {
            object
                .get(key)
                .and_then(Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| MetadataError::InvalidEntry {
                    index,
                    reason: format!("`{key}` is missing or not a string"),
                })
        };
        Ok(FileMetadataEntry {
            path: text(PATH)?,
            record_state: RecordState::parse(&text(RECORD_STATE)?),
            record_source: RecordSource::parse(&text(RECORD_SOURCE)?),
            roo_read_date: parse_date(object.get(ROO_READ_DATE)),
            roo_edit_date: parse_date(object.get(ROO_EDIT_DATE)),
            user_edit_date: parse_date(object.get(USER_EDIT_DATE)),
            stored: Some(object),
        })
    }

    pub(crate) fn to_value(&self) -> Value {
        let known = [
            (PATH, Value::from(self.path.as_str())),
            (RECORD_STATE, Value::from(self.record_state.as_str())),
            (RECORD_SOURCE, Value::from(self.record_source.as_str())),
            (ROO_READ_DATE, date_value(self.roo_read_date)),
            (ROO_EDIT_DATE, date_value(self.roo_edit_date)),
            (USER_EDIT_DATE, date_value(self.user_edit_date)),
        ];
        let Some(stored) = &self.stored else {
            return Value::Object(known.map(|(k, v)| (k.to_owned(), v)).into_iter().collect());
        };
        let mut out = stored.clone();
        for (key, value) in known {
            let unchanged = match stored.get(key) {
                Some(old) if value.is_string() => old == &value,
                Some(old) => parse_date(Some(old)) == parse_date(Some(&value)),
                // The original's older files may lack `user_edit_date`; do not invent it.
                None => value.is_null(),
            };
            if !unchanged {
                // `insert` keeps the position of an existing key (preserve_order).
                out.insert(key.to_owned(), value);
            }
        }
        Value::Object(out)
    }
}

impl TaskMetadata {
    /// Parses a `task_metadata.json`. A missing `files_in_context` is an empty history (the
    /// key is added on the next write); anything else unusable is an error, so the caller can
    /// keep the file aside instead of overwriting it.
    pub fn parse(text: &str) -> Result<TaskMetadata, MetadataError> {
        // The original writes a lone surrogate (a path cut inside an emoji) as an escape.
        let value: Value = serde_json::from_slice(&crate::wire_text::encode_json(text.as_bytes()))
            .map_err(|e| MetadataError::InvalidJson(e.to_string()))?;
        let Value::Object(stored) = value else {
            return Err(MetadataError::NotAnObject);
        };
        let files_in_context = match stored.get(FILES_IN_CONTEXT) {
            None => Vec::new(),
            Some(Value::Array(entries)) => entries
                .iter()
                .cloned()
                .enumerate()
                .map(|(index, entry)| FileMetadataEntry::from_value(index, entry))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(MetadataError::FilesInContextNotAnArray),
        };
        Ok(TaskMetadata {
            files_in_context,
            stored,
        })
    }

    /// Compact JSON (no indentation, no trailing newline), as the original writes it.
    pub fn to_json(&self) -> String {
        let entries = Value::Array(
            self.files_in_context
                .iter()
                .map(FileMetadataEntry::to_value)
                .collect(),
        );
        let mut out = self.stored.clone();
        out.insert(FILES_IN_CONTEXT.to_owned(), entries);
        crate::wire_text::decode_json_str(&Value::Object(out).to_string()).into_owned()
    }
}
