//! One actor per task: the only owner of its [`TaskFiles`] and the only writer of its
//! `task_metadata.json`, fed through a mailbox so no update is lost.

use super::*;
use crate::baselines::{Baselines, SeenContent};
use roo_context_core::stale_diff::DiffLimits;
use roo_context_protocol::files::{AckNoticeResult, FileChangeKind, FilesTakeResult};

/// Paths read by the agent, and the recovery of a corrupt file if this opened the task.
pub(super) type FilesRead = (Vec<String>, Option<MetadataRecovery>);

/// One task actor's mailbox.
pub(super) enum Command {
    Track {
        key: String,
        source: RecordSource,
        seen: Seen,
        baseline: Option<SeenContent>,
        reply: oneshot::Sender<Result<Option<MetadataRecovery>, TrackerError>>,
    },
    Mark {
        key: String,
        seen: Seen,
        baseline: Option<SeenContent>,
        reply: oneshot::Sender<Result<(), TrackerError>>,
    },
    Read {
        since: Option<i64>,
        reply: oneshot::Sender<Result<FilesRead, TrackerError>>,
    },
    Edited {
        reply: oneshot::Sender<Result<Vec<String>, TrackerError>>,
    },
    TakeRecentlyModified {
        reply: oneshot::Sender<Result<Vec<String>, TrackerError>>,
    },
    TakeCheckpointPossible {
        reply: oneshot::Sender<Result<Vec<String>, TrackerError>>,
    },
    /// `takeRecentlyModified` with `withDiffs` (baselines.rs).
    TakeWithDiffs {
        state: Arc<SharedState>,
        limits: DiffLimits,
        reply: oneshot::Sender<Result<FilesTakeResult, TrackerError>>,
    },
    AckNotice {
        notice_id: String,
        reply: oneshot::Sender<Result<AckNoticeResult, TrackerError>>,
    },
    /// The task's records, for summary verification (issue 19).
    Records {
        reply: oneshot::Sender<Result<TaskMetadata, TrackerError>>,
    },
    Observe {
        key: String,
        observed: Fingerprint,
        hint: ChangeHint,
    },
    Dispose {
        reply: oneshot::Sender<Result<(), TrackerError>>,
        /// Dropped when the actor has written its last state.
        done: oneshot::Sender<()>,
    },
}

pub(super) fn send(handle: &TaskHandle, command: Command) -> Result<(), TrackerError> {
    handle.commands.send(command).map_err(|_| {
        handle
            .failure
            .get()
            .cloned()
            .unwrap_or_else(|| TrackerError::Io("the task was closed".into()))
    })
}

pub(super) async fn receive<T>(
    answer: oneshot::Receiver<Result<T, TrackerError>>,
) -> Result<T, TrackerError> {
    answer
        .await
        .map_err(|_| TrackerError::Io("the task was closed".into()))?
}

/// The single writer of one task's metadata.
pub(super) struct TaskActor {
    pub(super) task_id: String,
    pub(super) generation: u64,
    pub(super) storage: Option<PathBuf>,
    pub(super) failure: Arc<std::sync::OnceLock<TrackerError>>,
    pub(super) registry: Arc<Mutex<Registry>>,
    pub(super) changes: mpsc::UnboundedSender<FileDidChangeParams>,
}

/// A reply owed once the batch is persisted.
pub(super) enum Owed {
    Track(
        oneshot::Sender<Result<Option<MetadataRecovery>, TrackerError>>,
        Option<MetadataRecovery>,
    ),
    Done(oneshot::Sender<Result<(), TrackerError>>),
}

