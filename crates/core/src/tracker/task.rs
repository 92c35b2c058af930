//! One task's file context: the records of `task_metadata.json` (the original's algorithm for
//! adding, ordering and de-duplicating), the recently-modified and checkpoint-possible sets, and
//! the fingerprints of what the agent last saw. Time is a parameter, so tests choose it.
//!
//! ## Decision: Announced agent writes
//!
//! `markRooEdited` comes before the write; a file read between the two (a rescan, an unrelated
//! event) still holds the old content. The core keeps the contents an announced write supersedes
//! until the written content is observed, and those are not user edits (this was the cause of the
//! flaky `files::the_agent_own_write...` test). Likewise a file found empty is judged again 50 ms
//! later: an in-place save (truncate, then write) read in between is not an edit (the flaky
//! `files::a_save_with_identical_content...`).
//!
//! ## Decision: Told content that differs from the disk (issue 25)
//!
//! A `track` with `content` (what the host says the agent saw) also fingerprints the file as it is
//! on disk; when the two differ (a file not written yet, line endings the read tool normalised, an
//! unsaved buffer), the disk's content joins the superseded contents: no user edit until the disk
//! changes. Without it, the watcher-ready rescan, which comes up about when the first tracks of a
//! burst land, reported every such file as edited by the user (the random failure of
//! `files::a_thousand_concurrent_tracks...`; the deterministic
//! `tracker::tests::a_rescan_reports_no_edit_for_content_the_host_told...`).

use std::collections::HashMap;

use super::fingerprint::{ChangeHint, ChangeKind, Fingerprint, classify};
use super::metadata::{FileMetadataEntry, RecordSource, RecordState, TaskMetadata};

/// An insertion-ordered set of paths (the original's JavaScript `Set<string>`); the index keeps
/// each insert constant-time however many paths are pending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct OrderedPaths(Vec<String>, std::collections::HashSet<String>);

impl OrderedPaths {
    fn insert(&mut self, path: &str) {
        if self.1.insert(path.to_owned()) {
            self.0.push(path.to_owned());
        }
    }

    fn take(&mut self) -> Vec<String> {
        self.1.clear();
        std::mem::take(&mut self.0)
    }
}

/// The file context of one task. Paths are keys exactly as the caller gives them.
#[derive(Debug, Clone, Default)]
pub struct TaskFiles {
    /// The persisted records.
    pub metadata: TaskMetadata,
    recently_modified: OrderedPaths,
    checkpoint_possible: OrderedPaths,
    /// What the agent last read or wrote, per watched path.
    known: HashMap<String, Fingerprint>,
    /// What a path held before the agent announced a write (`markRooEdited` comes before the
    /// write): until the write is seen, reading the old content is no user edit. Without this,
    /// a read that started before the write and is judged after the mark was a false "modified".
    superseded: HashMap<String, Vec<Fingerprint>>,
    /// Paths restored after a restart with no known content: the first observation becomes the
    /// known content (nothing to compare it with), later ones are judged.
    adopt: std::collections::HashSet<String>,
    /// Records `[0, persisted_len)` are on disk as they were then (see [`TaskFiles::metadata_delta`]).
    persisted_len: usize,
    /// Records made stale since the last save.
    stale_since: std::collections::BTreeSet<usize>,
}

/// Most superseded contents kept per path (agent writes announced before any was seen).
const MAX_SUPERSEDED: usize = 4;

/// A change the task must report to the host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservedChange {
    /// The tracked path (as the caller gave it).
    pub path: String,
    /// What happened.
    pub kind: ChangeKind,
}

/// The largest truthy value of a date among `entries` (0 counts as missing, as in JavaScript).
fn latest(
    entries: &[&FileMetadataEntry],
    date: fn(&FileMetadataEntry) -> Option<i64>,
) -> Option<i64> {
    entries
        .iter()
        .filter_map(|e| date(e))
        .filter(|d| *d != 0)
        .max()
}

impl TaskFiles {
    /// A task continuing the history in `metadata` (nothing is watched yet).
    pub fn new(metadata: TaskMetadata) -> TaskFiles {
        TaskFiles {
            persisted_len: metadata.files_in_context.len(),
            metadata,
            ..TaskFiles::default()
        }
    }

