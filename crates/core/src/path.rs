//! The one path resolver every feature shares: a requested path becomes a lexical path and a
//! canonical path (all symlinks resolved, parents and root included), both relative to a
//! workspace root when they lie inside it. Access rules check both forms.

use rustc_hash::FxHashMap as HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::RwLock;

use crate::fs::FileSystem;

/// A workspace folder as typed by the editor and as it really is on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceRoot {
    /// The folder as given, made absolute and lexically normalised.
    pub lexical: PathBuf,
    /// The folder with every symlink resolved (equal to `lexical` when it cannot be resolved).
    pub canonical: PathBuf,
}

impl WorkspaceRoot {
    /// Resolves a workspace folder once; both forms are used for every later decision.
    pub fn new(root: &Path, fs: &dyn FileSystem) -> Self {
        let lexical = normalize_lexically(Path::new("/"), &root.to_string_lossy());
        let canonical = fs
            .canonicalize(&lexical)
            .unwrap_or_else(|_| lexical.clone());
        WorkspaceRoot { lexical, canonical }
    }

    /// Path of `absolute` relative to this root (either form), in posix form; `None` when outside.
    /// The root itself gives `Some("")`.
    pub fn relative(&self, absolute: &Path) -> Option<String> {
        absolute
            .strip_prefix(&self.lexical)
            .or_else(|_| absolute.strip_prefix(&self.canonical))
            .ok()
            .map(path_to_posix)
    }

    /// Whether `absolute` lies inside this root (either form), the root itself included.
    pub fn contains(&self, absolute: &Path) -> bool {
        absolute.starts_with(&self.lexical) || absolute.starts_with(&self.canonical)
    }
}

/// The original's `toPosix`: backslashes become slashes on every platform, except Windows
/// extended-length paths (`\\?\...`), which stay untouched.
///
/// A lone surrogate the host sent (encoded on the wire, see `wire_text`) becomes U+FFFD first:
/// that is the file name Node opens, so rules judge the file the host will read.
pub fn to_posix(path: &str) -> String {
    let path = crate::wire_text::model_text(path);
    if path.starts_with(r"\\?\") {
        path.into_owned()
    } else {
        path.replace('\\', "/")
    }
}

fn path_to_posix(path: &Path) -> String {
    let mut out = String::new();
    for (i, component) in path.components().enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(&component.as_os_str().to_string_lossy());
    }
    out
}

