//! One recursive notify watcher per workspace root. Changes to `.rooignore`/`.zooignore` reload
//! the folder's rules (debounced); any create, remove or rename clears the canonical-folder cache
//! so symlink swaps are seen at once; every event also goes to the file context tracker, which
//! keeps only the files some task has in context. An ignore file that is a link has each hop of
//! its chain watched too, and each root's parent is watched so a root deleted and recreated (a
//! re-clone) is watched again.
//!
//! ## Decision: Reloads
//!
//! Reloads are debounced (30 ms) so a save's truncate-then-write is read whole; a read error keeps
//! the last good rules and is reported (`roo/ignore/didReload` with `error`, `lastError` in
//! status). Each root gets a non-recursive watcher registered before `initialize` answers (no
//! missed change) and a recursive one set up in the background whose structural events clear the
//! folder cache. Once the recursive ones are up and the tracker rescanned what it tracks, the
//! server sends `roo/workspace/didWatch` (`recursive: false` for a folder that could not be
//! watched): before it, a rename reads as a delete, so the file tests start after it (`TaskSetup`).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher};
use roo_context_core::access::{ROO_IGNORE_FILE, ZOO_IGNORE_FILE};
use roo_context_protocol::workspace::{
    FolderWatch, IgnoreDidReloadParams, WorkspaceDidWatchParams,
};
use tokio::sync::{mpsc, oneshot};

use crate::state::SharedState;
use crate::tracker::FileEventSink;

/// Quiet time before an ignore-file change is applied, so a save's truncate-then-write is read
/// once, whole.
const RELOAD_DEBOUNCE: Duration = Duration::from_millis(30);

/// What the watcher tells its owner.
pub enum WatcherNews {
    /// A folder's ignore file was (re)loaded.
    Reloaded(IgnoreDidReloadParams),
    /// Recursive watches were (re)started; `rescanned` fires once the file tracker compared
    /// what it tracks with the disk (`None` without a tracker).
    Watching {
        folders: WorkspaceDidWatchParams,
        rescanned: Option<oneshot::Receiver<()>>,
    },
}

/// Keeps the watchers alive; dropping it stops watching (and ends its tasks).
pub struct WorkspaceWatcher {
    _shared: Arc<Shared>,
}

/// Everything a root is watched with.
#[derive(Default)]
struct RootWatchers {
    // Non-recursive, registered before `initialize` answers: ignore-file changes.
    root: Option<notify::RecommendedWatcher>,
    // Recursive, set up in the background: cache clearing and the file tracker.
    tree: Option<notify::RecommendedWatcher>,
    // The root's parent: the root itself created again.
    parent: Option<notify::RecommendedWatcher>,
    // The folders of each hop of an ignore file that is a symlink.
    links: Vec<notify::RecommendedWatcher>,
}

struct Shared {
    state: Arc<SharedState>,
    news: mpsc::UnboundedSender<WatcherNews>,
    reload_tx: mpsc::UnboundedSender<PathBuf>,
    rearm_tx: mpsc::UnboundedSender<PathBuf>,
    files: Option<FileEventSink>,
    watchers: Mutex<HashMap<PathBuf, RootWatchers>>,
}

fn is_structural(event: &notify::Event) -> bool {
    matches!(
        event.kind,
        EventKind::Create(_)
            | EventKind::Remove(_)
            | EventKind::Modify(notify::event::ModifyKind::Name(_))
            | EventKind::Any
    ) || event.need_rescan()
}

fn watch(
    path: &Path,
    mode: RecursiveMode,
    handler: impl notify::EventHandler,
) -> Option<notify::RecommendedWatcher> {
    match notify::recommended_watcher(handler) {
        Ok(mut watcher) => match watcher.watch(path, mode) {
            Ok(()) => Some(watcher),
            Err(error) => {
                tracing::warn!(%error, path = %path.display(), "cannot watch");
                None
            }
        },
        Err(error) => {
            tracing::error!(%error, "cannot create a file watcher");
            None
        }
    }
}

