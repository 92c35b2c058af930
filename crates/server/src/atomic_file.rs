//! The one way the server writes a file it must never leave half-written (task metadata, the
//! user's-diff baselines): a temporary file in the same folder, fsync, rename over the target,
//! fsync the folder. A crash or kill at any moment leaves the old file or the new one, whole.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `bytes` as `dir/name` atomically (`dir` must exist). The temporary file's name starts with
/// `temp_prefix`, so [`remove_leftover_temp_files`] can clear what a crash left behind.
pub fn write_atomically(
    dir: &Path,
    name: &str,
    temp_prefix: &str,
    bytes: &[u8],
) -> std::io::Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let temp = dir.join(format!(
        "{temp_prefix}{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temp, dir.join(name))?;
        std::fs::File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    result
}

/// Removes the temporary files a crashed [`write_atomically`] with `temp_prefix` left in `dir`.
pub fn remove_leftover_temp_files(dir: &Path, temp_prefix: &str) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with(temp_prefix) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
