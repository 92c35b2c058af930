//! The only file-system surface the core sees: a tiny trait so decisions stay testable and the
//! server can add caching without the core knowing.

use std::io;
use std::path::{Path, PathBuf};

/// What a path is. [`FileSystem::kind`] follows symlinks; [`FileSystem::read_dir`] does not, so
/// listings can tell links apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory.
    Directory,
    /// A symbolic link (only reported by listings, which do not follow links).
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The file name (lossy UTF-8).
    pub name: String,
    /// Its kind, links not followed.
    pub kind: EntryKind,
}

/// What the core needs from a file system. Implemented for the real OS by [`OsFs`].
pub trait FileSystem: Send + Sync {
    /// Resolves every symlink of an existing path (like `realpath`).
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf>;
    /// Whether `path` itself (not its target) is a symlink; `None` when it does not exist.
    fn is_symlink(&self, path: &Path) -> Option<bool>;
    /// Reads a whole file as UTF-8 text.
    fn read_to_string(&self, path: &Path) -> io::Result<String>;

    /// What `path` is, following symlinks (like `stat`).
    fn kind(&self, path: &Path) -> io::Result<EntryKind> {
        let _ = path;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this file system cannot stat paths",
        ))
    }

    /// The entries of a directory, sorted by name so listings are the same on every file system.
    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
        let _ = path;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this file system cannot list directories",
        ))
    }

    /// Opens a file for streaming reads, so callers can stop reading at their limits.
    fn open(&self, path: &Path) -> io::Result<Box<dyn io::Read + Send>> {
        let text = self.read_to_string(path)?;
        Ok(Box::new(io::Cursor::new(text.into_bytes())))
    }
}

impl std::fmt::Debug for dyn FileSystem + '_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dyn FileSystem")
    }
}

fn kind_of(file_type: std::fs::FileType) -> EntryKind {
    if file_type.is_file() {
        EntryKind::File
    } else if file_type.is_dir() {
        EntryKind::Directory
    } else if file_type.is_symlink() {
        EntryKind::Symlink
    } else {
        EntryKind::Other
    }
}

/// The real operating-system file system.
#[derive(Debug, Default, Clone, Copy)]
pub struct OsFs;

impl FileSystem for OsFs {
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        std::fs::canonicalize(path)
    }

    fn is_symlink(&self, path: &Path) -> Option<bool> {
        std::fs::symlink_metadata(path)
            .ok()
            .map(|m| m.file_type().is_symlink())
    }

    fn read_to_string(&self, path: &Path) -> io::Result<String> {
        std::fs::read_to_string(path)
    }

    fn kind(&self, path: &Path) -> io::Result<EntryKind> {
        std::fs::metadata(path).map(|m| kind_of(m.file_type()))
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
        let mut entries = Vec::new();
        for entry in std::fs::read_dir(path)? {
            let entry = entry?;
            let kind = entry.file_type().map(kind_of).unwrap_or(EntryKind::Other);
            entries.push(DirEntry {
                name: entry.file_name().to_string_lossy().into_owned(),
                kind,
            });
        }
        entries.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(entries)
    }

    fn open(&self, path: &Path) -> io::Result<Box<dyn io::Read + Send>> {
        Ok(Box::new(std::fs::File::open(path)?))
    }
}
