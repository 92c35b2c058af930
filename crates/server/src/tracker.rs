//! The file context tracker's shell: one actor per task owning its [`TaskFiles`] (so no update is
//! lost), atomic `task_metadata.json` writes, and the debounced stream of file events (from the
//! workspace's recursive watcher, editor buffers and `didChangeWatchedFiles`) that becomes
//! `roo/files/didChange` notifications. Decisions (records, fingerprints) live in the core.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use notify::EventKind;
use notify::event::{ModifyKind, RenameMode};
use roo_context_core::access::Policy;
use roo_context_core::fs::{GateRefusal, GatedFile, OsFs, open_gated};
use roo_context_core::path::normalize_lexically;
use roo_context_core::tracker::{
    ChangeHint, ChangeKind, Fingerprint, MetadataError, RecordSource, TASK_METADATA_FILE,
    TaskFiles, TaskMetadata,
};
use roo_context_protocol::files::{FileDidChangeParams, MetadataRecovery};
use tokio::sync::{mpsc, oneshot, watch};

use crate::state::SharedState;

/// Quiet time after the last event of a burst before files are read: an editor's save
/// (truncate, write, rename) is judged once, whole.
pub const DEBOUNCE_QUIET: Duration = Duration::from_millis(15);
/// Longest a burst may delay judgement, so a file written continuously is still reported.
pub const DEBOUNCE_MAX: Duration = Duration::from_millis(60);

/// Why a tracker request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrackerError {
    /// No open task has this id, and no storage folder was given to open it.
    UnknownTask(String),
    /// The task's storage folder does not exist (or is not a folder).
    MissingStorage(PathBuf),
    /// The task is open with another storage folder.
    StorageMismatch {
        /// The task.
        task_id: String,
        /// Its folder.
        open_with: PathBuf,
    },
    /// `task_metadata.json` could not be read (and was left untouched) or written.
    Io(String),
}

impl std::fmt::Display for TrackerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TrackerError::UnknownTask(id) => write!(
                f,
                "unknown taskId `{id}`: track a file first, or pass storageDir to open the task"
            ),
            TrackerError::MissingStorage(dir) => {
                write!(f, "storage folder {} does not exist", dir.display())
            }
            TrackerError::StorageMismatch { task_id, open_with } => write!(
                f,
                "task `{task_id}` is open with storage folder {}",
                open_with.display()
            ),
            TrackerError::Io(message) => f.write_str(message),
        }
    }
}

/// What the agent saw of a file, as far as the tracker can tell.
#[derive(Debug, Clone)]
pub enum Seen {
    /// Its content is known (given by the host).
    Known(Fingerprint),
    /// Read the file now, through the read gate judged by this policy.
    ReadFrom(PathBuf, Arc<Policy>),
    /// Not watched (outside every workspace, or blocked).
    NotWatched,
}

/// Where a tracked path lives and how to judge it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Watch {
    task_id: String,
    key: String,
    base: PathBuf,
}

/// Absolute path → the tasks watching it. Shared with the watcher's thread, which uses it to
/// drop irrelevant events before they reach a channel.
#[derive(Default)]
pub struct WatchIndex {
    by_path: RwLock<HashMap<PathBuf, Vec<Watch>>>,
}

impl WatchIndex {
    fn insert(&self, absolute: PathBuf, watch: Watch) {
        if let Ok(mut map) = self.by_path.write() {
            let watches = map.entry(absolute).or_default();
            if !watches.contains(&watch) {
                watches.push(watch);
            }
        }
    }

    fn remove_task(&self, task_id: &str) {
        if let Ok(mut map) = self.by_path.write() {
            map.retain(|_, watches| {
                watches.retain(|w| w.task_id != task_id);
                !watches.is_empty()
            });
        }
    }

    fn get(&self, path: &Path) -> Vec<Watch> {
        self.by_path
            .read()
            .ok()
            .and_then(|map| map.get(path).cloned())
            .unwrap_or_default()
    }