impl TaskActor {
    pub(super) async fn run(
        self,
        mut mailbox: mpsc::UnboundedReceiver<Command>,
        previous: Option<oneshot::Receiver<()>>,
    ) {
        if let Some(previous) = previous {
            let _ = previous.await;
        }
        let loaded = match self.storage.clone() {
            Some(dir) => tokio::task::spawn_blocking(move || load(&dir))
                .await
                .unwrap_or_else(|e| Err(TrackerError::Io(e.to_string()))),
            None => Ok((TaskMetadata::default(), None)),
        };
        let (metadata, mut recovery) = match loaded {
            Ok(loaded) => loaded,
            Err(error) => {
                self.fail(mailbox, error);
                return;
            }
        };
        let mut task = TaskFiles::new(metadata);
        let mut baselines = Baselines::open(self.storage.clone()).await;
        let mut dirty = false;
        let mut retire = None;
        while let Some(first) = mailbox.recv().await {
            let mut batch = vec![first];
            while let Ok(more) = mailbox.try_recv() {
                batch.push(more);
            }
            let now = now_ms();
            let mut owed = Vec::new();
            let mut disposing = false;
            // Sent once the records behind them are on disk.
            let mut notices = Vec::new();
            for command in batch {
                match command {
                    Command::Track {
                        key,
                        source,
                        seen,
                        baseline,
                        reply,
                    } => {
                        let seen = resolve_seen(seen).await;
                        if source != RecordSource::UserEdited {
                            baselines.saw(&key, &source, baseline, seen, now).await;
                        }
                        task.track(&key, source, seen, now);
                        dirty = true;
                        owed.push(Owed::Track(reply, recovery.take()));
                    }
                    Command::Mark {
                        key,
                        seen,
                        baseline,
                        reply,
                    } => {
                        let seen = resolve_seen(seen).await;
                        let source = RecordSource::RooEdited;
                        baselines.saw(&key, &source, baseline, seen, now).await;
                        if let Some(seen) = seen {
                            task.mark_agent_edited(&key, seen);
                        }
                        let _ = reply.send(Ok(()));
                    }
                    Command::Read { since, reply } => {
                        let _ = reply.send(Ok((task.files_read_by_agent(since), recovery.take())));
                    }
                    Command::Edited { reply } => {
                        let _ = reply.send(Ok(task.files_edited_by_agent()));
                    }
                    Command::TakeRecentlyModified { reply } => {
                        let _ = reply.send(Ok(task.take_recently_modified()));
                    }
                    Command::TakeCheckpointPossible { reply } => {
                        let _ = reply.send(Ok(task.take_checkpoint_possible()));
                    }
                    Command::TakeWithDiffs {
                        state,
                        limits,
                        reply,
                    } => {
                        let fresh = task.take_recently_modified();
                        let _ = reply.send(Ok(baselines.take(fresh, state, limits).await));
                    }
                    Command::AckNotice { notice_id, reply } => {
                        let _ = reply.send(Ok(baselines.ack(&notice_id, now).await));
                    }
                    Command::Records { reply } => {
                        let _ = reply.send(Ok(task.metadata.clone()));
                    }
                    Command::Observe {
                        key,
                        observed,
                        hint,
                    } => {
                        if let Some(change) = task.observe(&key, observed, &hint, now) {
                            baselines.observed(&change);
                            dirty = true;
                            let (kind, new_path) = match change.kind {
                                ChangeKind::Modified => (FileChangeKind::Modified, None),
                                ChangeKind::Deleted => (FileChangeKind::Deleted, None),
                                ChangeKind::Renamed { to } => (FileChangeKind::Renamed, to),
                            };
                            notices.push(FileDidChangeParams {
                                task_id: self.task_id.clone(),
                                path: change.path,
                                kind,
                                new_path,
                            });
                        }
                    }
                    Command::Dispose { reply, done } => {
                        task.stop_watching();
                        disposing = true;
                        retire = Some(done);
                        owed.push(Owed::Done(reply));
                    }
                }
            }
            baselines.flush().await;
            let outcome = if dirty {
                self.persist(&task).await
            } else {
                Ok(())
            };
            if outcome.is_ok() {
                dirty = false;
            } else if let Err(error) = &outcome {
                tracing::warn!(task = %self.task_id, %error, "task metadata not saved");
            }
            for notice in notices {
                let _ = self.changes.send(notice);
            }
            for debt in owed {
                match debt {
                    Owed::Track(reply, recovery) => {
                        let _ = reply.send(outcome.clone().map(|()| recovery));
                    }
                    Owed::Done(reply) => {
                        let _ = reply.send(outcome.clone());
                    }
                }
            }
            if disposing {
                break;
            }
        }
        drop(retire);
    }

    async fn persist(&self, task: &TaskFiles) -> Result<(), TrackerError> {
        let Some(dir) = self.storage.clone() else {
            return Ok(());
        };
        let json = task.metadata.to_json();
        tokio::task::spawn_blocking(move || {
            write_atomically(&dir, &json).map_err(|error| {
                TrackerError::Io(format!(
                    "cannot save {}: {error}",
                    dir.join(TASK_METADATA_FILE).display()
                ))
            })
        })
        .await
        .unwrap_or_else(|e| Err(TrackerError::Io(e.to_string())))
    }

    /// The metadata could not be loaded: answer every request with the error and leave the
    /// registry, so the next request tries again.
    fn fail(self, mut mailbox: mpsc::UnboundedReceiver<Command>, error: TrackerError) {
        tracing::warn!(task = %self.task_id, %error, "task not opened");
        if let Ok(mut registry) = self.registry.lock()
            && registry
                .open
                .get(&self.task_id)
                .is_some_and(|h| h.generation == self.generation)
        {
            registry.open.remove(&self.task_id);
        }
        let _ = self.failure.set(error.clone());
        mailbox.close();
        while let Ok(command) = mailbox.try_recv() {
            match command {
                Command::Track { reply, .. } => {
                    let _ = reply.send(Err(error.clone()));
                }
                Command::Read { reply, .. } => {
                    let _ = reply.send(Err(error.clone()));
                }
                Command::Mark { reply, .. } | Command::Dispose { reply, .. } => {
                    let _ = reply.send(Err(error.clone()));
                }
                Command::TakeRecentlyModified { reply }
                | Command::TakeCheckpointPossible { reply }
                | Command::Edited { reply } => {
                    let _ = reply.send(Err(error.clone()));
                }
                Command::TakeWithDiffs { reply, .. } => {
                    let _ = reply.send(Err(error.clone()));
                }
                Command::AckNotice { reply, .. } => {
                    let _ = reply.send(Err(error.clone()));
                }
                Command::Records { reply } => {
                    let _ = reply.send(Err(error.clone()));
                }
                Command::Observe { .. } => {}
            }
        }
    }
}

pub(super) async fn resolve_seen(seen: Seen) -> Option<Fingerprint> {
    match seen {
        Seen::Known(fingerprint) => Some(fingerprint),
        Seen::NotWatched => None,
        Seen::ReadFrom(path, policy) => {
            tokio::task::spawn_blocking(move || fingerprint_of_file(&policy, &path))
                .await
                .ok()
                .flatten()
        }
    }
}
