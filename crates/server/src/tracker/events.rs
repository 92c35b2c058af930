//! The tracker's event side: the watch index (absolute path to the tasks watching it), the
//! sink the watcher and the document handlers feed, and the debounced loop that judges changes.

use super::*;

/// Where a tracked path lives and how to judge it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Watch {
    pub(super) task_id: String,
    pub(super) key: String,
    pub(super) base: PathBuf,
}

/// Absolute path → the tasks watching it. Shared with the watcher's thread, which uses it to
/// drop irrelevant events before they reach a channel.
#[derive(Default)]
pub struct WatchIndex {
    by_path: RwLock<HashMap<PathBuf, Vec<Watch>>>,
}

impl WatchIndex {
    pub(super) fn insert(&self, absolute: PathBuf, watch: Watch) {
        if let Ok(mut map) = self.by_path.write() {
            let watches = map.entry(absolute).or_default();
            if !watches.contains(&watch) {
                watches.push(watch);
            }
        }
    }

    pub(super) fn remove_task(&self, task_id: &str) {
        if let Ok(mut map) = self.by_path.write() {
            map.retain(|_, watches| {
                watches.retain(|w| w.task_id != task_id);
                !watches.is_empty()
            });
        }
    }

    pub(super) fn get(&self, path: &Path) -> Vec<Watch> {
        self.by_path
            .read()
            .ok()
            .and_then(|map| map.get(path).cloned())
            .unwrap_or_default()
    }