    fn paths(&self) -> Vec<PathBuf> {
        self.by_path
            .read()
            .map(|map| map.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Tracked paths equal to `path` or below it (a removed or renamed folder).
    fn at_or_below(&self, path: &Path) -> Vec<PathBuf> {
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

    fn contains(&self, path: &Path) -> bool {
        self.by_path.read().is_ok_and(|map| map.contains_key(path))
    }
}

/// A raw file event, before debouncing.
#[derive(Debug, Clone)]
enum FileEvent {
    /// The file at this path may have changed on disk.
    Disk(PathBuf),
    /// The path was renamed away (to the second path when known).
    RenamedAway(PathBuf, Option<PathBuf>),
    /// An editor buffer now holds this content.
    Buffer(PathBuf, Fingerprint),
    /// Events may have been lost (overflow) or the watcher just became ready: judge every
    /// tracked file again.
    Rescan,
}

/// The watcher's side of the tracker: cheap to clone, callable from notify's thread.
#[derive(Clone)]
pub struct FileEventSink {
    index: Arc<WatchIndex>,
    events: mpsc::UnboundedSender<FileEvent>,
}

impl FileEventSink {
    /// Feeds one event of a recursive watcher. Events of untracked paths are dropped here; an
    /// error or a rescan flag (queue overflow) triggers a rescan of every tracked file.
    pub fn on_notify_event(&self, result: &notify::Result<notify::Event>) {
        let event = match result {
            Ok(event) if !event.need_rescan() => event,
            _ => {
                let _ = self.events.send(FileEvent::Rescan);
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

    /// The recursive watcher is set up: anything that changed before is found by a rescan.
    pub fn watcher_ready(&self) {
        let _ = self.events.send(FileEvent::Rescan);
    }
}

/// Paths read by the agent, and the recovery of a corrupt file if this opened the task.
type FilesRead = (Vec<String>, Option<MetadataRecovery>);

/// One task actor's mailbox.
enum Command {
    Track {
        key: String,
        source: RecordSource,
        seen: Seen,
        reply: oneshot::Sender<Result<Option<MetadataRecovery>, TrackerError>>,
    },
    Mark {
        key: String,
        seen: Seen,
        reply: oneshot::Sender<Result<(), TrackerError>>,
    },
    Read {
        since: Option<i64>,
        reply: oneshot::Sender<Result<FilesRead, TrackerError>>,
    },
    TakeRecentlyModified {
        reply: oneshot::Sender<Result<Vec<String>, TrackerError>>,
    },
    TakeCheckpointPossible {
        reply: oneshot::Sender<Result<Vec<String>, TrackerError>>,
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

#[derive(Clone)]
struct TaskHandle {
    generation: u64,
    storage: Option<PathBuf>,
    commands: mpsc::UnboundedSender<Command>,
    /// Why the actor could not open the task, set before its mailbox closes, so a command sent
    /// after the close gets the real error (the file that could not be read), never "closed".
    failure: Arc<std::sync::OnceLock<TrackerError>>,
}

#[derive(Default)]
struct Registry {
    open: HashMap<String, TaskHandle>,
    /// Actors being disposed: a new actor for the same task waits for them to finish writing.
    retiring: HashMap<String, oneshot::Receiver<()>>,
}

/// The tracker: task registry, watch index and event loop.
pub struct FileTracker {
    state: Arc<SharedState>,
    registry: Arc<Mutex<Registry>>,
    index: Arc<WatchIndex>,
    events: mpsc::UnboundedSender<FileEvent>,
    changes: mpsc::UnboundedSender<FileDidChangeParams>,
    generations: AtomicU64,
    ready: watch::Receiver<u64>,
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Files larger than this are not fingerprinted (their content cannot be judged now).
const MAX_FINGERPRINT_BYTES: u64 = 64 * 1024 * 1024;

/// The fingerprint of a file, read through the read gate: `None` when its content cannot be
/// judged now (a FIFO or device, too large, blocked by what it links to, unreadable).
fn fingerprint_of_file(policy: &Policy, path: &Path) -> Option<Fingerprint> {
    let opened = open_gated(&OsFs, path, MAX_FINGERPRINT_BYTES, true, &|real| {
        policy.allows_real_path(real)
    });
    match opened.map(GatedFile::read_all) {
        Ok(Ok(bytes)) => Some(Fingerprint::of(&bytes)),
        Err(GateRefusal::Io(error)) if error.kind() == std::io::ErrorKind::NotFound => {
            Some(Fingerprint::Missing)
        }
        // A folder is no file the agent read.
        Err(GateRefusal::Directory) => Some(Fingerprint::Missing),
        Err(refusal) => {
            tracing::warn!(%refusal, path = %path.display(), "cannot fingerprint a tracked file");
            None
        }
        Ok(Err(error)) => {
            tracing::warn!(%error, path = %path.display(), "cannot read a tracked file");
            None
        }
    }
}

/// `path` relative to `base` in posix form when inside it, else absolute.
fn display_relative(path: &Path, base: &Path) -> String {
    match path.strip_prefix(base) {
        Ok(rest) => rest
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/"),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

impl FileTracker {
    /// Starts the tracker's event loop; changes the host must hear about go to the returned
    /// receiver.
    pub fn start(
        state: Arc<SharedState>,
    ) -> (
        Arc<FileTracker>,
        mpsc::UnboundedReceiver<FileDidChangeParams>,
    ) {
        let (events_tx, events_rx) = mpsc::unbounded_channel();
        let (changes_tx, changes_rx) = mpsc::unbounded_channel();
        let (ready_tx, ready_rx) = watch::channel(0);
        let tracker = Arc::new(FileTracker {
            state,
            registry: Arc::default(),
            index: Arc::default(),
            events: events_tx,
            changes: changes_tx,
            generations: AtomicU64::new(0),
            ready: ready_rx,
        });
        tokio::spawn(event_loop(Arc::downgrade(&tracker), events_rx, ready_tx));
        (tracker, changes_rx)
    }

    /// The handle the workspace watcher and the document handlers feed.
    pub fn sink(&self) -> FileEventSink {
        FileEventSink {
            index: self.index.clone(),
            events: self.events.clone(),
        }
    }

    /// Counts completed rescans (one after each watcher becomes ready); for waiting on readiness.
    pub fn rescans(&self) -> watch::Receiver<u64> {
        self.ready.clone()
    }

    fn registry(&self) -> std::sync::MutexGuard<'_, Registry> {
        self.registry.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The task's mailbox, opening the task (with `storage`, or in memory when `None`) if needed.
    fn open(
        &self,
        task_id: &str,
        storage: Option<Option<&Path>>,
    ) -> Result<TaskHandle, TrackerError> {
        let mut registry = self.registry();
        if let Some(handle) = registry.open.get(task_id) {
            if let Some(Some(dir)) = storage
                && handle.storage.as_deref() != Some(dir)
            {
                return Err(TrackerError::StorageMismatch {
                    task_id: task_id.to_owned(),
                    open_with: handle.storage.clone().unwrap_or_default(),
                });
            }
            return Ok(handle.clone());
        }
        let Some(storage) = storage else {
            return Err(TrackerError::UnknownTask(task_id.to_owned()));
        };
        if let Some(dir) = storage
            && !dir.is_dir()
        {
            return Err(TrackerError::MissingStorage(dir.to_path_buf()));
        }
        let (commands, mailbox) = mpsc::unbounded_channel();
        let handle = TaskHandle {
            generation: self.generations.fetch_add(1, Ordering::Relaxed),
            storage: storage.map(Path::to_path_buf),
            commands,
            failure: Arc::default(),
        };
        let previous = registry.retiring.remove(task_id);
        registry.open.insert(task_id.to_owned(), handle.clone());
        drop(registry);
        let actor = TaskActor {
            task_id: task_id.to_owned(),
            generation: handle.generation,
            storage: handle.storage.clone(),
            failure: handle.failure.clone(),
            registry: self.registry.clone(),
            changes: self.changes.clone(),
        };
        tokio::spawn(actor.run(mailbox, previous));
        Ok(handle)
    }

    fn existing(&self, task_id: &str) -> Result<TaskHandle, TrackerError> {
        self.open(task_id, None)
    }

    /// Resolves `path` (relative to `cwd` or the first folder) and, when it lies in a workspace
    /// folder and may be read, adds it to the watch index. Returns the absolute path, or why it
    /// is not watched.
    fn watch(&self, task_id: &str, path: &str, cwd: Option<&str>) -> Result<PathBuf, &'static str> {
        self.watch_or_check(task_id, path, cwd, true)
    }

    /// [`Self::watch`] when `add`; otherwise whether the task already watches the path (as the
    /// original, which watches only files passed to `trackFileContext`).
    fn watch_or_check(
        &self,
        task_id: &str,
        path: &str,
        cwd: Option<&str>,
        add: bool,
    ) -> Result<PathBuf, &'static str> {
        let policy = self.state.policy();
        let base = match cwd {
            Some(cwd) => normalize_lexically(policy.base(), cwd),
            None => policy.base().to_path_buf(),
        };
        let decision = policy.check_access(&self.state.resolver, &self.state.fs, Some(&base), path);
        if decision.folder.is_none() {
            return Err("outsideWorkspace");
        }
        if !decision.allowed() {
            return Err("blocked");
        }
        let resolved = self.state.resolver.resolve(&base, path, &self.state.fs);
        let watch = Watch {
            task_id: task_id.to_owned(),
            key: path.to_owned(),
            base,
        };
        if !add {
            // Only a path the task already tracks counts as watched.
            return if self.index.get(&resolved.lexical).contains(&watch) {
                Ok(resolved.lexical)
            } else {
                Err("notTracked")
            };
        }
        if resolved.canonical != resolved.lexical {
            self.index.insert(resolved.canonical, watch.clone());
        }
        self.index.insert(resolved.lexical.clone(), watch);
        Ok(resolved.lexical)
    }

    /// `roo/files/track`: records the file and watches it. Returns whether it is watched (or
    /// why not) and the recovery of a corrupt metadata file when this call opened the task.
    pub async fn track(
        &self,
        task_id: &str,
        storage: Option<&Path>,
        path: &str,
        source: RecordSource,
        content: Option<&str>,
        cwd: Option<&str>,
    ) -> Result<(Result<(), &'static str>, Option<MetadataRecovery>), TrackerError> {
        let handle = self.open(task_id, Some(storage))?;
        let watched = self.watch(task_id, path, cwd);
        let seen = match (&watched, content) {
            (Err(_), _) => Seen::NotWatched,
            (Ok(_), Some(content)) => Seen::Known(Fingerprint::of(content.as_bytes())),
            (Ok(absolute), None) => Seen::ReadFrom(absolute.clone(), self.state.policy()),
        };
        let (reply, answer) = oneshot::channel();
        send(
            &handle,
            Command::Track {
                key: path.to_owned(),
                source,
                seen,
                reply,
            },
        )?;
        let recovery = receive(answer).await?;
        Ok((watched.map(|_| ()), recovery))
    }

    /// `roo/files/markRooEdited`: what the agent wrote (or is about to write) to `path`.
    pub async fn mark_roo_edited(
        &self,
        task_id: &str,
        path: &str,
        content: Option<&str>,
        deleted: bool,
        cwd: Option<&str>,
    ) -> Result<bool, TrackerError> {
        let handle = self.existing(task_id)?;
        // A file no task tracks is not watched by marking it: the original adds it to
        // `recentlyEditedByRoo` only, and only `trackFileContext` sets up a watcher.
        let watched = self.watch_or_check(task_id, path, cwd, false);
        let seen = match (&watched, content, deleted) {
            (Err(_), _, _) => Seen::NotWatched,
            (Ok(_), _, true) => Seen::Known(Fingerprint::Missing),
            (Ok(_), Some(content), false) => Seen::Known(Fingerprint::of(content.as_bytes())),
            (Ok(absolute), None, false) => Seen::ReadFrom(absolute.clone(), self.state.policy()),
        };
        let (reply, answer) = oneshot::channel();
        send(
            &handle,
            Command::Mark {
                key: path.to_owned(),
                seen,
                reply,
            },
        )?;
        receive(answer).await?;
        Ok(watched.is_ok())
    }

    /// `roo/files/read`.
    pub async fn files_read(
        &self,
        task_id: &str,
        storage: Option<&Path>,
        since: Option<i64>,
    ) -> Result<FilesRead, TrackerError> {
        let handle = match storage {
            Some(dir) => self.open(task_id, Some(Some(dir)))?,
            None => self.existing(task_id)?,
        };
        let (reply, answer) = oneshot::channel();
        send(&handle, Command::Read { since, reply })?;
        receive(answer).await
    }

    /// `roo/files/takeRecentlyModified`.
    pub async fn take_recently_modified(&self, task_id: &str) -> Result<Vec<String>, TrackerError> {
        let handle = self.existing(task_id)?;
        let (reply, answer) = oneshot::channel();
        send(&handle, Command::TakeRecentlyModified { reply })?;
        receive(answer).await
    }

    /// The records of a task the tracker has open (`None` when it is not open), for summary
    /// verification. Read-only: opens nothing.
    pub async fn records(&self, task_id: &str) -> Option<TaskMetadata> {
        let handle = self.registry().open.get(task_id).cloned()?;
        let (reply, answer) = oneshot::channel();
        send(&handle, Command::Records { reply }).ok()?;
        receive(answer).await.ok()
    }

    /// `roo/files/takeCheckpointPossible`.
    pub async fn take_checkpoint_possible(
        &self,
        task_id: &str,
    ) -> Result<Vec<String>, TrackerError> {
        let handle = self.existing(task_id)?;
        let (reply, answer) = oneshot::channel();
        send(&handle, Command::TakeCheckpointPossible { reply })?;
        receive(answer).await
    }

    /// `roo/files/disposeTask`: stops watching, writes what is pending, forgets the task.
    /// `Ok(false)` when the task was not open.
    pub async fn dispose(&self, task_id: &str) -> Result<bool, TrackerError> {
        let (reply, answer) = oneshot::channel();
        {
            let mut registry = self.registry();
            let Some(handle) = registry.open.remove(task_id) else {
                return Ok(false);
            };
            self.index.remove_task(task_id);
            let (done, finished) = oneshot::channel();
            registry.retiring.insert(task_id.to_owned(), finished);
            if handle
                .commands
                .send(Command::Dispose { reply, done })
                .is_err()
            {
                return Ok(true);
            }
        }
        receive(answer).await?;
        Ok(true)
    }

    /// Judges the debounced `pending` paths (or every tracked path on a rescan) and sends each
    /// task actor what it must observe. Runs on the blocking pool (it reads files).
    fn judge(&self, pending: Pending) {
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
    }
}

fn send(handle: &TaskHandle, command: Command) -> Result<(), TrackerError> {
    handle.commands.send(command).map_err(|_| {
        handle
            .failure
            .get()
            .cloned()
            .unwrap_or_else(|| TrackerError::Io("the task was closed".into()))
    })
}

async fn receive<T>(answer: oneshot::Receiver<Result<T, TrackerError>>) -> Result<T, TrackerError> {
    answer
        .await
        .map_err(|_| TrackerError::Io("the task was closed".into()))?
}

#[derive(Debug, Clone)]
enum PendingKind {
    Disk,
    RenamedAway(Option<PathBuf>),
    Buffer(Fingerprint),
}

#[derive(Debug, Default)]
struct Pending {
    paths: HashMap<PathBuf, PendingKind>,
    rescan: bool,
}

impl Pending {
    fn add(&mut self, event: FileEvent) {
        match event {
            FileEvent::Rescan => self.rescan = true,
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
        }
    }
}

async fn event_loop(
    tracker: std::sync::Weak<FileTracker>,
    mut events: mpsc::UnboundedReceiver<FileEvent>,
    ready: watch::Sender<u64>,
) {
    while let Some(first) = events.recv().await {
        let mut pending = Pending::default();
        pending.add(first);
        let deadline = tokio::time::Instant::now() + DEBOUNCE_MAX;
        loop {
            let quiet_until = (tokio::time::Instant::now() + DEBOUNCE_QUIET).min(deadline);
            match tokio::time::timeout_at(quiet_until, events.recv()).await {
                Ok(Some(event)) => pending.add(event),
                Ok(None) | Err(_) => break,
            }
        }
        let Some(tracker) = tracker.upgrade() else {
            return;
        };
        let rescan = pending.rescan;
        let judged = tokio::task::spawn_blocking(move || tracker.judge(pending)).await;
        if let Err(error) = judged {
            tracing::error!(%error, "judging file events failed");
        }
        if rescan {
            ready.send_modify(|count| *count += 1);
        }
    }
}

/// The single writer of one task's metadata.
struct TaskActor {
    task_id: String,
    generation: u64,
    storage: Option<PathBuf>,
    failure: Arc<std::sync::OnceLock<TrackerError>>,
    registry: Arc<Mutex<Registry>>,
    changes: mpsc::UnboundedSender<FileDidChangeParams>,
}

/// Loads `task_metadata.json` from `dir`. Missing → empty. Unparsable → moved aside and reported.
/// Unreadable → error, and the file is left alone.
fn load(dir: &Path) -> Result<(TaskMetadata, Option<MetadataRecovery>), TrackerError> {
    remove_leftover_temp_files(dir);
    let target = dir.join(TASK_METADATA_FILE);
    let bytes = match read_metadata_bytes(&target) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Ok((TaskMetadata::default(), None));
        }
        Err(error) => {
            return Err(TrackerError::Io(format!(
                "cannot read {}: {error}",
                target.display()
            )));
        }
    };
    let parsed = std::str::from_utf8(&bytes)
        .map_err(|e| MetadataError::InvalidJson(e.to_string()))
        .and_then(TaskMetadata::parse);
    match parsed {
        Ok(metadata) => Ok((metadata, None)),
        Err(error) => {
            let moved_to = dir.join(format!("{TASK_METADATA_FILE}.corrupt-{}", now_ms()));
            std::fs::rename(&target, &moved_to).map_err(|rename_error| {
                TrackerError::Io(format!(
                    "{} is unusable ({error}) and cannot be moved aside: {rename_error}",
                    target.display()
                ))
            })?;
            tracing::warn!(%error, moved_to = %moved_to.display(), "unusable task_metadata.json moved aside");
            Ok((
                TaskMetadata::default(),
                Some(MetadataRecovery {
                    moved_to: moved_to.to_string_lossy().into_owned(),
                    error: error.to_string(),
                }),
            ))
        }
    }
}

/// The largest `task_metadata.json` read; a bigger one is an error and is left alone.
const MAX_METADATA_BYTES: u64 = 256 * 1024 * 1024;

/// Reads the metadata file without ever blocking or flooding (not model input, so any path).
fn read_metadata_bytes(target: &Path) -> std::io::Result<Vec<u8>> {
    roo_context_core::fs::read_regular_file(&OsFs, target, MAX_METADATA_BYTES)
}

const TEMP_PREFIX: &str = ".task_metadata.json.tmp-";

fn remove_leftover_temp_files(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name().to_string_lossy().starts_with(TEMP_PREFIX) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Writes `json` as `dir/task_metadata.json` atomically: a temporary file in the same folder,
/// fsync, rename over the target, fsync the folder. A crash leaves the old or the new file whole.
pub fn write_atomically(dir: &Path, json: &str) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let temp = dir.join(format!(
        "{TEMP_PREFIX}{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(json.as_bytes())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temp, dir.join(TASK_METADATA_FILE))?;
        std::fs::File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// A reply owed once the batch is persisted.
enum Owed {
    Track(
        oneshot::Sender<Result<Option<MetadataRecovery>, TrackerError>>,
        Option<MetadataRecovery>,
    ),
    Done(oneshot::Sender<Result<(), TrackerError>>),
}

impl TaskActor {
    async fn run(
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
                        reply,
                    } => {
                        let seen = resolve_seen(seen).await;
                        task.track(&key, source, seen, now);
                        dirty = true;
                        owed.push(Owed::Track(reply, recovery.take()));
                    }
                    Command::Mark { key, seen, reply } => {
                        if let Some(seen) = resolve_seen(seen).await {
                            task.mark_agent_edited(&key, seen);
                        }
                        let _ = reply.send(Ok(()));
                    }
                    Command::Read { since, reply } => {
                        let _ = reply.send(Ok((task.files_read_by_agent(since), recovery.take())));
                    }
                    Command::TakeRecentlyModified { reply } => {
                        let _ = reply.send(Ok(task.take_recently_modified()));
                    }
                    Command::TakeCheckpointPossible { reply } => {
                        let _ = reply.send(Ok(task.take_checkpoint_possible()));
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
                            dirty = true;
                            let new_path = match &change.kind {
                                ChangeKind::Renamed { to } => to.clone(),
                                _ => None,
                            };
                            notices.push(FileDidChangeParams {
                                task_id: self.task_id.clone(),
                                path: change.path,
                                kind: change.kind.as_str().to_owned(),
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
                | Command::TakeCheckpointPossible { reply } => {
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

async fn resolve_seen(seen: Seen) -> Option<Fingerprint> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use roo_context_protocol::workspace::Settings;

    fn workspace(files: &[(&str, &str)]) -> (tempfile::TempDir, Arc<SharedState>) {
        let dir = tempfile::tempdir().unwrap();
        for (path, content) in files {
            std::fs::write(dir.path().join(path), content).unwrap();
        }
        let state = Arc::new(SharedState::new(
            &[dir.path().to_path_buf()],
            Settings::default(),
        ));
        (dir, state)
    }

    async fn next_change(
        changes: &mut mpsc::UnboundedReceiver<FileDidChangeParams>,
    ) -> FileDidChangeParams {
        tokio::time::timeout(Duration::from_secs(30), changes.recv())
            .await
            .expect("a change before the deadline")
            .expect("tracker alive")
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_watcher_overflow_rescans_every_tracked_file_instead_of_dropping_changes() {
        let (dir, state) = workspace(&[("a.ts", "a"), ("b.ts", "b")]);
        let (tracker, mut changes) = FileTracker::start(state);
        for path in ["a.ts", "b.ts"] {
            let (watched, _) = tracker
                .track("t", None, path, RecordSource::ReadTool, None, None)
                .await
                .unwrap();
            assert_eq!(watched, Ok(()));
        }
        // Changes whose events were lost: no watcher runs here at all.
        std::fs::write(dir.path().join("a.ts"), "changed").unwrap();
        let overflow = notify::Event::new(EventKind::Other).set_flag(notify::event::Flag::Rescan);
        tracker.sink().on_notify_event(&Ok(overflow));
        let change = next_change(&mut changes).await;
        assert_eq!(
            (change.path.as_str(), change.kind.as_str()),
            ("a.ts", "modified")
        );
        // A watcher error is an overflow too.
        std::fs::remove_file(dir.path().join("b.ts")).unwrap();
        tracker
            .sink()
            .on_notify_event(&Err(notify::Error::generic("queue overflow")));
        let change = next_change(&mut changes).await;
        assert_eq!(
            (change.path.as_str(), change.kind.as_str()),
            ("b.ts", "deleted")
        );
        assert_eq!(
            tracker.take_recently_modified("t").await.unwrap(),
            ["a.ts", "b.ts"]
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_renamed_folder_reports_the_tracked_files_inside_it() {
        let (dir, state) = workspace(&[]);
        std::fs::create_dir(dir.path().join("old")).unwrap();
        std::fs::write(dir.path().join("old/a.ts"), "a").unwrap();
        let (tracker, mut changes) = FileTracker::start(state);
        let (watched, _) = tracker
            .track("t", None, "old/a.ts", RecordSource::ReadTool, None, None)
            .await
            .unwrap();
        assert_eq!(watched, Ok(()));
        std::fs::rename(dir.path().join("old"), dir.path().join("new")).unwrap();
        let rename = notify::Event::new(EventKind::Modify(ModifyKind::Name(RenameMode::Both)))
            .add_path(dir.path().join("old"))
            .add_path(dir.path().join("new"));
        tracker.sink().on_notify_event(&Ok(rename));
        let change = next_change(&mut changes).await;
        assert_eq!(change.kind, "renamed");
        assert_eq!(change.new_path.as_deref(), Some("new/a.ts"));
    }

    #[test]
    fn atomic_writes_replace_the_file_and_leave_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        write_atomically(dir.path(), "{\"files_in_context\":[]}").unwrap();
        write_atomically(dir.path(), "{\"files_in_context\":[1]}").unwrap();
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, [TASK_METADATA_FILE]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join(TASK_METADATA_FILE)).unwrap(),
            "{\"files_in_context\":[1]}"
        );
    }

    #[test]
    fn leftover_temporary_files_are_removed_and_unreadable_files_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".task_metadata.json.tmp-1-2"), "{\"half").unwrap();
        let (metadata, recovery) = load(dir.path()).unwrap();
        assert!(metadata.files_in_context.is_empty() && recovery.is_none());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        // A folder where the file should be: an error, and nothing is moved or replaced.
        std::fs::create_dir(dir.path().join(TASK_METADATA_FILE)).unwrap();
        let error = load(dir.path()).unwrap_err();
        assert!(error.to_string().contains("cannot read"), "{error}");
        assert!(dir.path().join(TASK_METADATA_FILE).is_dir());
    }
}
