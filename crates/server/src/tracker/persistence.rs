//! `task_metadata.json` on disk: loading (a corrupt file is moved aside, never overwritten),
//! its journal replayed (each batch appends its records there; `crate::journal_file`), and
//! atomic writes of the whole file (temp file, fsync, rename, fsync the folder).

use super::*;
use crate::journal_file::JournaledFile;
use roo_context_core::tracker::delta::apply_record;

/// The journal beside `task_metadata.json` (see [`crate::journal_file`]).
pub const JOURNAL_FILE: &str = "task_metadata.journal";

/// Loads `task_metadata.json` from `dir` and replays its journal (then compacts, so the
/// original-format file is current again). Missing → empty. Unparsable → moved aside and
/// reported (and its journal, which continues it, moved aside too). Unreadable (the file or
/// its journal) → error, and both are left alone.
pub(super) fn load(
    dir: &Path,
) -> Result<(TaskMetadata, Option<MetadataRecovery>, JournaledFile), TrackerError> {
    crate::atomic_file::remove_leftover_temp_files(dir, TEMP_PREFIX);
    let target = dir.join(TASK_METADATA_FILE);
    let (mut metadata, recovery, whole) = match read_metadata_bytes(&target) {
        Ok(bytes) => match parse_metadata(&bytes) {
            Ok(metadata) => (metadata, None, Some(bytes)),
            Err(error) => (TaskMetadata::default(), Some(move_aside(dir, error)?), None),
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            (TaskMetadata::default(), None, None)
        }
        Err(error) => {
            return Err(TrackerError::Io(format!(
                "cannot read {}: {error}",
                target.display()
            )));
        }
    };
    let (mut journal, loaded) = JournaledFile::load(
        dir,
        TASK_METADATA_FILE,
        JOURNAL_FILE,
        TEMP_PREFIX,
        whole.as_deref(),
    )
    .map_err(|error| TrackerError::Io(error.to_string()))?;
    for record in &loaded.records {
        if let Err(error) = apply_record(&mut metadata, record) {
            tracing::warn!(%error, dir = %dir.display(), "task metadata journal record not applied; replay stopped");
            break;
        }
    }
    if loaded.compact
        && let Err(error) = journal.compact(metadata.to_json().as_bytes())
    {
        // The journal is not appended to again (the next write compacts): nothing is lost.
        tracing::warn!(%error, dir = %dir.display(), "task metadata not compacted at open");
    }
    Ok((metadata, recovery, journal))
}

fn parse_metadata(bytes: &[u8]) -> Result<TaskMetadata, MetadataError> {
    std::str::from_utf8(bytes)
        .map_err(|e| MetadataError::InvalidJson(e.to_string()))
        .and_then(TaskMetadata::parse)
}

fn move_aside(dir: &Path, error: MetadataError) -> Result<MetadataRecovery, TrackerError> {
    let target = dir.join(TASK_METADATA_FILE);
    let moved_to = dir.join(format!("{TASK_METADATA_FILE}.corrupt-{}", now_ms()));
    std::fs::rename(&target, &moved_to).map_err(|rename_error| {
        TrackerError::Io(format!(
            "{} is unusable ({error}) and cannot be moved aside: {rename_error}",
            target.display()
        ))
    })?;
    tracing::warn!(%error, moved_to = %moved_to.display(), "unusable task_metadata.json moved aside");
    Ok(MetadataRecovery {
        moved_to: moved_to.to_string_lossy().into_owned(),
        error: error.to_string(),
    })
}

/// The largest `task_metadata.json` read; a bigger one is an error and is left alone.
pub(super) const MAX_METADATA_BYTES: u64 = 256 * 1024 * 1024;

/// Reads the metadata file without ever blocking or flooding (not model input, so any path).
pub(super) fn read_metadata_bytes(target: &Path) -> std::io::Result<Vec<u8>> {
    roo_context_core::fs::read_regular_file(&OsFs, target, MAX_METADATA_BYTES)
}

/// The lock file in a task folder: held (an advisory `flock`) by the one process whose actor
/// has the task open, and naming that process.
pub const LOCK_FILE: &str = ".roo-context.lock";

/// Takes the task folder's lock, or says which process holds it: two servers on one task
/// folder would overwrite each other's `task_metadata.json` and `seen.json`.
pub(super) fn lock_task_folder(dir: &Path) -> Result<std::fs::File, TrackerError> {
    use std::io::{Read, Seek, Write};
    let path = dir.join(LOCK_FILE);
    let cannot = |error: std::io::Error| {
        TrackerError::Io(format!(
            "cannot lock task folder {}: {error}",
            dir.display()
        ))
    };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(cannot)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            return Err(TrackerError::Io(format!(
                "task folder {} is in use by another roo-context process ({}): one task folder \
                 is served by one process at a time (lock file {})",
                dir.display(),
                if holder.is_empty() {
                    "process id unknown".to_owned()
                } else {
                    format!("pid {}", holder.chars().take(20).collect::<String>())
                },
                path.display()
            )));
        }
        Err(std::fs::TryLockError::Error(error)) => return Err(cannot(error)),
    }
    // Who holds it, for the error another process reports (best effort).
    let _ = file
        .set_len(0)
        .and_then(|()| file.rewind())
        .and_then(|()| write!(file, "{}", std::process::id()));
    Ok(file)
}

pub(super) const TEMP_PREFIX: &str = ".task_metadata.json.tmp-";

/// Writes `json` as `dir/task_metadata.json` atomically (see [`crate::atomic_file`]).
#[cfg(test)]
pub fn write_atomically(dir: &Path, json: &str) -> std::io::Result<()> {
    crate::atomic_file::write_atomically(dir, TASK_METADATA_FILE, TEMP_PREFIX, json.as_bytes())
}
