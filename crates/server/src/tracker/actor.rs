//! One actor per task: the only owner of its [`TaskFiles`] and the only writer of its
//! `task_metadata.json` (and its journal: each batch appends its change, `journal_file.rs`),
//! fed through a mailbox so no update is lost.

use super::*;
use crate::baselines::{Baselines, SeenContent};
use crate::journal_file::JournaledFile;
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
        /// When `seen` is what the host told: the file to fingerprint as it is on disk now.
        disk: Option<Seen>,
        baseline: Option<SeenContent>,
        partial: bool,
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
    /// Makes the actor panic (tests of its supervisor).
    #[cfg(test)]
    Panic,
}

/// Sends a command; when the actor is gone without a known reason yet, the command (and its
/// reply) is dropped and [`receive`] waits for the reason.
pub(super) fn send(handle: &TaskHandle, command: Command) -> Result<(), TrackerError> {
    match handle.commands.send(command) {
        Ok(()) => Ok(()),
        Err(_) => match handle.failure.get() {
            Some(error) => Err(error.clone()),
            None => Ok(()),
        },
    }
}

/// The actor's reply; when the actor ended without one, why it ended. Waiting for the reply
/// alone is not enough: a command still in flight when the actor's mailbox went away (a failed
/// open, a dispose, a panic) is never read, and its reply is not dropped either, since the
/// channel that holds it is kept alive by this very handle's sender. So the end of the actor
/// (its supervisor's `ended`) also ends the wait (issue 25).
pub(super) async fn receive<T>(
    handle: &TaskHandle,
    mut answer: oneshot::Receiver<Result<T, TrackerError>>,
) -> Result<T, TrackerError> {
    let mut ended = handle.ended.clone();
    let replied = tokio::select! {
        biased;
        result = &mut answer => result.ok(),
        _ = ended.wait_for(Option::is_some) => None,
    };
    if let Some(result) = replied {
        return result;
    }
    // A reply sent just before the actor ended is the answer.
    if let Ok(result) = answer.try_recv() {
        return result;
    }
    if let Some(error) = handle.failure.get() {
        return Err(error.clone());
    }
    let reason = ended
        .wait_for(Option::is_some)
        .await
        .ok()
        .and_then(|r| r.clone());
    Err(reason.unwrap_or_else(|| TrackerError::Io("the task was closed".into())))
}

/// The single writer of one task's metadata.
pub(super) struct TaskActor {
    pub(super) task_id: String,
    pub(super) generation: u64,
    pub(super) storage: Option<PathBuf>,
    pub(super) failure: Arc<std::sync::OnceLock<TrackerError>>,
    pub(super) registry: Arc<Mutex<Registry>>,
    pub(super) changes: ChangeSender,
    /// For the restore of a reopened task and the `diffStat` of its notifications.
    pub(super) state: Arc<SharedState>,
    pub(super) index: Arc<WatchIndex>,
    pub(super) events: mpsc::UnboundedSender<FileEvent>,
}

/// The `diffStat` computed for each notification (by its index in the batch).
type Stats = Vec<(usize, Option<roo_context_protocol::files::DiffStat>)>;

/// Most tracked files a reopened task watches again (the most recently recorded first).
pub(super) const MAX_RESTORED_WATCHES: usize = 10_000;
/// Most `didChange` notifications of one batch that get a `diffStat` (each reads two files).
const MAX_STATS_PER_BATCH: usize = 16;

