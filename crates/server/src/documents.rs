//! Open documents: the text editors sent with `didOpen`/`didChange`, which wins over the file on
//! disk for every feature that reads a file (folding, symbols, folded context).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// Text of open documents by absolute path.
#[derive(Default)]
pub struct Documents {
    open: RwLock<HashMap<PathBuf, String>>,
}

impl Documents {
    /// Records the full text of an opened or changed document.
    pub fn set(&self, path: PathBuf, text: String) {
        if let Ok(mut open) = self.open.write() {
            open.insert(path, text);
        }
    }

    /// Forgets a closed document.
    pub fn close(&self, path: &Path) {
        if let Ok(mut open) = self.open.write() {
            open.remove(path);
        }
    }

    /// The editor's text of an open document.
    pub fn get(&self, path: &Path) -> Option<String> {
        self.open
            .read()
            .ok()
            .and_then(|open| open.get(path).cloned())
    }
}
