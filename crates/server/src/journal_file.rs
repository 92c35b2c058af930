//! A whole file and its append-only journal on disk (issue 25): `task_metadata.json` with
//! `task_metadata.journal`, `seen.json` with `seen.journal`. A batch appends one record and
//! fsyncs it (an answer means it is on disk); a compaction writes the whole file atomically
//! ([`crate::atomic_file`]) and starts a new journal, when the rule in `core::journal` says so,
//! when the task is opened with records to replay and when it is closed. The lines, their
//! checks and what a load replays are decided in `roo_context_core::journal`; this module does
//! the reading, appending and renaming. An append that fails leaves nothing of itself behind
//! (or the journal is never appended to again), and its caller then writes the whole file in
//! the same batch (`tracker/actor.rs`, `baselines.rs`). Blocking: callers run it on the
//! blocking pool.

use std::io::Write;
use std::path::{Path, PathBuf};

use roo_context_core::fs::{OsFs, read_regular_file};
use roo_context_core::journal::{self, Damage, Replay};
use serde_json::Value;

/// The largest journal read; a bigger one is an error and is left alone.
const MAX_JOURNAL_BYTES: u64 = 256 * 1024 * 1024;

/// An error when the journal appended to is no longer the file at `path` (removed, renamed
/// or replaced while the task was open, or the task folder deleted): what was appended is not
/// where a load reads it, so the answer must not say it is on disk.
fn still_in_place(file: &std::fs::File, path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let (open, named) = (file.metadata()?, std::fs::symlink_metadata(path)?);
        if open.nlink() == 0 || (open.dev(), open.ino()) != (named.dev(), named.ino()) {
            return Err(std::io::Error::other(format!(
                "{} is no longer the journal this process appends to",
                path.display()
            )));
        }
    }
    #[cfg(not(unix))]
    let _ = (file, path);
    Ok(())
}

/// One whole file and its journal, in one folder.
#[derive(Debug)]
pub struct JournaledFile {
    dir: PathBuf,
    whole: &'static str,
    journal: &'static str,
    temp_prefix: &'static str,
    /// The journal, open for appending; `None` when there is none this process can append
    /// to (not created yet, unusable, or an append could not be undone): the next write is
    /// then a compaction, which starts a new one.
    file: Option<std::fs::File>,
    /// Length of the journal file on disk (where a failed append is cut back to).
    file_len: u64,
    /// Bytes of records and markers after the header.
    journal_len: u64,
    /// Size of the whole file on disk.
    whole_len: u64,
    /// The next record's number.
    next_seq: u64,
    /// The whole file on disk is not the state (records to compact, or a journal that could
    /// not be cut back after a failed append).
    behind: bool,
    /// The whole file as this process last saw it (length, inode, modification time): another
    /// writer's rewrite makes the journal continue a file that is no longer there.
    whole_seen: Option<WholeSeen>,
}

/// What identifies the whole file on disk.
type WholeSeen = (u64, u64, Option<std::time::SystemTime>);

fn whole_seen(path: &Path) -> Option<WholeSeen> {
    let metadata = std::fs::symlink_metadata(path).ok()?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&metadata);
    #[cfg(not(unix))]
    let inode = 0;
    Some((metadata.len(), inode, metadata.modified().ok()))
}

/// What a load found: the records to replay on the whole file, and whether to compact now.
#[derive(Debug)]
pub struct Loaded {
    /// Records to apply to the whole file, in order.
    pub records: Vec<Value>,
    /// Records were replayed or the journal was damaged: the whole file should be written
    /// now, so the original-format file is current again and the journal starts clean.
    pub compact: bool,
    /// Where an unusable journal (no header, or continuing another file) was moved, its
    /// records not applied: for the caller to report.
    pub set_aside: Option<PathBuf>,
}

