//! One recursive notify watcher per workspace root. Changes to `.rooignore`/`.zooignore` reload
//! the folder's rules (debounced); any create, remove or rename clears the canonical-folder cache
//! so symlink swaps are seen at once.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher};
use roo_context_core::access::{ROO_IGNORE_FILE, ZOO_IGNORE_FILE};
use roo_context_protocol::workspace::IgnoreDidReloadParams;
use tokio::sync::mpsc;

use crate::state::SharedState;

/// Quiet time before an ignore-file change is applied, so a save's truncate-then-write is read
/// once, whole.
const RELOAD_DEBOUNCE: Duration = Duration::from_millis(30);

/// Keeps the watchers alive; dropping it stops watching.
pub struct WorkspaceWatcher {
    _watchers: Vec<notify::RecommendedWatcher>,
}

/// Starts watching every root of `state`. Reload outcomes are sent to `reloads`.
pub fn start(
    state: Arc<SharedState>,
    reloads: mpsc::UnboundedSender<IgnoreDidReloadParams>,
) -> WorkspaceWatcher {
    let (roots_tx, mut roots_rx) = mpsc::unbounded_channel::<PathBuf>();
    let mut watchers = Vec::new();
    for root in state.roots() {
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
            let structural = matches!(
                event.kind,
                EventKind::Create(_)
                    | EventKind::Remove(_)
                    | EventKind::Modify(notify::event::ModifyKind::Name(_))
                    | EventKind::Any
            ) || event.need_rescan();
            if structural {
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
                let recursive = watcher.watch(&root, RecursiveMode::Recursive);
                if let Err(error) = recursive {
                    tracing::warn!(%error, root = %root.display(), "recursive watch failed; watching the root folder only");
                    if let Err(error) = watcher.watch(&root, RecursiveMode::NonRecursive) {
                        tracing::error!(%error, root = %root.display(), "cannot watch workspace folder");
                    }
                }
                watchers.push(watcher);
            }
            Err(error) => tracing::error!(%error, "cannot create a file watcher"),
        }
    }
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
        _watchers: watchers,
    }
}