    /// The original's `addFileToFileContextTracker`: older active records of `path` become
    /// stale, and a new active record inherits their latest dates, then is stamped by source.
    /// `seen` is what the agent read or wrote (its fingerprint), which starts or updates watching.
    pub fn track(&mut self, path: &str, source: RecordSource, seen: Option<Fingerprint>, now: i64) {
        let same_path: Vec<&FileMetadataEntry> = self
            .metadata
            .files_in_context
            .iter()
            .filter(|e| e.path == path)
            .collect();
        let mut entry = FileMetadataEntry::new(
            path,
            RecordState::Active,
            source.clone(),
            [
                latest(&same_path, |e| e.roo_read_date),
                latest(&same_path, |e| e.roo_edit_date),
                latest(&same_path, |e| e.user_edit_date),
            ],
        );
        for (index, old) in self.metadata.files_in_context.iter_mut().enumerate() {
            if old.path == path && old.record_state == RecordState::Active {
                old.record_state = RecordState::Stale;
                self.stale_since.insert(index);
            }
        }
        match source {
            RecordSource::UserEdited => {
                entry.user_edit_date = Some(now);
                self.recently_modified.insert(path);
            }
            RecordSource::RooEdited => {
                entry.roo_read_date = Some(now);
                entry.roo_edit_date = Some(now);
                self.checkpoint_possible.insert(path);
            }
            RecordSource::ReadTool | RecordSource::FileMentioned | RecordSource::Other(_) => {
                entry.roo_read_date = Some(now);
            }
        }
        self.metadata.files_in_context.push(entry);
        if let Some(seen) = seen {
            self.known.insert(path.to_owned(), seen);
            self.superseded.remove(path);
            self.adopt.remove(path);
        }
    }

    /// Records that the agent wrote (or is about to write) `content` to `path`: events whose
    /// content matches are its own write, not the user's. Adds no record. Until the written
    /// content is observed, the content it replaces is not a user edit either (the write may
    /// not have landed when the file was read).
    pub fn mark_agent_edited(&mut self, path: &str, written: Fingerprint) {
        self.adopt.remove(path);
        if let Some(previous) = self.known.insert(path.to_owned(), written)
            && previous != written
        {
            let superseded = self.superseded.entry(path.to_owned()).or_default();
            superseded.retain(|f| *f != written && *f != previous);
            superseded.push(previous);
            if superseded.len() > MAX_SUPERSEDED {
                superseded.remove(0);
            }
        }
    }

    /// The host told what the agent saw of `path` (its `content`), and the disk held
    /// `on_disk` when that was recorded, which differs (an unsaved buffer, line endings the
    /// read tool normalised, a file not written yet). The disk's content is then no user edit
    /// until the disk changes: without this, any judgement that no event prompted (the
    /// watcher-ready rescan, an overflow rescan, a reopen) reported the difference as an edit
    /// nobody made. Kept with the superseded contents, so it is persisted and restored the
    /// same way and ends the same way: when the agent's view is seen on disk, or when a change
    /// is reported (which becomes the new known content).
    pub fn disk_differs_from_seen(&mut self, path: &str, on_disk: Fingerprint) {
        let Some(known) = self.known.get(path) else {
            return;
        };
        if *known == on_disk {
            return;
        }
        let superseded = self.superseded.entry(path.to_owned()).or_default();
        superseded.retain(|f| *f != on_disk);
        superseded.push(on_disk);
        if superseded.len() > MAX_SUPERSEDED {
            superseded.remove(0);
        }
    }

    /// Watches `path` again after a restart: `known` is what the agent last saw, as persisted,
    /// or `None` when that is unknown (then the first observation is adopted). A path tracked
    /// since the task was opened keeps its fresher knowledge.
    pub fn restore(&mut self, path: &str, known: Option<Fingerprint>) {
        if self.is_watched(path) {
            return;
        }
        match known {
            Some(known) => {
                self.known.insert(path.to_owned(), known);
            }
            None => {
                self.adopt.insert(path.to_owned());
            }
        }
    }

    /// What changed in the records since the last [`TaskFiles::metadata_saved`] (or since the
    /// task was loaded), as one journal record (see [`super::delta`]); `None` when nothing did.
    pub fn metadata_delta(&self) -> Option<super::delta::MetadataDelta> {
        let len = self.metadata.files_in_context.len();
        if len == self.persisted_len && self.stale_since.is_empty() {
            return None;
        }
        Some(super::delta::MetadataDelta {
            len: self.persisted_len,
            stale: self
                .stale_since
                .iter()
                .copied()
                .filter(|index| *index < self.persisted_len)
                .collect(),
            append: self.metadata.files_in_context[self.persisted_len..].to_vec(),
        })
    }

    /// The records as they are now are on disk (a journal record or the whole file).
    pub fn metadata_saved(&mut self) {
        self.persisted_len = self.metadata.files_in_context.len();
        self.stale_since.clear();
    }

    /// Contents `path` held before agent writes announced and not seen yet (to persist them,
    /// so a write announced before a restart or `disposeTask` and landing after the reopen is
    /// no user edit, nor is the content it replaces).
    pub fn superseded(&self, path: &str) -> &[Fingerprint] {
        self.superseded
            .get(path)
            .map(Vec::as_slice)
            .unwrap_or_default()
    }

    /// Restores the [`TaskFiles::superseded`] contents of a path just restored with a known
    /// content (bounded like the live ones); a path with fresher ones keeps them.
    pub fn restore_superseded(&mut self, path: &str, old: Vec<Fingerprint>) {
        if old.is_empty() || !self.known.contains_key(path) || self.superseded.contains_key(path) {
            return;
        }
        let skip = old.len().saturating_sub(MAX_SUPERSEDED);
        self.superseded
            .insert(path.to_owned(), old.into_iter().skip(skip).collect());
    }

