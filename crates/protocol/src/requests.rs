//! The method table: every client-to-server request declared once, with its `Params` and
//! `Result` types and its lane (how the server runs it). Advertising in `initialize`
//! ([`crate::methods::ALL_REQUESTS`]), the JSON Schema and TypeScript generation
//! (`schema::protocol_schema`), the server's registration and its inline/blocking choice all
//! expand [`for_each_request!`]; nothing else lists the requests.
//!
//! Adding a request: one row in [`for_each_request!`] (its name constant in [`crate::methods`] is
//! generated from it), one handler in the server (`impl Handler` or `impl WaitingHandler` for the marker type
//! generated here) and one section in docs/protocol.md. Forgetting the handler does not compile;
//! forgetting the section fails `docs_name_every_method` (server) and the TS check.

use serde::Serialize;
use serde::de::DeserializeOwned;

/// How the server runs a request's handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lane {
    /// On the async worker: reads of the in-memory state only, no file system, nothing that
    /// grows with the input.
    Inline,
    /// On the blocking pool (`rpc::blocking`: bounded, cancellable): file-system access,
    /// parsing, tokenizing, anything proportional to the input.
    Blocking,
    /// An async handler that waits on something outside the request: the host (a server-to-client
    /// request) or a task actor of the file tracker. Its own heavy steps use `rpc::blocking`.
    Waiting,
}

/// A client-to-server request of the protocol (implemented by the marker types of [`self`]).
pub trait RooRequest {
    /// The wire name.
    const METHOD: &'static str;
    /// How the server runs it.
    const LANE: Lane;
    /// The params type (a request without params is decoded from `{}`).
    type Params: DeserializeOwned + Send + 'static;
    /// The result type.
    type Result: Serialize + Send + 'static;
}