impl JournaledFile {
    /// Reads the journal `journal` continuing the whole file `whole` of `dir`, whose bytes
    /// (`None`: missing) the caller has read and judged. An unusable journal (no header, a
    /// header naming another file) is moved aside as `<journal>.corrupt-<ms>`, its records not
    /// applied; a damaged tail is dropped. Errors: the journal cannot be read (left alone).
    pub fn load(
        dir: &Path,
        whole: &'static str,
        journal: &'static str,
        temp_prefix: &'static str,
        whole_bytes: Option<&[u8]>,
    ) -> std::io::Result<(JournaledFile, Loaded)> {
        let mut file = JournaledFile {
            dir: dir.to_path_buf(),
            whole,
            journal,
            temp_prefix,
            file: None,
            file_len: 0,
            journal_len: 0,
            whole_len: whole_bytes.map_or(0, |b| b.len() as u64),
            next_seq: 1,
            behind: false,
            whole_seen: whole_seen(&dir.join(whole)),
        };
        let path = dir.join(journal);
        let bytes = match read_regular_file(&OsFs, &path, MAX_JOURNAL_BYTES) {
            Ok(bytes) => bytes,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                let loaded = Loaded {
                    records: Vec::new(),
                    compact: false,
                    set_aside: None,
                };
                return Ok((file, loaded));
            }
            Err(error) => {
                return Err(std::io::Error::new(
                    error.kind(),
                    format!("cannot read {}: {error}", path.display()),
                ));
            }
        };
        let whole_id = journal::base_id(whole_bytes);
        let parsed = journal::parse(&bytes);
        let plan = parsed
            .as_ref()
            .map(|j| journal::plan(j, &whole_id))
            .map_err(Clone::clone);
        let (parsed, records) = match (parsed, plan) {
            (Ok(parsed), Ok(Replay::Apply(records))) => (parsed, records),
            (parsed, _) => {
                let aside = dir.join(format!("{journal}.corrupt-{}", crate::tracker::now_ms()));
                std::fs::rename(&path, &aside)?;
                tracing::warn!(
                    journal = %path.display(),
                    moved_to = %aside.display(),
                    reason = if parsed.is_err() { "no valid header" } else { "continues another file" },
                    "journal not replayed; the whole file is used as it is"
                );
                let loaded = Loaded {
                    records: Vec::new(),
                    compact: true,
                    set_aside: Some(aside),
                };
                file.behind = true;
                return Ok((file, loaded));
            }
        };
        match &parsed.damage {
            None => {}
            Some(Damage::TornTail { bytes }) => {
                tracing::info!(journal = %path.display(), bytes, "torn journal tail dropped");
            }
            Some(Damage::Corrupt { offset, bytes }) => {
                tracing::warn!(journal = %path.display(), offset, bytes, "corrupt journal lines dropped");
            }
        }
        let compact = !records.is_empty() || parsed.damage.is_some() || parsed.base != whole_id;
        file.behind = compact;
        if !compact {
            // A clean journal holding nothing to replay: appended to as it is.
            let header = journal::header_line(&whole_id).len() as u64;
            file.file = std::fs::OpenOptions::new().append(true).open(&path).ok();
            file.file_len = parsed.valid_len as u64;
            file.journal_len = file.file_len.saturating_sub(header);
        }
        Ok((
            file,
            Loaded {
                records,
                compact,
                set_aside: None,
            },
        ))
    }

    /// Whether the next write of a record of `record_len` bytes should be a compaction.
    pub fn wants_compaction(&self, record_len: usize) -> bool {
        self.file.is_none()
            || journal::should_compact(self.whole_len, self.journal_len, record_len as u64)
    }

    /// Whether the whole file is no longer the one this process read or wrote last (another
    /// writer replaced or changed it): a record appended now would continue a file that is
    /// gone, and a load would set the journal aside with it. The caller compacts instead.
    pub fn whole_changed(&self) -> bool {
        whole_seen(&self.dir.join(self.whole)) != self.whole_seen
    }

    /// Whether the journal holds anything the whole file does not.
    pub fn has_records(&self) -> bool {
        self.behind || self.journal_len > 0
    }

    /// Appends `record` and fsyncs it. On failure nothing of it stays in the journal (it is cut
    /// back; when that fails too, the next write is a compaction), so a later record never
    /// follows a torn one.
    pub fn append(&mut self, record: &Value) -> std::io::Result<()> {
        let line = journal::record_line(self.next_seq, record);
        self.append_line(line)
    }

    /// Appends `record` unless the journal is due for a compaction (`Ok(false)`, nothing
    /// written): [`Self::wants_compaction`] and [`Self::append`] with the record serialized once.
    pub fn append_unless_due(&mut self, record: &Value) -> std::io::Result<bool> {
        let line = journal::record_line(self.next_seq, record);
        if self.wants_compaction(line.len()) {
            return Ok(false);
        }
        self.append_line(line).map(|()| true)
    }

    fn append_line(&mut self, line: Vec<u8>) -> std::io::Result<()> {
        let path = self.dir.join(self.journal);
        let Some(file) = &mut self.file else {
            return Err(std::io::Error::other("no journal to append to"));
        };
        match file
            .write_all(&line)
            .and_then(|()| file.sync_data())
            .and_then(|()| still_in_place(file, &path))
        {
            Ok(()) => {
                self.file_len += line.len() as u64;
                self.journal_len += line.len() as u64;
                self.next_seq += 1;
                Ok(())
            }
            Err(error) => {
                self.cut_back();
                Err(error)
            }
        }
    }

    fn cut_back(&mut self) {
        let path = self.dir.join(self.journal);
        let undone = self.file.as_ref().is_some_and(|f| {
            f.set_len(self.file_len)
                .and_then(|()| f.sync_data())
                .and_then(|()| still_in_place(f, &path))
                .is_ok()
        });
        if !undone {
            self.file = None;
            self.behind = true;
        }
    }

    /// Writes the whole file as `whole` atomically and starts a new journal continuing it. A
    /// marker naming `whole` goes into the old journal first, so a kill after the rename and
    /// before the new journal replays nothing twice. `Err` only when the whole file could not
    /// be written (the state on disk is then the old file and its journal, unchanged).
    pub fn compact(&mut self, whole: &[u8]) -> std::io::Result<()> {
        let id = journal::base_id(Some(whole));
        if let Some(file) = &mut self.file {
            let marker = journal::marker_line(&id);
            if file
                .write_all(&marker)
                .and_then(|()| file.sync_data())
                .is_ok()
            {
                self.file_len += marker.len() as u64;
                self.journal_len += marker.len() as u64;
            } else {
                // Without its marker a kill after the rename finds a journal naming another
                // file: not replayed, and the whole file holds all of it. Never appended to.
                self.file = None;
            }
        }
        crate::atomic_file::write_atomically(&self.dir, self.whole, self.temp_prefix, whole)?;
        self.whole_seen = whole_seen(&self.dir.join(self.whole));
        self.whole_len = whole.len() as u64;
        self.journal_len = 0;
        self.behind = false;
        let header = journal::header_line(&id);
        let started = crate::atomic_file::write_atomically(
            &self.dir,
            self.journal,
            self.temp_prefix,
            &header,
        )
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .append(true)
                .open(self.dir.join(self.journal))
        });
        match started {
            Ok(file) => {
                self.file = Some(file);
                self.file_len = header.len() as u64;
                self.next_seq = 1;
            }
            Err(error) => {
                // The whole file is written: durable. The old journal (if any) names the old
                // file or ends with this one's marker; it is never appended to again.
                tracing::warn!(%error, journal = %self.dir.join(self.journal).display(), "new journal not started");
                self.file = None;
            }
        }
        Ok(())
    }

    /// For tests: appends go to `file` (say `/dev/full`, to simulate a full disk).
    #[cfg(test)]
    pub fn append_to(&mut self, file: std::fs::File) {
        self.file = Some(file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const WHOLE: &str = "state.json";
    const JOURNAL: &str = "state.journal";
    const TEMP: &str = ".state.tmp-";

    /// The state is a JSON array; a record appends its value.
    fn load(dir: &Path) -> (JournaledFile, Vec<Value>, bool) {
        let whole = std::fs::read(dir.join(WHOLE)).ok();
        let (file, loaded) =
            JournaledFile::load(dir, WHOLE, JOURNAL, TEMP, whole.as_deref()).unwrap();
        let mut state: Vec<Value> = whole
            .map(|b| serde_json::from_slice(&b).unwrap())
            .unwrap_or_default();
        state.extend(loaded.records);
        (file, state, loaded.compact)
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn bytes_of(state: &[Value]) -> Vec<u8> {
        serde_json::to_vec(state).unwrap()
    }

    #[test]
    fn appended_records_are_replayed_and_a_compaction_starts_a_clean_journal() {
        let dir = tempfile::tempdir().unwrap();
        let (mut file, mut state, compact) = load(dir.path());
        assert!(state.is_empty() && !compact);
        // No journal yet: the first write compacts.
        assert!(file.wants_compaction(10));
        state.push(json!(0));
        file.compact(&bytes_of(&state)).unwrap();
        for i in 1..5 {
            state.push(json!(i));
            file.append(&json!(i)).unwrap();
        }
        let (mut again, replayed, compact) = load(dir.path());
        assert_eq!(replayed, state);
        assert!(compact);
        again.compact(&bytes_of(&replayed)).unwrap();
        let (_, clean, compact) = load(dir.path());
        assert_eq!(clean, state);
        assert!(!compact);
        assert_eq!(names(dir.path()), [JOURNAL, WHOLE]);
    }

    /// A kill after the compaction's rename, before the new journal: the old journal ends
    /// with the marker naming the file on disk, and nothing is applied twice.
    #[test]
    fn a_kill_between_the_compaction_rename_and_the_new_journal_applies_nothing_twice() {
        let dir = tempfile::tempdir().unwrap();
        let (mut file, _, _) = load(dir.path());
        file.compact(b"[0]").unwrap();
        file.append(&json!(1)).unwrap();
        let old_journal = std::fs::read(dir.path().join(JOURNAL)).unwrap();
        file.compact(b"[0,1]").unwrap();
        let mut with_marker = old_journal.clone();
        with_marker.extend(journal::marker_line(&journal::base_id(Some(b"[0,1]"))));
        std::fs::write(dir.path().join(JOURNAL), &with_marker).unwrap();
        let (_, state, _) = load(dir.path());
        assert_eq!(state, [json!(0), json!(1)]);
        // Even without the marker (its append failed), nothing is applied twice: the journal
        // names another file and is moved aside.
        std::fs::write(dir.path().join(JOURNAL), &old_journal).unwrap();
        let (_, state, compact) = load(dir.path());
        assert_eq!(state, [json!(0), json!(1)]);
        assert!(compact);
        assert!(
            names(dir.path())
                .iter()
                .any(|n| n.starts_with("state.journal.corrupt-"))
        );
    }

    #[test]
    fn garbage_or_a_torn_tail_after_the_records_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let (mut file, _, _) = load(dir.path());
        file.compact(b"[]").unwrap();
        file.append(&json!("a")).unwrap();
        let mut journal = std::fs::OpenOptions::new()
            .append(true)
            .open(dir.path().join(JOURNAL))
            .unwrap();
        journal
            .write_all(b"\0\0\0garbage\n12345678 {\"seq\":2")
            .unwrap();
        let (mut file, state, compact) = load(dir.path());
        assert_eq!(state, [json!("a")]);
        assert!(compact);
        file.compact(&bytes_of(&state)).unwrap();
        file.append(&json!("b")).unwrap();
        let (_, state, _) = load(dir.path());
        assert_eq!(state, [json!("a"), json!("b")]);
    }

    /// A full disk: the append is an error, nothing of it stays, and later records are
    /// replayed (the next write compacts when the journal could not be cut back).
    #[test]
    fn a_failed_append_leaves_the_state_on_disk_unchanged_and_later_writes_work() {
        let dir = tempfile::tempdir().unwrap();
        let (mut file, _, _) = load(dir.path());
        file.compact(b"[0]").unwrap();
        file.append(&json!(1)).unwrap();
        file.append_to(
            std::fs::OpenOptions::new()
                .write(true)
                .open("/dev/full")
                .unwrap(),
        );
        let error = file.append(&json!("lost")).unwrap_err();
        assert_eq!(error.raw_os_error(), Some(28), "{error}"); // ENOSPC
        let (_, state, _) = load(dir.path());
        assert_eq!(state, [json!(0), json!(1)]);
        // The device cannot be cut back: the next write is a compaction.
        assert!(file.wants_compaction(1));
        file.compact(b"[0,1,2]").unwrap();
        file.append(&json!(3)).unwrap();
        let (_, state, _) = load(dir.path());
        assert_eq!(state, [json!(0), json!(1), json!(2), json!(3)]);
    }

    /// A journal removed (or replaced) while open: appending there would put answered
    /// records where no load reads them. An error, and the next write compacts.
    #[test]
    fn an_append_to_a_journal_removed_from_its_folder_is_an_error_and_the_next_write_compacts() {
        let dir = tempfile::tempdir().unwrap();
        let (mut file, _, _) = load(dir.path());
        file.compact(b"[0]").unwrap();
        std::fs::remove_file(dir.path().join(JOURNAL)).unwrap();
        assert!(file.append(&json!(1)).is_err());
        assert!(file.wants_compaction(1) && file.has_records());
        file.compact(b"[0,1]").unwrap();
        file.append(&json!(2)).unwrap();
        let (_, state, _) = load(dir.path());
        assert_eq!(state, [json!(0), json!(1), json!(2)]);
    }

    #[test]
    fn a_huge_record_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let (mut file, _, _) = load(dir.path());
        file.compact(b"[]").unwrap();
        let huge = json!("x".repeat(8 * 1024 * 1024));
        file.append(&huge).unwrap();
        let (_, state, _) = load(dir.path());
        assert_eq!(state, [huge]);
    }
}