/// Every hop of the ignore files of `root` that are symlinks: the paths the links point to,
/// absolute. A change to any of them changes what the ignore file reads.
fn ignore_link_hops(root: &Path) -> Vec<PathBuf> {
    let mut hops = Vec::new();
    for name in [ROO_IGNORE_FILE, ZOO_IGNORE_FILE] {
        let mut current = root.join(name);
        // Bounded like the kernel's own link limit.
        for _ in 0..40 {
            let Ok(target) = std::fs::read_link(&current) else {
                break;
            };
            let next = match current.parent() {
                Some(parent) => parent.join(target),
                None => target,
            };
            hops.push(next.clone());
            current = next;
        }
    }
    hops
}

impl Shared {
    fn root_watcher(&self, root: &Path) -> Option<notify::RecommendedWatcher> {
        let state = self.state.clone();
        let tx = self.reload_tx.clone();
        let watched_root = root.to_path_buf();
        let handler = move |result: notify::Result<notify::Event>| {
            let Ok(event) = result else {
                // Overflow or watcher error: forget cached resolutions and reread the rules.
                state.resolver.clear();
                let _ = tx.send(watched_root.clone());
                return;
            };
            if is_structural(&event) {
                state.resolver.clear();
            }
            if matches!(event.kind, EventKind::Access(_)) {
                return;
            }
            let touches_ignore_file = event.need_rescan()
                || event.paths.iter().any(|p| {
                    p.parent() == Some(watched_root.as_path())
                        && p.file_name()
                            .is_some_and(|n| n == ROO_IGNORE_FILE || n == ZOO_IGNORE_FILE)
                });
            if touches_ignore_file {
                let _ = tx.send(watched_root.clone());
            }
        };
        watch(root, RecursiveMode::NonRecursive, handler)
    }

    fn parent_watcher(&self, root: &Path) -> Option<notify::RecommendedWatcher> {
        let parent = root.parent()?;
        let tx = self.rearm_tx.clone();
        let watched_root = root.to_path_buf();
        let handler = move |result: notify::Result<notify::Event>| {
            let recreated = match &result {
                Ok(event) => {
                    event.need_rescan()
                        || (matches!(
                            event.kind,
                            EventKind::Create(_)
                                | EventKind::Modify(notify::event::ModifyKind::Name(_))
                                | EventKind::Any
                        ) && event.paths.iter().any(|p| p == &watched_root))
                }
                Err(_) => true,
            };
            if recreated {
                let _ = tx.send(watched_root.clone());
            }
        };
        watch(parent, RecursiveMode::NonRecursive, handler)
    }

    fn tree_watcher(&self, root: &Path) -> Option<notify::RecommendedWatcher> {
        let state = self.state.clone();
        let files = self.files.clone();
        let handler = move |result: notify::Result<notify::Event>| {
            if let Some(files) = &files {
                files.on_notify_event(&result);
            }
            match result {
                Ok(event) if !is_structural(&event) => {}
                _ => state.resolver.clear(),
            }
        };
        let watcher = watch(root, RecursiveMode::Recursive, handler);
        if watcher.is_none() {
            tracing::warn!(root = %root.display(),
                "recursive watch failed; symlink changes below the root are seen only after a restart");
        }
        watcher
    }

    /// Watches the folder of every hop of the root's ignore-file links; a change to a hop
    /// reloads the root's rules.
    fn link_watchers(&self, root: &Path) -> Vec<notify::RecommendedWatcher> {
        let hops = ignore_link_hops(root);
        let folders: HashSet<PathBuf> = hops
            .iter()
            .filter_map(|hop| hop.parent().map(Path::to_path_buf))
            .collect();
        folders
            .into_iter()
            .filter_map(|folder| {
                let tx = self.reload_tx.clone();
                let watched_root = root.to_path_buf();
                let hops = hops.clone();
                let handler = move |result: notify::Result<notify::Event>| {
                    let relevant = match &result {
                        Ok(event) => {
                            !matches!(event.kind, EventKind::Access(_))
                                && (event.need_rescan()
                                    || event.paths.iter().any(|p| hops.contains(p)))
                        }
                        Err(_) => true,
                    };
                    if relevant {
                        let _ = tx.send(watched_root.clone());
                    }
                };
                watch(&folder, RecursiveMode::NonRecursive, handler)
            })
            .collect()
    }

    fn with_root(&self, root: &Path, change: impl FnOnce(&mut RootWatchers)) {
        if let Ok(mut watchers) = self.watchers.lock() {
            change(watchers.entry(root.to_path_buf()).or_default());
        }
    }

