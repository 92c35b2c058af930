//! File context tracking: which files a task has in context (`task_metadata.json`), which of them
//! the user changed, and the `roo/files/didChange` notification.

use serde::{Deserialize, Serialize};

/// How a file came into a task's context (the original's `RecordSource`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum FileSource {
    /// Read by the `read_file` tool.
    ReadTool,
    /// Attached through an `@`-mention.
    FileMentioned,
    /// Written by one of the agent's editing tools (after the write).
    RooEdited,
    /// Changed by the user (normally recorded by the server itself).
    UserEdited,
}

/// Params of `roo/files/track`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TrackParams {
    /// The task.
    pub task_id: String,
    /// The task's folder (where `task_metadata.json` lives); it must exist.
    pub storage_dir: String,
    /// The path as the tool gave it (relative to `cwd`, or absolute); recorded verbatim.
    pub path: String,
    /// How the file came into context.
    pub source: FileSource,
    /// What the agent read or wrote; when absent the file on disk is read now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// Base folder for a relative `path`; defaults to the first workspace folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// The agent saw only part of the file (a read with offset/limit or a line range). Then
    /// `content` (the part) is not what the agent last saw of the file: the whole file is read
    /// now as its baseline, flagged `partial` (shown in `takeRecentlyModified` changes).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// What happened to a corrupt `task_metadata.json` when its task was opened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MetadataRecovery {
    /// Where the unusable file was moved (`task_metadata.json.corrupt-<ms>`).
    pub moved_to: String,
    /// Why it could not be used.
    pub error: String,
}

/// Why a tracked file is not watched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum NotWatchedReason {
    /// No workspace folder contains it.
    OutsideWorkspace,
    /// The access rule forbids reading it.
    Blocked,
    /// The task does not track it (`roo/files/markRooEdited` on an untracked file).
    NotTracked,
}

/// What happened to a tracked file behind the agent's back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum FileChangeKind {
    /// Its content changed.
    Modified,
    /// It is gone.
    Deleted,
    /// It was renamed or moved away (`newPath` when known).
    Renamed,
}

/// Result of `roo/files/track`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TrackResult {
    /// Whether changes of this file are watched for the task.
    pub watched: bool,
    /// Why not: `outsideWorkspace` (no workspace folder contains it) or `blocked` (the access
    /// rule forbids reading it). The record is kept either way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_watched_reason: Option<NotWatchedReason>,
    /// Set when this call opened the task and its metadata file was unusable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<MetadataRecovery>,
}

/// Params of `roo/files/markRooEdited`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MarkRooEditedParams {
    /// The task.
    pub task_id: String,
    /// The path, as given to `roo/files/track`.
    pub path: String,
    /// What the agent writes (may be sent before the write); absent = read the file now.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The agent deletes the file: its absence is not a user change.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub deleted: bool,
    /// Base folder for a relative `path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// Result of `roo/files/markRooEdited`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MarkRooEditedResult {
    /// Whether changes of this file are watched for the task.
    pub watched: bool,
}

/// Params of `roo/files/read` (the original's `getFilesReadByRoo`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FilesReadParams {
    /// The task.
    pub task_id: String,
    /// Opens the task from this folder when the server does not know it (a resumed task).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_dir: Option<String>,
    /// Keep only reads at or after this time (ms since the epoch); undated reads are kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<i64>,
}

/// Result of `roo/files/read`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FilesReadResult {
    /// Paths read or mentioned, newest first, each once.
    pub paths: Vec<String>,
    /// Set when this call opened the task and its metadata file was unusable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub recovery: Option<MetadataRecovery>,
}

/// Params of `roo/files/takeRecentlyModified`, `roo/files/takeCheckpointPossible` and
/// `roo/files/disposeTask`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FilesTaskParams {
    /// The task.
    pub task_id: String,
}

/// Params of `roo/files/takeRecentlyModified`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TakeRecentlyModifiedParams {
    /// The task.
    pub task_id: String,
    /// Answer with a diff per changed file against what the agent last saw, a `noticeId` to
    /// acknowledge and ready-to-append `text`. Without it the answer is the original's paths.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub with_diffs: bool,
    /// Bounds of the diffs (with `withDiffs`); each absent field keeps its default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limits: Option<DiffLimits>,
}

