//! One recursive notify watcher per workspace root. Changes to `.rooignore`/`.zooignore` reload
//! the folder's rules (debounced); any create, remove or rename clears the canonical-folder cache
//! so symlink swaps are seen at once; every event also goes to the file context tracker, which
//! keeps only the files some task has in context.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher};
use roo_context_core::access::{ROO_IGNORE_FILE, ZOO_IGNORE_FILE};
use roo_context_protocol::workspace::IgnoreDidReloadParams;
use tokio::sync::mpsc;

use crate::state::SharedState;
use crate::tracker::FileEventSink;

/// Quiet time before an ignore-file change is applied, so a save's truncate-then-write is read
/// once, whole.
const RELOAD_DEBOUNCE: Duration = Duration::from_millis(30);

/// Keeps the watchers alive; dropping it stops watching.
pub struct WorkspaceWatcher {
    _root_watchers: Vec<notify::RecommendedWatcher>,
    _tree_watchers: Arc<Mutex<Vec<notify::RecommendedWatcher>>>,
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

/// Starts watching every root of `state`; reload outcomes are sent to `reloads`.
///
/// Each root gets a non-recursive watcher, registered before this returns, so an ignore-file
/// change right after `initialize` is never missed; and a recursive one, set up in the background
/// (it walks the tree), whose events clear the canonical-folder cache and go to `files` (told
/// when the recursive watchers are ready, so it can rescan what changed meanwhile).
pub fn start(
    state: Arc<SharedState>,
    reloads: mpsc::UnboundedSender<IgnoreDidReloadParams>,
    files: Option<FileEventSink>,
) -> WorkspaceWatcher {
    let (roots_tx, mut roots_rx) = mpsc::unbounded_channel::<PathBuf>();
    let mut root_watchers = Vec::new();
    let roots = state.roots();
    for root in &roots {
        let state_for_events = state.clone();
        let tx = roots_tx.clone();
        let watched_root = root.clone();
        let handler = move |result: notify::Result<notify::Event>| {
            let Ok(event) = result else {
                // Overflow or watcher error: forget cached resolutions and reread the rules.
                state_for_events.resolver.clear();
                let _ = tx.send(watched_root.clone());
                return;
            };
            if is_structural(&event) {
                state_for_events.resolver.clear();
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
        match notify::recommended_watcher(handler) {
            Ok(mut watcher) => {
                if let Err(error) = watcher.watch(root, RecursiveMode::NonRecursive) {
                    tracing::error!(%error, root = %root.display(), "cannot watch workspace folder");
                }
                root_watchers.push(watcher);
            }
            Err(error) => tracing::error!(%error, "cannot create a file watcher"),
        }
    }
    let tree_watchers = Arc::new(Mutex::new(Vec::new()));
    let tree_slot = tree_watchers.clone();
    let tree_state = state.clone();
    tokio::task::spawn_blocking(move || {
        for root in roots {
            let events_state = tree_state.clone();
            let files = files.clone();
            let handler = move |result: notify::Result<notify::Event>| {
                if let Some(files) = &files {
                    files.on_notify_event(&result);
                }
                match result {
                    Ok(event) if !is_structural(&event) => {}
                    _ => events_state.resolver.clear(),
                }
            };
            match notify::recommended_watcher(handler) {
                Ok(mut watcher) => match watcher.watch(&root, RecursiveMode::Recursive) {
                    Ok(()) => {
                        if let Ok(mut slot) = tree_slot.lock() {
                            slot.push(watcher);
                        }
                    }
                    Err(error) => tracing::warn!(%error, root = %root.display(),
                        "recursive watch failed; symlink changes below the root are seen only after a restart"),
                },
                Err(error) => tracing::error!(%error, "cannot create a file watcher"),
            }
        }
        // Anything cached before the watches existed may be stale.
        tree_state.resolver.clear();
        if let Some(files) = &files {
            files.watcher_ready();
        }
    });
    tokio::spawn(async move {
        while let Some(first) = roots_rx.recv().await {
            let mut pending = HashSet::from([first]);
            while let Ok(Some(root)) = tokio::time::timeout(RELOAD_DEBOUNCE, roots_rx.recv()).await
            {
                pending.insert(root);
            }
            for root in pending {
                if let Some(outcome) = state.reload_ignore(&root) {
                    tracing::info!(folder = %outcome.folder, rules = outcome.rule_count, "ignore rules reloaded");
                    let _ = reloads.send(outcome);
                }
            }
        }
    });
    WorkspaceWatcher {
        _root_watchers: root_watchers,
        _tree_watchers: tree_watchers,
    }
}