/// A reply owed once the batch is persisted.
pub(super) enum Owed {
    Track(
        oneshot::Sender<Result<Option<MetadataRecovery>, TrackerError>>,
        Option<MetadataRecovery>,
    ),
    /// State kept in `seen.json` only (an announced write): answered once the index is written.
    Indexed(oneshot::Sender<Result<(), TrackerError>>),
    /// An acknowledgement: answered once the advanced baselines are written.
    Acked(
        oneshot::Sender<Result<AckNoticeResult, TrackerError>>,
        AckNoticeResult,
    ),
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
        // The folder's lock is held while this actor runs (released when it ends, or dies).
        let loaded = match self.storage.clone() {
            Some(dir) => tokio::task::spawn_blocking(move || {
                let lock = lock_task_folder(&dir)?;
                load(&dir).map(|(metadata, recovery, journal)| {
                    (Some(lock), (metadata, recovery, Some(journal)))
                })
            })
            .await
            .unwrap_or_else(|e| Err(TrackerError::Io(e.to_string()))),
            None => Ok((None, (TaskMetadata::default(), None, None))),
        };
        let (lock, (metadata, mut recovery, journal)) = match loaded {
            Ok(loaded) => loaded,
            Err(error) => {
                self.fail(mailbox, error).await;
                return;
            }
        };
        let journal = journal.map(|j| Arc::new(Mutex::new(j)));
        let mut task = TaskFiles::new(metadata);
        let mut baselines = Baselines::open(self.storage.clone()).await;
        // The restored files' observations go first in the first batch.
        let mut initial = if self.storage.is_some() {
            self.restore(&mut task, &mut baselines).await
        } else {
            Vec::new()
        };
        let mut retire = None;
        // The answer to `disposeTask`, sent once the folder's lock is released: another process
        // told "closed" may open the folder at once.
        let mut disposed = None;
        loop {
            let mut batch = std::mem::take(&mut initial);
            if batch.is_empty() {
                match mailbox.recv().await {
                    Some(first) => batch.push(first),
                    None => break,
                }
            }
            while let Ok(more) = mailbox.try_recv() {
                batch.push(more);
            }
            let now = now_ms();
            let mut owed = Vec::new();
            let mut disposing = false;
            // Sent once the records behind them are on disk.
            let mut notices = Vec::new();
            // The content each notice judged (its stat must describe that content).
            let mut judged = Vec::new();
            // Keys whose known content may have changed (persisted for a restore).
            let mut touched = Vec::new();
            let mut observed_keys = Vec::new();
            for command in batch {
                match command {
                    Command::Track {
                        key,
                        source,
                        seen,
                        disk,
                        baseline,
                        partial,
                        reply,
                    } => {
                        let seen = resolve_seen(seen).await;
                        if source != RecordSource::UserEdited {
                            let baseline = baseline.map(|b| SeenContent { partial, ..b });
                            baselines.saw(&key, &source, baseline, seen, now).await;
                        }
                        task.track(&key, source, seen, now);
                        if let Some(disk) = disk
                            && let Some(on_disk) = resolve_seen(disk).await
                        {
                            task.disk_differs_from_seen(&key, on_disk);
                        }
                        touched.push(key);
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
                        touched.push(key);
                        owed.push(Owed::Indexed(reply));
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
                        owed.push(Owed::Acked(reply, baselines.ack(&notice_id, now).await));
                    }
                    Command::Records { reply } => {
                        let _ = reply.send(Ok(task.metadata.clone()));
                    }
                    Command::Observe {
                        key,
                        observed,
                        hint,
                    } => {
                        let change = task.observe(&key, observed, &hint, now);
                        observed_keys.push(key);
                        if let Some(change) = change {
                            baselines.observed(&change);
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
                                diff_stat: None,
                            });
                            judged.push(observed);
                        }
                    }
                    #[cfg(test)]
                    Command::Panic => panic!("a test made the task actor panic"),
                    Command::Dispose { reply, done } => {
                        // What the agent saw, as tracked or judged earlier in this batch, is
                        // persisted before the watches stop: the next reopen compares with it
                        // (after `stop_watching` it would be persisted as unknown).
                        for key in touched.drain(..).chain(observed_keys.drain(..)) {
                            baselines.set_known(&key, task.known(&key), task.superseded(&key));
                        }
                        task.stop_watching();
                        disposing = true;
                        retire = Some(done);
                        disposed = Some(reply);
                    }
                }
            }
            for key in &touched {
                baselines.set_known(key, task.known(key), task.superseded(key));
            }
            let indexed = baselines.flush().await.map_err(TrackerError::Io);
            // The stats of the notifications are computed while the records are written, so
            // they cost the notification nothing as long as they are quicker than the write.
            let stats = self.start_stats(&notices, &judged, &baselines);
            let outcome = self.persist(&mut task, journal.as_ref(), disposing).await;
            if let Some(stats) = stats
                && let Ok(stats) = stats.await
            {
                for (index, stat) in stats {
                    notices[index].diff_stat = stat;
                }
            }
            if let Err(error) = &outcome {
                tracing::warn!(task = %self.task_id, %error, "task metadata not saved");
            }
            for notice in notices {
                let _ = self.changes.send(notice);
            }
            // After the notifications: what the watcher judged becomes the known content a
            // restart compares with (written now, off the edit-to-notification path).
            let mut observed_changed = false;
            for key in &observed_keys {
                observed_changed |= baselines.set_known(key, task.known(key), task.superseded(key));
            }
            if observed_changed {
                // Logged inside; what the watcher judged is written again with the next batch.
                let _ = baselines.flush().await;
            }
            for debt in owed {
                match debt {
                    Owed::Track(reply, recovery) => {
                        let _ = reply.send(outcome.clone().map(|()| recovery));
                    }
                    Owed::Indexed(reply) => {
                        let _ = reply.send(indexed.clone());
                    }
                    Owed::Acked(reply, result) => {
                        let _ = reply.send(indexed.clone().map(|()| result));
                    }
                }
            }
            if disposing {
                // The last batch: `seen.json` is compacted too (the journal stays the source
                // of truth if this fails, and is replayed at the next open).
                let _ = baselines.close().await;
                if let Some(reply) = disposed.take() {
                    drop(lock);
                    let _ = reply.send(outcome);
                }
                drop(retire);
                return;
            }
        }
        drop(lock);
        drop(retire);
    }

    /// Watches the active tracked files of a reopened task again (`task_metadata.json` names
    /// them, `seen.json` says against which folder and what the agent last saw). Every path is
    /// judged by the same rule as `roo/files/track` (persisted paths are untrusted), at most
    /// [`MAX_RESTORED_WATCHES`], on the blocking pool. The watches are installed first, then
    /// each file is read once (bounded): the observations returned go first in the actor's
    /// first batch, so a file edited while nobody watched is reported once, before the request
    /// that opened the task is answered; an edit after its watch is installed arrives as an
    /// event and is judged after them. Files not read here (over the bounds) are judged by the
    /// event loop with the live events.
    async fn restore(&self, task: &mut TaskFiles, baselines: &mut Baselines) -> Vec<Command> {
        let keys: Vec<String> = task
            .active_paths()
            .into_iter()
            .take(MAX_RESTORED_WATCHES)
            .collect();
        if keys.is_empty() {
            return Vec::new();
        }
        let source = baselines.restore_source();
        let state = self.state.clone();
        let task_id = self.task_id.clone();
        let planned = tokio::task::spawn_blocking(move || {
            let policy = state.policy();
            keys.into_iter()
                .filter_map(|key| {
                    let base = source
                        .base(&key)
                        .unwrap_or_else(|| policy.base().to_path_buf());
                    let target = watch_target(&state, &policy, &task_id, &key, base).ok()?;
                    let known = source.known(&key);
                    let superseded = source.superseded(&key);
                    Some((key, known, superseded, target))
                })
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_default();
        let mut restored = Vec::with_capacity(planned.len());
        {
            // Under the registry's lock, and only while this actor is the task's: a dispose
            // that removed the task's watches is never undone by a late restore.
            let registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
            if registry
                .open
                .get(&self.task_id)
                .is_none_or(|h| h.generation != self.generation)
            {
                return Vec::new();
            }
            for (key, known, superseded, target) in planned {
                let absolute = target.insert_into(&self.index);
                restored.push((key, known, superseded, absolute));
            }
        }
        let policy = self.state.policy();
        let paths: Vec<PathBuf> = restored.iter().map(|(_, _, _, a)| a.clone()).collect();
        let now_on_disk = tokio::task::spawn_blocking(move || {
            let mut budget = RESTORE_READ_BUDGET;
            paths
                .iter()
                .map(|path| restore_fingerprint(&policy, path, &mut budget))
                .collect::<Vec<_>>()
        })
        .await
        .unwrap_or_default();
        let count = restored.len();
        let mut observations = Vec::new();
        for (i, (key, known, superseded, absolute)) in restored.into_iter().enumerate() {
            baselines.restored(&key, absolute.clone());
            match (known, now_on_disk.get(i).copied().flatten()) {
                (Some(known), Some(observed)) => {
                    task.restore(&key, Some(known));
                    // An agent write announced before the task was closed may land now.
                    task.restore_superseded(&key, superseded);
                    observations.push(Command::Observe {
                        key,
                        observed,
                        hint: ChangeHint::Changed,
                    });
                }
                // Nothing to compare with: what is there now is what the agent is taken to
                // have seen.
                (None, Some(observed)) => task.restore(&key, Some(observed)),
                (known, None) => {
                    task.restore(&key, known);
                    task.restore_superseded(&key, superseded);
                    let _ = self.events.send(FileEvent::Disk(absolute));
                }
            }
        }
        tracing::info!(task = %self.task_id, count, "watches restored");
        observations
    }

    /// Starts computing the `diffStat` of the `Modified` notifications whose file has a small
    /// baseline; `None` when none has.
    fn start_stats(
        &self,
        notices: &[FileDidChangeParams],
        judged: &[Fingerprint],
        baselines: &Baselines,
    ) -> Option<tokio::task::JoinHandle<Stats>> {
        let inputs: Vec<(usize, crate::baselines::StatInput)> = notices
            .iter()
            .enumerate()
            .filter(|(_, n)| n.kind == FileChangeKind::Modified)
            .filter_map(|(i, n)| Some((i, baselines.stat_input(&n.path, judged[i])?)))
            .take(MAX_STATS_PER_BATCH)
            .collect();
        if inputs.is_empty() {
            return None;
        }
        let state = self.state.clone();
        Some(tokio::task::spawn_blocking(move || {
            inputs
                .into_iter()
                .map(|(i, input)| (i, crate::baselines::did_change_stat(&input, &state)))
                .collect()
        }))
    }

    /// Writes the batch's change to the records: one journal record, fsynced, or the whole
    /// file when the journal rule says so or the task is closing (`close`: the
    /// original-format file is left current). Nothing changed → nothing written.
    async fn persist(
        &self,
        task: &mut TaskFiles,
        journal: Option<&Arc<Mutex<JournaledFile>>>,
        close: bool,
    ) -> Result<(), TrackerError> {
        let (Some(dir), Some(journal)) = (self.storage.clone(), journal) else {
            task.metadata_saved();
            return Ok(());
        };
        let record = task.metadata_delta().map(|delta| delta.to_record());
        let compact = {
            let journal = journal.lock().unwrap_or_else(|e| e.into_inner());
            match &record {
                Some(record) => close || journal.wants_compaction(record.to_string().len()),
                None => close && journal.has_records(),
            }
        };
        if record.is_none() && !compact {
            return Ok(());
        }
        let appended = match record {
            Some(record) if !compact => {
                Some(write_journal(journal, move |journal| journal.append(&record)).await)
            }
            _ => None,
        };
        let written = match appended {
            Some(Ok(())) => Ok(()),
            failed => {
                // Compacting, or an append failed (the journal was removed, a write error):
                // the whole file holds the state, what the journal held included.
                if let Some(Err(error)) = failed {
                    tracing::warn!(task = %self.task_id, %error, "journal append failed; writing the whole file");
                }
                let whole = task.metadata.to_json();
                write_journal(journal, move |journal| journal.compact(whole.as_bytes())).await
            }
        };
        match written {
            Ok(()) => {
                task.metadata_saved();
                Ok(())
            }
            Err(error) => Err(TrackerError::Io(format!(
                "cannot save {}: {error}",
                dir.join(TASK_METADATA_FILE).display()
            ))),
        }
    }

    /// The metadata could not be loaded: answer every request with the error and leave the
    /// registry, so the next request tries again.
    async fn fail(self, mut mailbox: mpsc::UnboundedReceiver<Command>, error: TrackerError) {
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
        // `recv`, not `try_recv`: a send that passed the closed check before `close` is still
        // in flight, and `try_recv` reports it as `Empty` (the queue is not idle yet), so a
        // `try_recv` loop ends before it arrives. Its command then stays in the channel, kept
        // by the very sender waiting for its reply, and the request never gets an answer
        // (issue 25: seen once under load in CI). `recv` returns `None` only once every
        // in-flight send has arrived.
        while let Some(command) = mailbox.recv().await {
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
                #[cfg(test)]
                Command::Panic => {}
            }
        }
    }
}

