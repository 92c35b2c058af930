//! `roo/files/*`: protocol params into [`FileTracker`] calls, tracker errors into [`RpcError`]s
//! (bad input → invalid params naming the field, storage failures → internal, the file named).

use std::path::Path;

use roo_context_core::tracker::RecordSource;
use roo_context_protocol::files::*;
use roo_context_protocol::requests;

use super::{Snapshot, WaitingHandler};
use crate::rpc::RpcError;
use crate::tracker::TrackerError;

impl From<TrackerError> for RpcError {
    fn from(error: TrackerError) -> RpcError {
        match &error {
            TrackerError::UnknownTask(_) => RpcError::field("taskId", error),
            TrackerError::MissingStorage(_) | TrackerError::StorageMismatch { .. } => {
                RpcError::field("storageDir", error)
            }
            TrackerError::Io(_) => RpcError::internal(error),
        }
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
impl WaitingHandler for requests::FilesTrack {
    async fn handle(snapshot: Snapshot, params: TrackParams) -> Result<TrackResult, RpcError> {
        let (watched, recovery) = snapshot
            .tracker()?
            .track(
                &params.task_id,
                Some(Path::new(&params.storage_dir)),
                &params.path,
                record_source(params.source),
                params.content.as_deref(),
                params.cwd.as_deref(),
                params.partial,
            )
            .await?;
        Ok(TrackResult {
            watched: watched.is_ok(),
            not_watched_reason: watched.err(),
            recovery,
        })
    }
}

/// `roo/files/markRooEdited`.
impl WaitingHandler for requests::FilesMarkRooEdited {
    async fn handle(
        snapshot: Snapshot,
        params: MarkRooEditedParams,
    ) -> Result<MarkRooEditedResult, RpcError> {
        let watched = snapshot
            .tracker()?
            .mark_roo_edited(
                &params.task_id,
                &params.path,
                params.content.as_deref(),
                params.deleted,
                params.cwd.as_deref(),
            )
            .await?;
        Ok(MarkRooEditedResult { watched })
    }
}

/// `roo/files/read`.
impl WaitingHandler for requests::FilesRead {
    async fn handle(
        snapshot: Snapshot,
        params: FilesReadParams,
    ) -> Result<FilesReadResult, RpcError> {
        let storage = params.storage_dir.as_deref().map(Path::new);
        let (paths, recovery) = snapshot
            .tracker()?
            .files_read(&params.task_id, storage, params.since)
            .await?;
        Ok(FilesReadResult { paths, recovery })
    }
}

/// `roo/files/takeRecentlyModified`: the original's paths, or with `withDiffs` the notice of
/// baselines.rs.
impl WaitingHandler for requests::FilesTakeRecentlyModified {
    async fn handle(
        snapshot: Snapshot,
        params: TakeRecentlyModifiedParams,
    ) -> Result<FilesTakeResult, RpcError> {
        let tracker = snapshot.tracker()?;
        if params.with_diffs {
            let limits = crate::baselines::diff_limits(params.limits.as_ref());
            return Ok(tracker.take_with_diffs(&params.task_id, limits).await?);
        }
        let paths = tracker.take_recently_modified(&params.task_id).await?;
        Ok(paths_only(paths))
    }
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
impl WaitingHandler for requests::FilesAckNotice {
    async fn handle(
        snapshot: Snapshot,
        params: AckNoticeParams,
    ) -> Result<AckNoticeResult, RpcError> {
        let tracker = snapshot.tracker()?;
        Ok(tracker
            .ack_notice(&params.task_id, &params.notice_id)
            .await?)
    }
}

/// `roo/files/takeCheckpointPossible`.
impl WaitingHandler for requests::FilesTakeCheckpointPossible {
    async fn handle(
        snapshot: Snapshot,
        params: FilesTaskParams,
    ) -> Result<FilesTakeResult, RpcError> {
        let tracker = snapshot.tracker()?;
        let paths = tracker.take_checkpoint_possible(&params.task_id).await?;
        Ok(paths_only(paths))
    }
}

/// `roo/files/disposeTask`.
impl WaitingHandler for requests::FilesDisposeTask {
    async fn handle(
        snapshot: Snapshot,
        params: FilesTaskParams,
    ) -> Result<DisposeTaskResult, RpcError> {
        let disposed = snapshot.tracker()?.dispose(&params.task_id).await?;
        Ok(DisposeTaskResult { disposed })
    }
}
