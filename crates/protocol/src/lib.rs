//! Wire types and method names of the roo-context protocol: LSP-framed JSON-RPC 2.0 over stdio,
//! camelCase on the wire. Every custom method has exactly one `Params` and one `Result` type;
//! docs/protocol.md documents each with an example. Nothing here does anything.
//!
//! TypeScript types for editors/ are generated from this crate, never written by hand. For every
//! new wire type add, under its `#[derive(..., Serialize, Deserialize)]`:
//! `#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]`
//! (a field whose type has no schema gets `#[cfg_attr(feature = "schema", schemars(with = "serde_json::Value"))]`),
//! and for every new method one line in `schema::method_table`. Then regenerate with
//! `editors/vscode: npm run gen-types`. `cargo test -p roo-context-protocol --features schema`
//! fails while a derive or a table line is missing; `npm run check-types` while the TS is stale.

pub mod access;
pub mod context;
pub mod files;
pub mod fold;
pub mod history;
pub mod mentions;
#[cfg(feature = "schema")]
pub mod schema;
pub mod workspace;

/// Every custom method name, in one place.
pub mod methods {
    /// Read access for a batch of paths.
    pub const IGNORE_VALIDATE_ACCESS: &str = "roo/ignore/validateAccess";
    /// Keeps the paths that may be read.
    pub const IGNORE_FILTER_PATHS: &str = "roo/ignore/filterPaths";
    /// The text a list-files tool shows the model (ignored hidden or locked, protected shielded).
    pub const IGNORE_FORMAT_FILES_LIST: &str = "roo/ignore/formatFilesList";
    /// Vets a shell command line.
    pub const IGNORE_VALIDATE_COMMAND: &str = "roo/ignore/validateCommand";
    /// The ignore file's LLM instructions.
    pub const IGNORE_INSTRUCTIONS: &str = "roo/ignore/instructions";
    /// Server-to-client notification: an ignore file was (re)loaded.
    pub const IGNORE_DID_RELOAD: &str = "roo/ignore/didReload";
    /// Write protection for a batch of paths.
    pub const PROTECT_CHECK: &str = "roo/protect/check";
    /// The original's `annotatePathsWithProtection`.
    pub const PROTECT_ANNOTATE: &str = "roo/protect/annotate";
    /// The protect controller's LLM instructions.
    pub const PROTECT_INSTRUCTIONS: &str = "roo/protect/instructions";
    /// Workspace folders, active ignore files, reload errors and settings.
    pub const WORKSPACE_STATUS: &str = "roo/workspace/status";
    /// Client-to-server notification: change settings (same shape as `initializationOptions`).
    pub const SETTINGS_UPDATE: &str = "roo/settings/update";
    /// Folded file context (definitions only) of files the agent read.
    pub const FOLD_CONTEXT: &str = "roo/fold/context";
    /// The outline of one file.
    pub const FOLD_OUTLINE: &str = "roo/fold/outline";
    /// The effective API history (what the model sees).
    pub const HISTORY_EFFECTIVE: &str = "roo/history/effective";
    /// Merge consecutive same-role messages for an API request.
    pub const HISTORY_MERGE: &str = "roo/history/merge";
    /// Rewind the API history to a UI event.
    pub const HISTORY_REWIND: &str = "roo/history/rewind";
    /// Count tokens of text, blocks or a whole history.
    pub const TOKENS_COUNT: &str = "roo/tokens/count";
    /// Record that a task has a file in context (and watch it).
    pub const FILES_TRACK: &str = "roo/files/track";
    /// Record what the agent writes to a file, so its own write is not a user edit.
    pub const FILES_MARK_ROO_EDITED: &str = "roo/files/markRooEdited";
    /// Files the agent read, newest first (the original's `getFilesReadByRoo`).
    pub const FILES_READ: &str = "roo/files/read";
    /// Get and clear the files changed behind the agent's back.
    pub const FILES_TAKE_RECENTLY_MODIFIED: &str = "roo/files/takeRecentlyModified";
    /// Get and clear the files the agent edited since the last call.
    pub const FILES_TAKE_CHECKPOINT_POSSIBLE: &str = "roo/files/takeCheckpointPossible";
    /// Stop watching a task's files and forget its in-memory state.
    pub const FILES_DISPOSE_TASK: &str = "roo/files/disposeTask";
    /// Server-to-client notification: a tracked file changed and the agent did not do it.
    pub const FILES_DID_CHANGE: &str = "roo/files/didChange";
    /// Condense or truncate the history (manual, automatic or emergency trigger).
    pub const CONTEXT_MANAGE: &str = "roo/context/manage";
    /// Whether an automatic `roo/context/manage` would act (numbers only).
    pub const CONTEXT_WILL_MANAGE: &str = "roo/context/willManage";
    /// Whether a provider error is a context-window-exceeded error.
    pub const CONTEXT_CLASSIFY_ERROR: &str = "roo/context/classifyError";
    /// Checks a summary against the history it replaces; returns the report and the addendum.
    pub const CONTEXT_VERIFY_SUMMARY: &str = "roo/context/verifySummary";
    /// Server-to-client request: the host makes the summarizer's model call.
    pub const HOST_SUMMARIZE: &str = "roo/host/summarize";
    /// Server-to-client notification: a `roo/host/summarize` call is no longer wanted.
    pub const HOST_CANCEL_SUMMARIZE: &str = "roo/host/cancelSummarize";
    /// Parses @-mentions and slash commands in one text.
    pub const MENTIONS_PARSE: &str = "roo/mentions/parse";
    /// Expands mentions in a whole user content array (`processUserContentMentions`).
    pub const MENTIONS_PROCESS_USER_CONTENT: &str = "roo/mentions/processUserContent";
    /// Turns image mentions into data URLs (`resolveImageMentions`).
    pub const MENTIONS_RESOLVE_IMAGES: &str = "roo/mentions/resolveImages";
    /// Server-to-client request: resolve `@problems`, `@terminal` or a URL.
    pub const HOST_RESOLVE_MENTION: &str = "roo/host/resolveMention";
    /// Test-only (enabled by `ROO_CONTEXT_DEBUG_METHODS=1`): panics inside a handler.
    pub const DEBUG_PANIC: &str = "roo/debug/panic";
    /// Test-only: holds a heavy-work slot until the request is cancelled.
    pub const DEBUG_HOLD: &str = "roo/debug/hold";