/// Calls `$callback!` with every row of the method table:
/// `/// doc` `Marker = NAME_CONSTANT "wire/name", module::Params => module::Result, lane;` where the
/// lane is `inline`, `blocking` or `waiting` ([`Lane`]). Type paths are relative to this crate's
/// root; the name constant is generated into [`crate::methods`].
#[macro_export]
macro_rules! for_each_request {
    ($callback:ident) => {
        $callback! {
            /// Read access for a batch of paths.
            ValidateAccess = IGNORE_VALIDATE_ACCESS "roo/ignore/validateAccess", access::ValidateAccessParams => access::ValidateAccessResult, blocking;
            /// Keeps the paths that may be read.
            FilterPaths = IGNORE_FILTER_PATHS "roo/ignore/filterPaths", access::FilterPathsParams => access::FilterPathsResult, blocking;
            /// The text a list-files tool shows the model (ignored hidden or locked, protected shielded).
            FormatFilesList = IGNORE_FORMAT_FILES_LIST "roo/ignore/formatFilesList", access::FormatFilesListParams => access::FormatFilesListResult, blocking;
            /// Vets a shell command line.
            ValidateCommand = IGNORE_VALIDATE_COMMAND "roo/ignore/validateCommand", access::ValidateCommandParams => access::ValidateCommandResult, blocking;
            /// The ignore file's LLM instructions.
            IgnoreInstructions = IGNORE_INSTRUCTIONS "roo/ignore/instructions", access::IgnoreInstructionsParams => access::IgnoreInstructionsResult, inline;
            /// The ignore file of a folder as the host has it (instead of the disk's).
            IgnoreSetRules = IGNORE_SET_RULES "roo/ignore/setRules", access::SetIgnoreRulesParams => access::SetIgnoreRulesResult, inline;
            /// Write protection for a batch of paths.
            ProtectCheck = PROTECT_CHECK "roo/protect/check", access::ProtectParams => access::ProtectCheckResult, blocking;
            /// The original's `annotatePathsWithProtection`.
            ProtectAnnotate = PROTECT_ANNOTATE "roo/protect/annotate", access::ProtectParams => access::ProtectAnnotateResult, blocking;
            /// The protect controller's LLM instructions.
            ProtectInstructions = PROTECT_INSTRUCTIONS "roo/protect/instructions", access::ProtectInstructionsParams => access::ProtectInstructionsResult, inline;
            /// Workspace folders, active ignore files, reload errors and settings.
            WorkspaceStatus = WORKSPACE_STATUS "roo/workspace/status", workspace::WorkspaceStatusParams => workspace::WorkspaceStatusResult, inline;
            /// Folded file context (definitions only) of files the agent read.
            FoldContext = FOLD_CONTEXT "roo/fold/context", fold::FoldContextParams => fold::FoldContextResult, blocking;
            /// The outline of one file.
            FoldOutline = FOLD_OUTLINE "roo/fold/outline", fold::FoldOutlineParams => fold::FoldOutlineResult, blocking;
            /// The effective API history (what the model sees).
            HistoryEffective = HISTORY_EFFECTIVE "roo/history/effective", history::EffectiveHistoryParams => history::EffectiveHistoryResult, blocking;
            /// Hold a task's history in the sidecar: sent once, then changed by ops (issue 29).
            HistoryOpen = HISTORY_OPEN "roo/history/open", sync::HistoryOpenParams => sync::HistoryOpenResult, waiting;
            /// Apply an ordered batch of ops to a held history, whole or not at all.
            HistoryChange = HISTORY_CHANGE "roo/history/change", sync::HistoryChangeParams => sync::HistoryChangeResult, waiting;
            /// Read messages of a held history (a host that lost its copy).
            HistoryRead = HISTORY_READ "roo/history/read", sync::HistoryReadParams => sync::HistoryReadResult, waiting;
            /// Write a held history's `api_conversation_history.json` now (`persist: sidecar`).
            HistoryFlush = HISTORY_FLUSH "roo/history/flush", sync::HistoryTaskParams => sync::HistoryFlushResult, waiting;
            /// Flush and forget a held history.
            HistoryClose = HISTORY_CLOSE "roo/history/close", sync::HistoryTaskParams => sync::HistoryFlushResult, waiting;
            /// Merge consecutive same-role messages for an API request.
            HistoryMerge = HISTORY_MERGE "roo/history/merge", history::MergeHistoryParams => history::MergeHistoryResult, blocking;
            /// Rewind the API history to a UI event.
            HistoryRewind = HISTORY_REWIND "roo/history/rewind", history::RewindParams => history::RewindResult, blocking;
            /// Clear the tags whose summary or marker is gone (`cleanupAfterTruncation`).
            HistoryCleanup = HISTORY_CLEANUP "roo/history/cleanup", history::CleanupHistoryParams => history::CleanupHistoryResult, blocking;
            /// The sliding window alone: hide a fraction of the visible history behind a marker.
            HistoryTruncate = HISTORY_TRUNCATE "roo/history/truncate", history::TruncateHistoryParams => history::TruncateHistoryResult, blocking;
            /// Tool blocks as text, for a summarization request (`transformMessagesForCondensing`).
            HistoryToolBlocksAsText = HISTORY_TOOL_BLOCKS_AS_TEXT "roo/history/toolBlocksAsText", history::ToolBlocksAsTextParams => history::ShapedHistoryResult, blocking;
            /// Answers every orphan tool use, for a summarization request.
            HistoryInjectSyntheticToolResults = HISTORY_INJECT_SYNTHETIC_TOOL_RESULTS "roo/history/injectSyntheticToolResults", history::InjectSyntheticToolResultsParams => history::ShapedHistoryResult, blocking;
            /// The `<command>` blocks of a message (`extractCommandBlocks`).
            HistoryCommandBlocks = HISTORY_COMMAND_BLOCKS "roo/history/commandBlocks", history::CommandBlocksParams => history::CommandBlocksResult, blocking;
            /// Count tokens of text, blocks or a whole history.
            TokensCount = TOKENS_COUNT "roo/tokens/count", history::CountTokensParams => history::CountTokensResult, blocking;
            /// Record that a task has a file in context (and watch it).
            FilesTrack = FILES_TRACK "roo/files/track", files::TrackParams => files::TrackResult, waiting;
            /// Record what the agent writes to a file, so its own write is not a user edit.
            FilesMarkRooEdited = FILES_MARK_ROO_EDITED "roo/files/markRooEdited", files::MarkRooEditedParams => files::MarkRooEditedResult, waiting;
            /// Files the agent read, newest first (the original's `getFilesReadByRoo`).
            FilesRead = FILES_READ "roo/files/read", files::FilesReadParams => files::FilesReadResult, waiting;
            /// Get and clear the files changed behind the agent's back.
            FilesTakeRecentlyModified = FILES_TAKE_RECENTLY_MODIFIED "roo/files/takeRecentlyModified", files::TakeRecentlyModifiedParams => files::FilesTakeResult, waiting;
            /// The host delivered a `takeRecentlyModified` notice to the model: advance its baselines.
            FilesAckNotice = FILES_ACK_NOTICE "roo/files/ackNotice", files::AckNoticeParams => files::AckNoticeResult, waiting;
            /// Get and clear the files the agent edited since the last call.
            FilesTakeCheckpointPossible = FILES_TAKE_CHECKPOINT_POSSIBLE "roo/files/takeCheckpointPossible", files::FilesTaskParams => files::FilesTakeResult, waiting;
            /// Stop watching a task's files and forget its in-memory state.
            FilesDisposeTask = FILES_DISPOSE_TASK "roo/files/disposeTask", files::FilesTaskParams => files::DisposeTaskResult, waiting;
            /// Condense or truncate the history (manual, automatic or emergency trigger).
            ContextManage = CONTEXT_MANAGE "roo/context/manage", context::ManageContextParams => context::ManageContextResult, waiting;
            /// One condense now (`summarizeConversation`): no threshold or budget, the host writes the summary.
            ContextCondense = CONTEXT_CONDENSE "roo/context/condense", context::CondenseParams => context::CondenseResult, waiting;
            /// Whether an automatic `roo/context/manage` would act (numbers only).
            ContextWillManage = CONTEXT_WILL_MANAGE "roo/context/willManage", context::WillManageContextParams => context::WillManageContextResult, blocking;
            /// Whether a provider error is a context-window-exceeded error.
            ContextClassifyError = CONTEXT_CLASSIFY_ERROR "roo/context/classifyError", context::ClassifyErrorParams => context::ClassifyErrorResult, blocking;
            /// Checks a summary against the history it replaces; returns the report and the addendum.
            ContextVerifySummary = CONTEXT_VERIFY_SUMMARY "roo/context/verifySummary", context::VerifySummaryParams => context::VerifySummaryResult, waiting;
            /// Where to put up to 4 prompt-cache breakpoints in the effective history (issue 30).
            ContextCacheBreakpoints = CONTEXT_CACHE_BREAKPOINTS "roo/context/cacheBreakpoints", context::CacheBreakpointsParams => context::CacheBreakpointsResult, blocking;
            /// Masks old tool outputs and elides superseded file reads, non-destructively (issue 31).
            ContextHygiene = CONTEXT_HYGIENE "roo/context/hygiene", context::ContextHygieneParams => context::ContextHygieneResult, blocking;
            /// Bounds a tool output under a token cap and stores it whole (issue 31).
            OutputIngest = OUTPUT_INGEST "roo/output/ingest", output::IngestOutputParams => output::IngestOutputResult, blocking;
            /// Pages a stored tool output exactly, by line range or pattern.
            OutputRead = OUTPUT_READ "roo/output/read", output::ReadOutputParams => output::ReadOutputResult, blocking;
            /// Parses @-mentions and slash commands in one text.
            MentionsParse = MENTIONS_PARSE "roo/mentions/parse", mentions::ParseMentionsParams => mentions::ParseMentionsResult, waiting;
            /// Expands mentions in a whole user content array (`processUserContentMentions`).
            MentionsProcessUserContent = MENTIONS_PROCESS_USER_CONTENT "roo/mentions/processUserContent", mentions::ProcessUserContentParams => mentions::ProcessUserContentResult, waiting;
            /// Turns image mentions into data URLs (`resolveImageMentions`).
            MentionsResolveImages = MENTIONS_RESOLVE_IMAGES "roo/mentions/resolveImages", mentions::ResolveImagesParams => mentions::ResolveImagesResult, blocking;
        }
    };
}

