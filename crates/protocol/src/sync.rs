//! `roo/history/open`, `change`, `read`, `close` (issue 29): a task's history held by the
//! sidecar, sent once and then changed by operations, every answer carrying the agreed
//! `{version, length, digest}` (docs/protocol.md, "History sync"; the digest is defined in
//! `roo_context_core::conversation::sync`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The JSON-RPC error code of a request naming a history state the sidecar does not hold:
/// its `data` is a [`HistoryOutOfSyncData`]. The host answers with one full resync.
pub const HISTORY_OUT_OF_SYNC: i64 = -32010;

/// A history the sidecar holds, at the version the host last agreed on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryRef {
    /// The task.
    pub task_id: String,
    /// The version the host holds; the request is answered against exactly it.
    pub version: u64,
}

/// The agreed state of a history, in every answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryState {
    /// Increases with every applied batch (not always by one).
    pub version: u64,
    /// Number of messages.
    pub length: usize,
    /// 16 hex digits (docs/protocol.md, "The digest").
    pub digest: String,
}

/// `data` of a `-32010 historyOutOfSync` error.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryOutOfSyncData {
    /// The task.
    pub task_id: String,
    /// The sidecar's state, or `null` when it holds no history for the task.
    pub server: Option<HistoryState>,
}

/// Where `roo/history/open` takes the history from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum HistorySource {
    /// `messages` in the params (default).
    #[default]
    Inline,
    /// `<storageDir>/api_conversation_history.json` and the sidecar's journal beside it.
    File,
}

/// Who writes `api_conversation_history.json`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum HistoryPersist {
    /// The host, as today (default): the sidecar writes nothing.
    #[default]
    Host,
    /// The sidecar: every change is appended to `api_conversation_history.journal` and fsynced
    /// before the answer (`durable: true`); the `.json` file is rewritten atomically when the
    /// journal grows past a share of it, and on `flush` and `close`.
    Sidecar,
}

/// What the host expects to find (checked on open).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryExpect {
    /// Number of messages.
    pub length: usize,
    /// The digest.
    pub digest: String,
}

/// Params of `roo/history/open`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryOpenParams {
    /// The task.
    pub task_id: String,
    /// `inline` (default) or `file`.
    #[serde(default)]
    pub source: HistorySource,
    /// The history (`source: inline`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub messages: Option<Vec<Value>>,
    /// The creator's content digest of each message (16 hex digits), when it computed them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_digests: Option<Vec<String>>,
    /// The task folder (`source: file`, `persist: sidecar`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_dir: Option<String>,
    /// `host` (default) or `sidecar`.
    #[serde(default)]
    pub persist: HistoryPersist,
    /// Refuse (`-32010`) unless the history opened has this length and digest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<HistoryExpect>,
}

/// Result of `roo/history/open`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryOpenResult {
    /// The agreed state.
    #[serde(flatten)]
    pub state: HistoryState,
    /// What a load from file repaired (a torn journal tail, records replayed), if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<String>,
}

/// One change to a history. Indices are of the history as the batch's earlier ops leave it;
/// ranges are half-open `[start, end)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "op", rename_all = "camelCase")]
pub enum HistoryOpWire {
    /// Messages added at the end.
    #[serde(rename_all = "camelCase")]
    Append {
        /// The new messages.
        #[serde(deserialize_with = "op_field::messages")]
        messages: Vec<Value>,
        /// Their content digests, when their creator computed them.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "op_field::content_digests"
        )]
        content_digests: Option<Vec<String>>,
    },
    /// The last message removed.
    #[serde(rename_all = "camelCase")]
    RemoveLast {
        /// Refuse unless the last message has this role.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "op_field::expect_role"
        )]
        expect_role: Option<String>,
    },
    /// One message replaced.
    #[serde(rename_all = "camelCase")]
    Replace {
        /// Its index.
        #[serde(deserialize_with = "op_field::index")]
        index: usize,
        /// The new message.
        #[serde(deserialize_with = "op_field::message")]
        message: Value,
        /// Its content digest.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "op_field::content_digest"
        )]
        content_digest: Option<String>,
    },
    /// Everything from `length` on removed.
    #[serde(rename_all = "camelCase")]
    Truncate {
        /// The new length.
        #[serde(deserialize_with = "op_field::length")]
        length: usize,
    },
    /// The whole history replaced (a resync).
    #[serde(rename_all = "camelCase")]
    Reset {
        /// The new history.
        #[serde(deserialize_with = "op_field::messages")]
        messages: Vec<Value>,
        /// Their content digests.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "op_field::content_digests"
        )]
        content_digests: Option<Vec<String>>,
    },
    /// The six tag fields (`condenseParent`, `condenseId`, `isSummary`, `truncationParent`,
    /// `truncationId`, `isTruncationMarker`) of every message in `ranges` become exactly
    /// `tags`: a tag not named is deleted, one named is assigned (its key keeps its place when
    /// present, else goes last).
    #[serde(rename_all = "camelCase")]
    SetTags {
        /// Half-open ranges `[start, end)`.
        #[serde(deserialize_with = "op_field::ranges")]
        ranges: Vec<[usize; 2]>,
        /// The tags.
        #[serde(deserialize_with = "op_field::tags")]
        tags: Map<String, Value>,
    },
    /// One message inserted before `index`.
    #[serde(rename_all = "camelCase")]
    Insert {
        /// Where (`length` appends).
        #[serde(deserialize_with = "op_field::index")]
        index: usize,
        /// The message.
        #[serde(deserialize_with = "op_field::message")]
        message: Value,
        /// Its content digest.
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            deserialize_with = "op_field::content_digest"
        )]
        content_digest: Option<String>,
    },
}

