//! `roo/files/*`: protocol params into [`FileTracker`] calls, tracker errors into JSON-RPC
//! errors (bad input → InvalidParams, storage failures → InternalError with the file named).

use std::path::Path;

use roo_context_core::tracker::RecordSource;
use roo_context_protocol::files::*;
use tower_lsp_server::jsonrpc::{Error, Result};

use crate::rpc::internal;
use crate::tracker::{FileTracker, TrackerError};

fn to_rpc(error: TrackerError) -> Error {
    match error {
        TrackerError::UnknownTask(_)
        | TrackerError::MissingStorage(_)
        | TrackerError::StorageMismatch { .. } => Error::invalid_params(error.to_string()),
        TrackerError::Io(_) => internal(error.to_string()),
    }
}

/// The core's record source for a wire source.
pub fn record_source(source: FileSource) -> RecordSource {
    match source {
        FileSource::ReadTool => RecordSource::ReadTool,
        FileSource::FileMentioned => RecordSource::FileMentioned,
        FileSource::RooEdited => RecordSource::RooEdited,
        FileSource::UserEdited => RecordSource::UserEdited,
    }
}

/// `roo/files/track`.
pub async fn track(tracker: &FileTracker, params: TrackParams) -> Result<TrackResult> {
    let (watched, recovery) = tracker
        .track(
            &params.task_id,
            Some(Path::new(&params.storage_dir)),
            &params.path,
            record_source(params.source),
            params.content.as_deref(),
            params.cwd.as_deref(),
        )
        .await
        .map_err(to_rpc)?;
    Ok(TrackResult {
        watched: watched.is_ok(),
        not_watched_reason: watched.err().map(str::to_owned),
        recovery,
    })
}

/// `roo/files/markRooEdited`.
pub async fn mark_roo_edited(
    tracker: &FileTracker,
    params: MarkRooEditedParams,
) -> Result<MarkRooEditedResult> {
    let watched = tracker
        .mark_roo_edited(
            &params.task_id,
            &params.path,
            params.content.as_deref(),
            params.deleted,
            params.cwd.as_deref(),
        )
        .await
        .map_err(to_rpc)?;
    Ok(MarkRooEditedResult { watched })
}

/// `roo/files/read`.
pub async fn files_read(tracker: &FileTracker, params: FilesReadParams) -> Result<FilesReadResult> {
    let (paths, recovery) = tracker
        .files_read(
            &params.task_id,
            params.storage_dir.as_deref().map(Path::new),
            params.since,
        )
        .await
        .map_err(to_rpc)?;
    Ok(FilesReadResult { paths, recovery })
}

/// `roo/files/takeRecentlyModified`: the original's paths, or with `withDiffs` the notice of
/// baselines.rs.
pub async fn take_recently_modified(
    tracker: &FileTracker,
    params: TakeRecentlyModifiedParams,
) -> Result<FilesTakeResult> {
    if params.with_diffs {
        let limits = crate::baselines::diff_limits(params.limits.as_ref());
        return tracker
            .take_with_diffs(&params.task_id, limits)
            .await
            .map_err(to_rpc);
    }
    let paths = tracker
        .take_recently_modified(&params.task_id)
        .await
        .map_err(to_rpc)?;
    Ok(paths_only(paths))
}

fn paths_only(paths: Vec<String>) -> FilesTakeResult {
    FilesTakeResult {
        paths,
        notice_id: None,
        changes: None,
        text: None,
    }
}

/// `roo/files/ackNotice`.
pub async fn ack_notice(tracker: &FileTracker, params: AckNoticeParams) -> Result<AckNoticeResult> {
    tracker
        .ack_notice(&params.task_id, &params.notice_id)
        .await
        .map_err(to_rpc)
}

/// `roo/files/takeCheckpointPossible`.
pub async fn take_checkpoint_possible(
    tracker: &FileTracker,
    params: FilesTaskParams,
) -> Result<FilesTakeResult> {
    let paths = tracker
        .take_checkpoint_possible(&params.task_id)
        .await
        .map_err(to_rpc)?;
    Ok(paths_only(paths))
}

/// `roo/files/disposeTask`.
pub async fn dispose_task(
    tracker: &FileTracker,
    params: FilesTaskParams,
) -> Result<DisposeTaskResult> {
    let disposed = tracker.dispose(&params.task_id).await.map_err(to_rpc)?;
    Ok(DisposeTaskResult { disposed })
}