    /// Every client-to-server custom method, for capability advertising.
    pub const ALL_REQUESTS: &[&str] = &[
        IGNORE_VALIDATE_ACCESS,
        IGNORE_FILTER_PATHS,
        IGNORE_FORMAT_FILES_LIST,
        IGNORE_VALIDATE_COMMAND,
        IGNORE_INSTRUCTIONS,
        PROTECT_CHECK,
        PROTECT_ANNOTATE,
        PROTECT_INSTRUCTIONS,
        WORKSPACE_STATUS,
        FOLD_CONTEXT,
        FOLD_OUTLINE,
        HISTORY_EFFECTIVE,
        HISTORY_MERGE,
        HISTORY_REWIND,
        TOKENS_COUNT,
        FILES_TRACK,
        FILES_MARK_ROO_EDITED,
        FILES_READ,
        FILES_TAKE_RECENTLY_MODIFIED,
        FILES_TAKE_CHECKPOINT_POSSIBLE,
        FILES_DISPOSE_TASK,
        CONTEXT_MANAGE,
        CONTEXT_WILL_MANAGE,
        CONTEXT_CLASSIFY_ERROR,
        CONTEXT_VERIFY_SUMMARY,
        MENTIONS_PARSE,
        MENTIONS_PROCESS_USER_CONTENT,
        MENTIONS_RESOLVE_IMAGES,
    ];
}