    pub(super) fn paths(&self) -> Vec<PathBuf> {
        self.by_path
            .read()
            .map(|map| map.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Tracked paths equal to `path` or below it (a removed or renamed folder).
    pub(super) fn at_or_below(&self, path: &Path) -> Vec<PathBuf> {
        self.by_path
            .read()
            .map(|map| {
                map.keys()
                    .filter(|p| p.starts_with(path))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(super) fn contains(&self, path: &Path) -> bool {
        self.by_path.read().is_ok_and(|map| map.contains_key(path))
    }
}

/// A raw file event, before debouncing.
#[derive(Debug)]
pub(super) enum FileEvent {
    /// The file at this path may have changed on disk.
    Disk(PathBuf),
    /// The path was renamed away (to the second path when known).
    RenamedAway(PathBuf, Option<PathBuf>),
    /// An editor buffer now holds this content.
    Buffer(PathBuf, Fingerprint),
    /// Events may have been lost (overflow) or the watcher just became ready: judge every
    /// tracked file again, then tell the waiter (if any) it was done.
    Rescan(Option<oneshot::Sender<()>>),
    /// Judge this path again after it was found empty: an empty file is taken as it is now.
    Settled(PathBuf),
}

/// The watcher's side of the tracker: cheap to clone, callable from notify's thread.
#[derive(Clone)]
pub struct FileEventSink {
    pub(super) index: Arc<WatchIndex>,
    pub(super) events: mpsc::UnboundedSender<FileEvent>,
}

impl FileEventSink {
    /// Feeds one event of a recursive watcher. Events of untracked paths are dropped here; an
    /// error or a rescan flag (queue overflow) triggers a rescan of every tracked file.
    pub fn on_notify_event(&self, result: &notify::Result<notify::Event>) {
        let event = match result {
            Ok(event) if !event.need_rescan() => event,
            _ => {
                let _ = self.events.send(FileEvent::Rescan(None));
                return;
            }
        };
        match event.kind {
            EventKind::Access(_) => {}
            EventKind::Modify(ModifyKind::Name(RenameMode::Both)) if event.paths.len() == 2 => {
                let (from, to) = (&event.paths[0], &event.paths[1]);
                for tracked in self.index.at_or_below(from) {
                    let moved = tracked
                        .strip_prefix(from)
                        .ok()
                        .map(|rest| to.join(rest).components().collect::<PathBuf>());
                    let _ = self.events.send(FileEvent::RenamedAway(tracked, moved));
                }
                self.disk_changed(to);
            }
            EventKind::Modify(ModifyKind::Name(RenameMode::From)) | EventKind::Remove(_) => {
                let renamed = matches!(event.kind, EventKind::Modify(_));
                for path in &event.paths {
                    for tracked in self.index.at_or_below(path) {
                        let _ = self.events.send(if renamed {
                            FileEvent::RenamedAway(tracked, None)
                        } else {
                            FileEvent::Disk(tracked)
                        });
                    }
                }
            }
            _ => {
                for path in &event.paths {
                    self.disk_changed(path);
                }
            }
        }
    }

    /// The file at `path` may have changed on disk (`didSave`, `didChangeWatchedFiles`).
    pub fn disk_changed(&self, path: &Path) {
        if self.index.contains(path) {
            let _ = self.events.send(FileEvent::Disk(path.to_path_buf()));
        }
    }

    /// An editor buffer of `path` now holds `text` (`didChange`).
    pub fn buffer_changed(&self, path: &Path, text: &str) {
        if self.index.contains(path) {
            let fingerprint = Fingerprint::of(text.as_bytes());
            let _ = self
                .events
                .send(FileEvent::Buffer(path.to_path_buf(), fingerprint));
        }
    }

    /// The recursive watcher is set up: anything that changed before is found by a rescan. The
    /// receiver fires once that rescan was judged (it errs when the tracker is gone).
    pub fn watcher_ready(&self) -> oneshot::Receiver<()> {
        let (judged, waiter) = oneshot::channel();
        let _ = self.events.send(FileEvent::Rescan(Some(judged)));
        waiter
    }
}

impl FileTracker {
    /// Judges the debounced `pending` paths (or every tracked path on a rescan) and sends each
    /// task actor what it must observe. Runs on the blocking pool (it reads files). Returns the
    /// paths found empty on disk, to judge again after [`EMPTY_SETTLE`]: an editor that saves
    /// in place (VS Code without atomic saves: open with truncation, then write) shows an empty
    /// file between the two calls, and a loaded machine can stretch that past the debounce.
    fn judge(&self, pending: &Pending) -> Vec<PathBuf> {
        let mut unsettled = Vec::new();
        let paths: Vec<PathBuf> = if pending.rescan {
            self.index.paths()
        } else {
            pending.paths.keys().cloned().collect()
        };
        let policy = self.state.policy();
        for path in paths {
            let watches = self.index.get(&path);
            if watches.is_empty() {
                continue;
            }
            let observed = match pending.paths.get(&path) {
                Some(PendingKind::Buffer(fingerprint)) => Some(*fingerprint),
                _ => fingerprint_of_file(&policy, &path),
            };
            let Some(observed) = observed else { continue };
            if observed == Fingerprint::of(b"")
                && matches!(pending.paths.get(&path), None | Some(PendingKind::Disk))
            {
                unsettled.push(path);
                continue;
            }
            let renamed_to = match pending.paths.get(&path) {
                Some(PendingKind::RenamedAway(to)) => Some(to.clone()),
                _ => None,
            };
            for watch in watches {
                let access = policy.check_access(
                    &self.state.resolver,
                    &self.state.fs,
                    Some(&watch.base),
                    &watch.key,
                );
                if !access.allowed() {
                    continue;
                }
                let hint = match &renamed_to {
                    Some(to) => ChangeHint::RenamedAway {
                        to: to.as_ref().map(|to| display_relative(to, &watch.base)),
                    },
                    None => ChangeHint::Changed,
                };
                let handle = self.registry().open.get(&watch.task_id).cloned();
                if let Some(handle) = handle {
                    let _ = handle.commands.send(Command::Observe {
                        key: watch.key.clone(),
                        observed,
                        hint,
                    });
                }
            }
        }
        unsettled
    }
}

/// How long a file found empty is given to receive its content before it is judged empty.
pub const EMPTY_SETTLE: Duration = Duration::from_millis(50);

#[derive(Debug, Clone)]
pub(super) enum PendingKind {
    Disk,
    /// Judged as it is, even empty.
    Settled,
    RenamedAway(Option<PathBuf>),
    Buffer(Fingerprint),
}

#[derive(Debug, Default)]
pub(super) struct Pending {
    paths: HashMap<PathBuf, PendingKind>,
    rescan: bool,
    /// Told once this batch, a rescan, was judged.
    rescan_waiters: Vec<oneshot::Sender<()>>,
}

impl Pending {
    fn add(&mut self, event: FileEvent) {
        match event {
            FileEvent::Rescan(waiter) => {
                self.rescan = true;
                self.rescan_waiters.extend(waiter);
            }
            FileEvent::Disk(path) => {
                // A disk event after a rename keeps the rename (the file may be gone).
                self.paths.entry(path).or_insert(PendingKind::Disk);
            }
            FileEvent::RenamedAway(path, to) => {
                let entry = self.paths.entry(path).or_insert(PendingKind::Disk);
                match entry {
                    PendingKind::RenamedAway(Some(_)) if to.is_none() => {}
                    _ => *entry = PendingKind::RenamedAway(to),
                }
            }
            FileEvent::Buffer(path, fingerprint) => {
                self.paths.insert(path, PendingKind::Buffer(fingerprint));
            }
            FileEvent::Settled(path) => {
                let entry = self.paths.entry(path).or_insert(PendingKind::Settled);
                if matches!(entry, PendingKind::Disk) {
                    *entry = PendingKind::Settled;
                }
            }
        }
    }
}

/// Most distinct paths judged in one batch.
const MAX_BATCH_PATHS: usize = 256;

pub(super) async fn event_loop(
    tracker: std::sync::Weak<FileTracker>,
    mut events: mpsc::UnboundedReceiver<FileEvent>,
) {
    while let Some(first) = events.recv().await {
        let mut pending = Pending::default();
        pending.add(first);
        let deadline = tokio::time::Instant::now() + DEBOUNCE_MAX;
        // Bounded batches: thousands of paths at once (a restored task) are judged a slice at
        // a time, so live edits queued behind them wait for one slice, not for all.
        while pending.paths.len() < MAX_BATCH_PATHS {
            let quiet_until = (tokio::time::Instant::now() + DEBOUNCE_QUIET).min(deadline);
            match tokio::time::timeout_at(quiet_until, events.recv()).await {
                Ok(Some(event)) => pending.add(event),
                Ok(None) | Err(_) => break,
            }
        }
        let Some(tracker) = tracker.upgrade() else {
            return;
        };
        let events_again = tracker.events.clone();
        let mut pending = pending;
        let judged = tokio::task::spawn_blocking(move || {
            let unsettled = tracker.judge(&pending);
            (unsettled, std::mem::take(&mut pending.rescan_waiters))
        })
        .await;
        match judged {
            Err(error) => tracing::error!(%error, "judging file events failed"),
            Ok((unsettled, waiters)) => {
                for waiter in waiters {
                    let _ = waiter.send(());
                }
                if unsettled.is_empty() {
                    continue;
                }
                tokio::spawn(async move {
                    tokio::time::sleep(EMPTY_SETTLE).await;
                    for path in unsettled {
                        let _ = events_again.send(FileEvent::Settled(path));
                    }
                });
            }
        }
    }
}