    /// Sets up the recursive watch of each of `roots`: the canonical-folder cache and the file
    /// tracker start afresh (anything cached or changed before may be stale), then the owner
    /// hears which folders are watched.
    fn watch_trees(&self, roots: &[PathBuf]) {
        let folders = roots
            .iter()
            .map(|root| {
                let tree = self.tree_watcher(root);
                let recursive = tree.is_some();
                self.with_root(root, |w| w.tree = tree);
                FolderWatch {
                    folder: root.to_string_lossy().into_owned(),
                    recursive,
                }
            })
            .collect();
        self.state.resolver.clear();
        let rescanned = self.files.as_ref().map(FileEventSink::watcher_ready);
        let _ = self.news.send(WatcherNews::Watching {
            folders: WorkspaceDidWatchParams { folders },
            rescanned,
        });
    }
}

/// Starts watching every root of `state`; reload outcomes and watch starts go to `news`.
///
/// Each root gets a non-recursive watcher, registered before this returns, so an ignore-file
/// change right after `initialize` is never missed; and a recursive one, set up in the background
/// (it walks the tree), whose events clear the canonical-folder cache and go to `files` (told
/// when the recursive watchers are ready, so it can rescan what changed meanwhile).
pub fn start(
    state: Arc<SharedState>,
    news: mpsc::UnboundedSender<WatcherNews>,
    files: Option<FileEventSink>,
) -> WorkspaceWatcher {
    let (reload_tx, mut reload_rx) = mpsc::unbounded_channel::<PathBuf>();
    let (rearm_tx, mut rearm_rx) = mpsc::unbounded_channel::<PathBuf>();
    let shared = Arc::new(Shared {
        state: state.clone(),
        news,
        reload_tx,
        rearm_tx,
        files,
        watchers: Mutex::new(HashMap::new()),
    });
    let roots = state.roots();
    for root in &roots {
        let root_watcher = shared.root_watcher(root);
        let parent = shared.parent_watcher(root);
        let links = shared.link_watchers(root);
        shared.with_root(root, |w| {
            w.root = root_watcher;
            w.parent = parent;
            w.links = links;
        });
    }
    let background = Arc::downgrade(&shared);
    tokio::task::spawn_blocking(move || {
        if let Some(shared) = background.upgrade() {
            shared.watch_trees(&roots);
        }
    });
    // A root created again (deleted, then re-cloned): watch it afresh, then reread its rules.
    let rearming: Weak<Shared> = Arc::downgrade(&shared);
    tokio::spawn(async move {
        while let Some(root) = rearm_rx.recv().await {
            let weak = rearming.clone();
            let rearmed = tokio::task::spawn_blocking(move || {
                let shared = weak.upgrade()?;
                if !root.is_dir() {
                    return Some(());
                }
                let root_watcher = shared.root_watcher(&root);
                let links = shared.link_watchers(&root);
                shared.with_root(&root, |w| {
                    w.root = root_watcher;
                    w.links = links;
                });
                shared.watch_trees(std::slice::from_ref(&root));
                let _ = shared.reload_tx.send(root);
                Some(())
            })
            .await;
            if !matches!(rearmed, Ok(Some(()))) {
                break;
            }
        }
    });
    let reloading: Weak<Shared> = Arc::downgrade(&shared);
    tokio::spawn(async move {
        while let Some(first) = reload_rx.recv().await {
            let mut pending = HashSet::from([first]);
            while let Ok(Some(root)) = tokio::time::timeout(RELOAD_DEBOUNCE, reload_rx.recv()).await
            {
                pending.insert(root);
            }
            let Some(shared) = reloading.upgrade() else {
                break;
            };
            for root in pending {
                // The link may point elsewhere now: watch its new hops before rereading.
                let links = shared.link_watchers(&root);
                shared.with_root(&root, |w| w.links = links);
                if let Some(outcome) = shared.state.reload_ignore(&root) {
                    tracing::info!(folder = %outcome.folder, rules = outcome.rule_count, "ignore rules reloaded");
                    let _ = shared.news.send(WatcherNews::Reloaded(outcome));
                }
            }
        }
    });
    WorkspaceWatcher { _shared: shared }
}