/// An internally tagged enum is read from a buffer where serde loses the field path, so each
/// op field names itself in its errors (`field `index`: ...`; the server joins it to the op's
/// path: `ops[2].index`).
mod op_field {
    use serde::{Deserialize, Deserializer};

    macro_rules! named {
        ($($function:ident = $wire:literal),* $(,)?) => {$(
            pub(super) fn $function<'de, D, T>(deserializer: D) -> Result<T, D::Error>
            where
                D: Deserializer<'de>,
                T: Deserialize<'de>,
            {
                T::deserialize(deserializer).map_err(|error| {
                    <D::Error as serde::de::Error>::custom(format_args!(
                        "field `{}`: {error}",
                        $wire
                    ))
                })
            }
        )*};
    }

    named!(
        messages = "messages",
        content_digests = "contentDigests",
        expect_role = "expectRole",
        index = "index",
        message = "message",
        content_digest = "contentDigest",
        length = "length",
        ranges = "ranges",
        tags = "tags",
    );
}

/// Params of `roo/history/change`: an ordered batch, applied whole or not at all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryChangeParams {
    /// The task.
    pub task_id: String,
    /// The version the ops apply to (`-32010` when it is not the sidecar's; a batch of appends
    /// only also applies on top of the versions a `roo/context/manage` made while it ran).
    pub base_version: u64,
    /// The ops, in order.
    pub ops: Vec<HistoryOpWire>,
}

/// Result of `roo/history/change`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryChangeResult {
    /// The agreed state after the batch.
    #[serde(flatten)]
    pub state: HistoryState,
    /// The batch is on disk (fsynced) before this answer: `persist: sidecar` only.
    pub durable: bool,
}

/// Params of `roo/history/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryReadParams {
    /// The task.
    pub task_id: String,
    /// First index (default 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<usize>,
    /// End index, exclusive (default: the length).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<usize>,
}

/// Result of `roo/history/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryReadResult {
    /// The state the messages are of.
    #[serde(flatten)]
    pub state: HistoryState,
    /// The messages `[from, to)`.
    pub messages: Vec<Value>,
    /// Their content digests.
    pub content_digests: Vec<String>,
}

/// Params of `roo/history/close` and `roo/history/flush`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryTaskParams {
    /// The task.
    pub task_id: String,
}

/// Result of `roo/history/close` and `roo/history/flush`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryFlushResult {
    /// The state written.
    #[serde(flatten)]
    pub state: HistoryState,
    /// Bytes of `api_conversation_history.json` written (`persist: sidecar`; 0 otherwise, or
    /// when it was already current).
    pub bytes_written: u64,
}

/// The changes `roo/context/manage` made to a referenced history, as ops against
/// `baseVersion`, and the state after them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct HistoryChanges {
    /// The version the ops apply to.
    pub base_version: u64,
    /// The ops (empty when nothing changed). Their indices are below the base length but for
    /// inserts at it, so appends the host made while the request ran stay after them.
    pub ops: Vec<HistoryOpWire>,
    /// What the model sees of the history after them, as half-open ranges of indices: the
    /// host builds its API request from its own copy, so the effective history never crosses
    /// the pipe.
    pub effective_ranges: Vec<[usize; 2]>,
    /// The agreed state after the ops (and any appends made meanwhile).
    #[serde(flatten)]
    pub state: HistoryState,
}
