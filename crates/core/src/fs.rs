//! The only file-system surface the core sees: a tiny trait so decisions stay testable and the
//! server can add caching without the core knowing.

use std::io;
use std::path::{Path, PathBuf};

/// What the core needs from a file system. Implemented for the real OS by [`OsFs`].
pub trait FileSystem: Send + Sync {
    /// Resolves every symlink of an existing path (like `realpath`).
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf>;
    /// Whether `path` itself (not its target) is a symlink; `None` when it does not exist.
    fn is_symlink(&self, path: &Path) -> Option<bool>;
    /// Reads a whole file as UTF-8 text.
    fn read_to_string(&self, path: &Path) -> io::Result<String>;
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
}
