//! The queue of `roo/files/didChange` notifications between the task actors and the client,
//! bounded while the client does not read its output: a change to a task's file still waiting
//! to be sent is merged with a newer one (the latest kind, new path and `diffStat` win, at the
//! older one's place in the queue), and past [`MAX_QUEUED_CHANGES`] distinct files the oldest
//! waiting notification is dropped. Nothing is lost from the records: every change is in
//! `task_metadata.json` and in `takeRecentlyModified` before its notification is queued.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use roo_context_protocol::files::FileDidChangeParams;
use tokio::sync::Notify;

/// Most notifications (distinct task and path) waiting for the client.
pub const MAX_QUEUED_CHANGES: usize = 4096;

#[derive(Default)]
struct Waiting {
    order: VecDeque<(String, String)>,
    changes: HashMap<(String, String), FileDidChangeParams>,
}

struct Shared {
    waiting: Mutex<Waiting>,
    ready: Notify,
    senders: AtomicUsize,
    limit: usize,
}

/// The actors' end (cheap to clone); the receiver ends when the last sender is dropped.
pub struct ChangeSender {
    shared: Arc<Shared>,
}

/// The notifier's end.
pub struct ChangeReceiver {
    shared: Arc<Shared>,
}

/// A bounded, merging queue of notifications.
pub fn change_queue() -> (ChangeSender, ChangeReceiver) {
    change_queue_with_limit(MAX_QUEUED_CHANGES)
}

fn change_queue_with_limit(limit: usize) -> (ChangeSender, ChangeReceiver) {
    let shared = Arc::new(Shared {
        waiting: Mutex::default(),
        ready: Notify::new(),
        senders: AtomicUsize::new(1),
        limit: limit.max(1),
    });
    (
        ChangeSender {
            shared: shared.clone(),
        },
        ChangeReceiver { shared },
    )
}

impl Clone for ChangeSender {
    fn clone(&self) -> ChangeSender {
        self.shared.senders.fetch_add(1, Ordering::SeqCst);
        ChangeSender {
            shared: self.shared.clone(),
        }
    }
}

impl Drop for ChangeSender {
    fn drop(&mut self) {
        if self.shared.senders.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.shared.ready.notify_one();
        }
    }
}

impl ChangeSender {
    /// Queues a notification, merged with a waiting one for the same task and path. Never
    /// waits; `Ok` always (the signature of the channel it replaces).
    pub fn send(&self, change: FileDidChangeParams) -> Result<(), FileDidChangeParams> {
        let key = (change.task_id.clone(), change.path.clone());
        let mut waiting = self
            .shared
            .waiting
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(older) = waiting.changes.get_mut(&key) {
            *older = change;
        } else {
            if waiting.order.len() >= self.shared.limit
                && let Some(oldest) = waiting.order.pop_front()
            {
                waiting.changes.remove(&oldest);
                tracing::warn!(
                    task = %oldest.0,
                    path = %oldest.1,
                    "didChange notification dropped: the client is not reading (the change is \
                     still recorded and taken by takeRecentlyModified)"
                );
            }
            waiting.order.push_back(key.clone());
            waiting.changes.insert(key, change);
        }
        drop(waiting);
        self.shared.ready.notify_one();
        Ok(())
    }
}

impl ChangeReceiver {
    /// The oldest waiting notification; `None` once every sender is gone and nothing waits.
    pub async fn recv(&mut self) -> Option<FileDidChangeParams> {
        loop {
            {
                let mut waiting = self
                    .shared
                    .waiting
                    .lock()
                    .unwrap_or_else(|e| e.into_inner());
                if let Some(key) = waiting.order.pop_front() {
                    return waiting.changes.remove(&key);
                }
            }
            if self.shared.senders.load(Ordering::SeqCst) == 0 {
                return None;
            }
            self.shared.ready.notified().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use roo_context_protocol::files::FileChangeKind;

    fn change(task: &str, path: &str, kind: FileChangeKind) -> FileDidChangeParams {
        FileDidChangeParams {
            task_id: task.into(),
            path: path.into(),
            kind,
            new_path: None,
            diff_stat: None,
        }
    }

    #[tokio::test]
    async fn waiting_changes_merge_per_task_and_path_and_the_oldest_go_past_the_bound() {
        let (sender, mut receiver) = change_queue_with_limit(3);
        for round in 0..1000 {
            let kind = if round % 2 == 0 {
                FileChangeKind::Modified
            } else {
                FileChangeKind::Deleted
            };
            sender.send(change("t", "a.ts", kind)).unwrap();
            sender.send(change("u", "a.ts", kind)).unwrap();
        }
        sender
            .send(change("t", "b.ts", FileChangeKind::Modified))
            .unwrap();
        // Over the bound: the oldest waiting file (t's a.ts) goes.
        sender
            .send(change("t", "c.ts", FileChangeKind::Modified))
            .unwrap();
        drop(sender);
        let mut got = Vec::new();
        while let Some(change) = receiver.recv().await {
            got.push((change.task_id, change.path, change.kind));
        }
        assert_eq!(
            got,
            [
                ("u".into(), "a.ts".into(), FileChangeKind::Deleted),
                ("t".into(), "b.ts".into(), FileChangeKind::Modified),
                ("t".into(), "c.ts".into(), FileChangeKind::Modified),
            ]
        );
    }
}