/// Bounds of a `withDiffs` notice. Characters are UTF-16 code units.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DiffLimits {
    /// Unchanged lines around each change (default 1, at most 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_lines: Option<u32>,
    /// Largest diff of one file (default 4,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chars_per_file: Option<u32>,
    /// Largest diff section of one notice, header included (default 12,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_chars_total: Option<u32>,
    /// Most added plus removed lines of one file (default 120).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_changed_lines: Option<u32>,
    /// Longest diff computation of one file in milliseconds (default 50, at most 10,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u32>,
}

/// Result of `roo/files/takeRecentlyModified` and `roo/files/takeCheckpointPossible`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FilesTakeResult {
    /// The set's paths in insertion order; the set is now empty. With `withDiffs`: the files of
    /// `changes`, most recently changed first.
    pub paths: Vec<String>,
    /// With `withDiffs`, when `changes` is not empty: acknowledge it with `roo/files/ackNotice`
    /// once `text` is in a message sent to the model. Until then every take repeats the files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notice_id: Option<String>,
    /// With `withDiffs`: each changed file, with a diff or the reason it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Vec<FileChange>>,
    /// With `withDiffs`: the text to append to the environment details in place of the
    /// original's `# Recently Modified Files` section (whose bytes it keeps for fallbacks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// One changed file of a `withDiffs` notice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FileChange {
    /// The path as given to `roo/files/track`.
    pub path: String,
    /// `modified`, `deleted` or `renamed`.
    pub kind: FileChangeKind,
    /// For `renamed`: the new path, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_path: Option<String>,
    /// Why there is no diff. The file is then listed in `text` with the original's line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<DiffFallback>,
    /// Unified diff against the version the agent last saw (1 context line by default, no
    /// file headers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// Counts, whenever a diff was computed (also for `tooManyChanges`, `diffTooLong`, `budget`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_stat: Option<DiffStat>,
    /// The baseline is the whole file, but the agent read only part of it (`track` with
    /// `partial`): lines outside the diff may be unknown to it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// Why a changed file of a `withDiffs` notice has no diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum DiffFallback {
    /// No baseline: never read in this store, evicted, unreadable or corrupt.
    NoBaseline,
    /// One side is not text (a NUL byte or invalid UTF-8).
    Binary,
    /// One side is too large to diff.
    TooLarge,
    /// The access rule blocks the file now.
    Blocked,
    /// The file cannot be read now (a FIFO, device, folder or I/O error).
    Unreadable,
    /// The file is gone.
    Deleted,
    /// The file was moved away.
    Renamed,
    /// More changed lines than allowed, or a diff longer than the file: a rewrite.
    TooManyChanges,
    /// The diff is over the per-file character bound.
    DiffTooLong,
    /// The notice's diff budget is spent (files are taken most recent first).
    Budget,
    /// The diff took longer than allowed.
    Timeout,
}

/// Counts of one diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DiffStat {
    /// Lines added.
    pub added: u64,
    /// Lines removed.
    pub removed: u64,
    /// Hunks.
    pub hunks: u64,
}

/// Params of `roo/files/ackNotice`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AckNoticeParams {
    /// The task.
    pub task_id: String,
    /// The `noticeId` of a `takeRecentlyModified` answer whose text reached the model.
    pub notice_id: String,
}

/// Result of `roo/files/ackNotice`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AckNoticeResult {
    /// Whether the notice was pending. `false` for an unknown, already acknowledged or
    /// superseded id (a later acknowledged notice repeated its files): nothing changed.
    pub known: bool,
    /// Files whose baseline is now the content shown in the notice's diff.
    pub advanced: Vec<String>,
    /// Files no longer repeated by the next take (not changed again since the notice).
    pub delivered: Vec<String>,
}

/// Result of `roo/files/disposeTask`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct DisposeTaskResult {
    /// Whether the task was open.
    pub disposed: bool,
}

/// Params of the server-to-client notification `roo/files/didChange`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FileDidChangeParams {
    /// The task that has the file in context.
    pub task_id: String,
    /// The path as given to `roo/files/track`.
    pub path: String,
    /// `modified`, `deleted` or `renamed`.
    pub kind: FileChangeKind,
    /// For `renamed`: the new path (relative to the same base as `path` when inside it), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_path: Option<String>,
    /// For `modified`, when the task has a baseline of the file (what the agent last saw) and
    /// both sides are small text files (at most 256 KiB): the counts of the diff a
    /// `withDiffs` take would show now. Absent for blocked, binary or oversized files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_stat: Option<DiffStat>,
}