/// Runs `write` on the journal on the blocking pool.
async fn write_journal(
    journal: &Arc<Mutex<JournaledFile>>,
    write: impl FnOnce(&mut JournaledFile) -> std::io::Result<()> + Send + 'static,
) -> std::io::Result<()> {
    let journal = journal.clone();
    tokio::task::spawn_blocking(move || {
        write(&mut journal.lock().unwrap_or_else(|e| e.into_inner()))
    })
    .await
    .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
}

/// Most bytes a restore reads to judge its files at once; the rest are judged by the event loop.
const RESTORE_READ_BUDGET: u64 = 64 * 1024 * 1024;

/// The fingerprint of a restored file read now through the read gate, within `budget` and
/// the baseline bound (a larger file is judged by the event loop); `None` when not read.
fn restore_fingerprint(policy: &Policy, path: &Path, budget: &mut u64) -> Option<Fingerprint> {
    let limit = (*budget).min(roo_context_core::stale_diff::MAX_FILE_BYTES);
    let opened = open_gated(&OsFs, path, limit, true, &|opened| {
        policy.allows_opened(opened)
    });
    match opened.map(GatedFile::read_all) {
        Ok(Ok(bytes)) => {
            *budget = budget.saturating_sub(bytes.len() as u64);
            Some(Fingerprint::of(&bytes))
        }
        Err(GateRefusal::Io(error)) if error.kind() == std::io::ErrorKind::NotFound => {
            Some(Fingerprint::Missing)
        }
        Err(GateRefusal::Directory) => Some(Fingerprint::Missing),
        _ => None,
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