    /// What the tracker holds as the agent's last view of `path` (to persist it).
    pub fn known(&self, path: &str) -> Option<Fingerprint> {
        self.known.get(path).copied()
    }

    /// Judges the content of a watched path now. A change is recorded as a `user_edited` record,
    /// adds the path to the recently-modified set and becomes the new known content (so repeated
    /// events for the same content are reported once). Unwatched paths are ignored.
    pub fn observe(
        &mut self,
        path: &str,
        observed: Fingerprint,
        hint: &ChangeHint,
        now: i64,
    ) -> Option<ObservedChange> {
        if self.adopt.remove(path) {
            self.known.insert(path.to_owned(), observed);
            return None;
        }
        let known = *self.known.get(path)?;
        if known == observed {
            // The agent's announced write has landed: what it replaced is a change again.
            self.superseded.remove(path);
            return None;
        }
        if self
            .superseded
            .get(path)
            .is_some_and(|old| old.contains(&observed))
        {
            return None;
        }
        let kind = classify(known, observed, hint)?;
        self.track(path, RecordSource::UserEdited, Some(observed), now);
        Some(ObservedChange {
            path: path.to_owned(),
            kind,
        })
    }

    /// Paths whose changes are watched (tracked in this session), in no particular order.
    pub fn watched_paths(&self) -> impl Iterator<Item = &str> {
        self.known
            .keys()
            .chain(self.adopt.iter())
            .map(String::as_str)
    }

    /// Whether `path` is watched.
    pub fn is_watched(&self, path: &str) -> bool {
        self.known.contains_key(path) || self.adopt.contains(path)
    }

    /// Stops watching every path (the records and sets stay).
    pub fn stop_watching(&mut self) {
        self.known.clear();
        self.superseded.clear();
        self.adopt.clear();
    }

    /// The paths of the active records, most recently recorded first, each once: what a
    /// restored task watches again.
    pub fn active_paths(&self) -> Vec<String> {
        let mut seen = std::collections::HashSet::new();
        self.metadata
            .files_in_context
            .iter()
            .rev()
            .filter(|e| e.record_state == RecordState::Active)
            .filter(|e| seen.insert(e.path.as_str()))
            .map(|e| e.path.clone())
            .collect()
    }

    /// The original's `getAndClearRecentlyModifiedFiles`, in insertion order.
    pub fn take_recently_modified(&mut self) -> Vec<String> {
        self.recently_modified.take()
    }

    /// The original's `getAndClearCheckpointPossibleFile`, in insertion order.
    pub fn take_checkpoint_possible(&mut self) -> Vec<String> {
        self.checkpoint_possible.take()
    }

    /// The original's `getFilesReadByRoo`; see [`files_read_by_agent`].
    pub fn files_read_by_agent(&self, since: Option<i64>) -> Vec<String> {
        files_read_by_agent(&self.metadata, since)
    }

    /// See [`files_edited_by_agent`].
    pub fn files_edited_by_agent(&self) -> Vec<String> {
        files_edited_by_agent(&self.metadata)
    }
}

/// Paths the agent wrote (`roo_edited`), most recently edited first, each once: they lead the
/// folded context's budget.
pub fn files_edited_by_agent(metadata: &TaskMetadata) -> Vec<String> {
    let mut edits: Vec<(&str, i64)> = metadata
        .files_in_context
        .iter()
        .filter(|e| e.record_source == RecordSource::RooEdited)
        .map(|e| (e.path.as_str(), e.roo_edit_date.unwrap_or(0)))
        .collect();
    edits.sort_by_key(|edit| std::cmp::Reverse(edit.1));
    let mut seen = std::collections::HashSet::with_capacity(edits.len());
    edits
        .into_iter()
        .filter(|(path, _)| seen.insert(*path))
        .map(|(path, _)| path.to_owned())
        .collect()
}

/// Paths the agent read (`read_tool`) or was given (`file_mentioned`), newest read first, each
/// once. With `since` (non-zero), entries read before it are dropped; entries without a read date
/// are kept, as in the original.
pub fn files_read_by_agent(metadata: &TaskMetadata, since: Option<i64>) -> Vec<String> {
    let since = since.filter(|s| *s != 0);
    let mut reads: Vec<(&str, i64)> = metadata
        .files_in_context
        .iter()
        .filter(|e| {
            matches!(
                e.record_source,
                RecordSource::ReadTool | RecordSource::FileMentioned
            )
        })
        .map(|e| (e.path.as_str(), e.roo_read_date.unwrap_or(0)))
        .filter(|(_, read)| match since {
            Some(since) => *read == 0 || *read >= since,
            None => true,
        })
        .collect();
    // Stable, like the JavaScript sort.
    reads.sort_by_key(|read| std::cmp::Reverse(read.1));
    // First occurrence wins; the set keeps this linear in the record count.
    let mut seen = std::collections::HashSet::with_capacity(reads.len());
    reads
        .into_iter()
        .filter(|(path, _)| seen.insert(*path))
        .map(|(path, _)| path.to_owned())
        .collect()
}
