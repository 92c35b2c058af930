//! The method table: every client-to-server request declared once, with its `Params` and
//! `Result` types and its lane (how the server runs it). Advertising in `initialize`
//! ([`crate::methods::ALL_REQUESTS`]), the JSON Schema and TypeScript generation
//! (`schema::protocol_schema`), the server's registration and its inline/blocking choice all
//! expand [`for_each_request!`]; nothing else lists the requests.
//!
//! Adding a request: its name constant in [`crate::methods`], one row in [`for_each_request!`],
//! one handler in the server (`impl Handler` or `impl WaitingHandler` for the marker type
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
/// `Marker = NAME_CONSTANT, module::Params => module::Result, lane;` where the lane is `inline`,
/// `blocking` or `waiting` ([`Lane`]). Type paths are relative to this crate's root.
#[macro_export]
macro_rules! for_each_request {
    ($callback:ident) => {
        $callback! {
            ValidateAccess = IGNORE_VALIDATE_ACCESS, access::ValidateAccessParams => access::ValidateAccessResult, blocking;
            FilterPaths = IGNORE_FILTER_PATHS, access::FilterPathsParams => access::FilterPathsResult, blocking;
            FormatFilesList = IGNORE_FORMAT_FILES_LIST, access::FormatFilesListParams => access::FormatFilesListResult, blocking;
            ValidateCommand = IGNORE_VALIDATE_COMMAND, access::ValidateCommandParams => access::ValidateCommandResult, blocking;
            IgnoreInstructions = IGNORE_INSTRUCTIONS, access::IgnoreInstructionsParams => access::IgnoreInstructionsResult, inline;
            ProtectCheck = PROTECT_CHECK, access::ProtectParams => access::ProtectCheckResult, blocking;
            ProtectAnnotate = PROTECT_ANNOTATE, access::ProtectParams => access::ProtectAnnotateResult, blocking;
            ProtectInstructions = PROTECT_INSTRUCTIONS, access::ProtectInstructionsParams => access::ProtectInstructionsResult, inline;
            WorkspaceStatus = WORKSPACE_STATUS, workspace::WorkspaceStatusParams => workspace::WorkspaceStatusResult, inline;
            FoldContext = FOLD_CONTEXT, fold::FoldContextParams => fold::FoldContextResult, blocking;
            FoldOutline = FOLD_OUTLINE, fold::FoldOutlineParams => fold::FoldOutlineResult, blocking;
            HistoryEffective = HISTORY_EFFECTIVE, history::EffectiveHistoryParams => history::EffectiveHistoryResult, blocking;
            HistoryMerge = HISTORY_MERGE, history::MergeHistoryParams => history::MergeHistoryResult, blocking;
            HistoryRewind = HISTORY_REWIND, history::RewindParams => history::RewindResult, blocking;
            TokensCount = TOKENS_COUNT, history::CountTokensParams => history::CountTokensResult, blocking;
            FilesTrack = FILES_TRACK, files::TrackParams => files::TrackResult, waiting;
            FilesMarkRooEdited = FILES_MARK_ROO_EDITED, files::MarkRooEditedParams => files::MarkRooEditedResult, waiting;
            FilesRead = FILES_READ, files::FilesReadParams => files::FilesReadResult, waiting;
            FilesTakeRecentlyModified = FILES_TAKE_RECENTLY_MODIFIED, files::FilesTaskParams => files::FilesTakeResult, waiting;
            FilesTakeCheckpointPossible = FILES_TAKE_CHECKPOINT_POSSIBLE, files::FilesTaskParams => files::FilesTakeResult, waiting;
            FilesDisposeTask = FILES_DISPOSE_TASK, files::FilesTaskParams => files::DisposeTaskResult, waiting;
            ContextManage = CONTEXT_MANAGE, context::ManageContextParams => context::ManageContextResult, waiting;
            ContextWillManage = CONTEXT_WILL_MANAGE, context::WillManageContextParams => context::WillManageContextResult, blocking;
            ContextClassifyError = CONTEXT_CLASSIFY_ERROR, context::ClassifyErrorParams => context::ClassifyErrorResult, blocking;
            MentionsParse = MENTIONS_PARSE, mentions::ParseMentionsParams => mentions::ParseMentionsResult, waiting;
            MentionsProcessUserContent = MENTIONS_PROCESS_USER_CONTENT, mentions::ProcessUserContentParams => mentions::ProcessUserContentResult, waiting;
            MentionsResolveImages = MENTIONS_RESOLVE_IMAGES, mentions::ResolveImagesParams => mentions::ResolveImagesResult, blocking;
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
    ($($marker:ident = $name:ident, $params:ty => $result:ty, $lane:ident;)*) => {
        $(
            #[doc = concat!("Marker type of `", stringify!($name), "` in the method table.")]
            #[derive(Debug)]
            pub enum $marker {}

            impl RooRequest for $marker {
                const METHOD: &'static str = crate::methods::$name;
                const LANE: Lane = crate::lane_of!($lane);
                type Params = $params;
                type Result = $result;
            }
        )*

        /// Every client-to-server request name, in table order (advertised in `initialize`).
        pub const ALL: &[&str] = &[$(crate::methods::$name),*];
    };
}

use crate::{access, context, files, fold, history, mentions, workspace};

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