/// The lane of a table row's lane token.
#[doc(hidden)]
#[macro_export]
macro_rules! lane_of {
    (inline) => {
        $crate::requests::Lane::Inline
    };
    (blocking) => {
        $crate::requests::Lane::Blocking
    };
    (waiting) => {
        $crate::requests::Lane::Waiting
    };
}

macro_rules! declare_requests {
    ($($(#[doc = $doc:literal])* $marker:ident = $name:ident $wire:literal, $params:ty => $result:ty, $lane:ident;)*) => {
        /// The name constants of the table's requests (re-exported by [`crate::methods`]).
        pub mod names {
            $($(#[doc = $doc])* pub const $name: &str = $wire;)*
        }

        $(
            #[doc = concat!("Marker type of `", stringify!($name), "` in the method table.")]
            #[derive(Debug)]
            pub enum $marker {}

            impl RooRequest for $marker {
                const METHOD: &'static str = names::$name;
                const LANE: Lane = crate::lane_of!($lane);
                type Params = $params;
                type Result = $result;
            }
        )*

        /// Every client-to-server request name, in table order (advertised in `initialize`).
        pub const ALL: &[&str] = &[$(names::$name),*];
    };
}

use crate::{access, context, files, fold, history, mentions, output, sync, workspace};

for_each_request!(declare_requests);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_request_name_is_unique_and_namespaced() {
        let mut seen = std::collections::HashSet::new();
        for name in ALL {
            assert!(name.starts_with("roo/"), "{name}");
            assert!(seen.insert(*name), "{name} twice in the table");
        }
    }

    #[test]
    fn lanes_follow_the_blocking_rule_for_path_batches() {
        // Path batches touch the file system and grow with the input: never inline.
        assert_eq!(ValidateAccess::LANE, Lane::Blocking);
        assert_eq!(FilterPaths::LANE, Lane::Blocking);
        assert_eq!(ProtectCheck::LANE, Lane::Blocking);
        assert_eq!(ValidateCommand::LANE, Lane::Blocking);
        assert_eq!(ContextWillManage::LANE, Lane::Blocking);
        assert_eq!(WorkspaceStatus::LANE, Lane::Inline);
    }
}