/// Joins `requested` onto `base` (absolute inputs stay absolute) and folds `.`, `..`, `//` and
/// trailing slashes lexically, like Node's `path.resolve`. `..` never climbs above `/`.
pub fn normalize_lexically(base: &Path, requested: &str) -> PathBuf {
    let requested = to_posix(requested);
    let joined = if requested.starts_with('/') {
        PathBuf::from(&requested)
    } else {
        base.join(&requested)
    };
    let mut out = PathBuf::from("/");
    for component in joined.components() {
        match component {
            Component::Normal(name) => out.push(name),
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// A requested path after resolution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedPath {
    /// Absolute and lexically normalised (no symlink resolved).
    pub lexical: PathBuf,
    /// Absolute with every symlink resolved on the part of the path that exists; the missing
    /// tail is appended as written.
    pub canonical: PathBuf,
}

/// Resolves paths to their canonical form, caching the canonical form of folders so a batch of
/// paths costs about one `lstat` each. The cache must be cleared when folders or links change
/// (the server's watcher does this).
#[derive(Default)]
pub struct Resolver {
    folder_cache: RwLock<HashMap<PathBuf, PathBuf>>,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let cached = self.folder_cache.read().map(|c| c.len()).unwrap_or(0);
        f.debug_struct("Resolver")
            .field("cached_folders", &cached)
            .finish()
    }
}

impl Resolver {
    /// Forgets every cached folder resolution.
    pub fn clear(&self) {
        if let Ok(mut cache) = self.folder_cache.write() {
            cache.clear();
        }
    }

    /// Resolves `requested` against `base` (used for relative inputs).
    pub fn resolve(&self, base: &Path, requested: &str, fs: &dyn FileSystem) -> ResolvedPath {
        let lexical = normalize_lexically(base, requested);
        // The canonical form follows the OS's own semantics for `..` after a symlink, so it is
        // computed from the joined path as written, not from the lexical one.
        let posix = to_posix(requested);
        let raw = if posix.starts_with('/') {
            PathBuf::from(posix)
        } else {
            base.join(posix)
        };
        let canonical = self.canonical_lenient(&raw, fs);
        ResolvedPath { lexical, canonical }
    }

    fn canonical_lenient(&self, raw: &Path, fs: &dyn FileSystem) -> PathBuf {
        let (parent, name) = match (raw.parent(), raw.components().next_back()) {
            (Some(parent), Some(Component::Normal(name))) => (parent, name),
            _ => return self.canonical_folder(raw, fs),
        };
        match fs.is_symlink(raw) {
            Some(false) => self.canonical_folder(parent, fs).join(name),
            Some(true) => fs
                .canonicalize(raw)
                // A dangling link: its name is all we can judge.
                .unwrap_or_else(|_| self.canonical_folder(parent, fs).join(name)),
            None => self.canonical_folder(parent, fs).join(name),
        }
    }

    fn canonical_folder(&self, folder: &Path, fs: &dyn FileSystem) -> PathBuf {
        // Walk up to the nearest folder that is cached or exists, then re-append the missing
        // tail. Iterative: hostile inputs can have tens of thousands of components.
        let mut missing_tail: Vec<Component<'_>> = Vec::new();
        let mut current = folder;
        let base = loop {
            if let Some(hit) = self
                .folder_cache
                .read()
                .ok()
                .and_then(|c| c.get(current).cloned())
            {
                break hit;
            }
            if let Ok(canonical) = fs.canonicalize(current) {
                if let Ok(mut cache) = self.folder_cache.write() {
                    cache.insert(current.to_path_buf(), canonical.clone());
                }
                break canonical;
            }
            match (current.parent(), current.components().next_back()) {
                (Some(parent), Some(last)) => {
                    missing_tail.push(last);
                    current = parent;
                }
                _ => break normalize_lexically(Path::new("/"), &current.to_string_lossy()),
            }
        };
        let mut out = base;
        for component in missing_tail.into_iter().rev() {
            match component {
                Component::Normal(name) => out.push(name),
                Component::ParentDir => {
                    out.pop();
                }
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_normalisation_matches_node_path_resolve() {
        let base = Path::new("/ws");
        let cases = [
            ("src/a.ts", "/ws/src/a.ts"),
            ("./src//a.ts", "/ws/src/a.ts"),
            ("src/../secrets/k", "/ws/secrets/k"),
            ("../../../../etc/passwd", "/etc/passwd"),
            ("/abs/x/", "/abs/x"),
            ("src\\win\\path.ts", "/ws/src/win/path.ts"),
            ("", "/ws"),
            (".", "/ws"),
            ("..foo", "/ws/..foo"),
        ];
        for (input, expected) in cases {
            assert_eq!(
                normalize_lexically(base, input),
                PathBuf::from(expected),
                "input {input:?}"
            );
        }
    }

    #[test]
    fn to_posix_keeps_extended_length_paths() {
        assert_eq!(to_posix(r"a\b\c"), "a/b/c");
        assert_eq!(to_posix(r"\\?\C:\x"), r"\\?\C:\x");
    }

    #[test]
    fn relative_accepts_either_root_form() {
        let root = WorkspaceRoot {
            lexical: PathBuf::from("/link/ws"),
            canonical: PathBuf::from("/real/ws"),
        };
        assert_eq!(
            root.relative(Path::new("/link/ws/a/b")).as_deref(),
            Some("a/b")
        );
        assert_eq!(root.relative(Path::new("/real/ws/a")).as_deref(), Some("a"));
        assert_eq!(root.relative(Path::new("/real/ws")).as_deref(), Some(""));
        assert_eq!(root.relative(Path::new("/real/wsx")), None);
    }
}
