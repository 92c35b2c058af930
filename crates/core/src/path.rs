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
    watched_roots: RwLock<Vec<WorkspaceRoot>>,
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
        if let Some(hit) = self
            .folder_cache
            .read()
            .ok()
            .and_then(|c| c.get(folder).cloned())
        {
            return hit;
        }
        // Resolve left to right, as `realpath` does: each step is one `lstat` of a path no longer
        // than the resolved prefix, so hostile inputs (240 KB of `a/../`) cost linear time.
        // Once a component is missing, the rest is folded lexically: the OS could not go on
        // either.
        let mut resolved = PathBuf::from("/");
        let mut missing: Option<Vec<&std::ffi::OsStr>> = None;
        for component in folder.components() {
            match (component, missing.as_mut()) {
                (Component::Normal(name), Some(tail)) => tail.push(name),
                (Component::ParentDir, Some(tail)) => {
                    // Back above the missing part: what follows is resolved again, so a link
                    // named after `missing/..` is still followed (failing closed).
                    tail.pop();
                    if tail.is_empty() {
                        missing = None;
                    }
                }
                (Component::ParentDir, None) => {
                    // `resolved` has no symlink left, so its lexical parent is the real one.
                    resolved.pop();
                }
                (Component::Normal(name), None) => {
                    let candidate = resolved.join(name);
                    match fs.is_symlink(&candidate) {
                        Some(false) => resolved = candidate,
                        Some(true) => match fs.canonicalize(&candidate) {
                            Ok(target) => resolved = target,
                            Err(_) => missing = Some(vec![name]),
                        },
                        None => missing = Some(vec![name]),
                    }
                }
                (Component::CurDir | Component::RootDir | Component::Prefix(_), _) => {}
            }
        }
        match missing {
            Some(tail) => {
                resolved.extend(tail);
                resolved
            }
            None => {
                if self.is_watched_identity(folder, &resolved)
                    && let Ok(mut cache) = self.folder_cache.write()
                {
                    cache.insert(folder.to_path_buf(), resolved.clone());
                }
                resolved
            }
        }
    }

    /// Tells the resolver which folders are watched (the workspace roots): only folders inside
    /// one, with no symlink below the root, are cached, because only changes there clear the
    /// cache. A folder outside every root, or reached through a link, is resolved afresh each time.
    pub fn set_watched_roots(&self, roots: Vec<WorkspaceRoot>) {
        if let Ok(mut watched) = self.watched_roots.write() {
            *watched = roots;
        }
        self.clear();
    }

    fn is_watched_identity(&self, folder: &Path, canonical: &Path) -> bool {
        let Ok(roots) = self.watched_roots.read() else {
            return false;
        };
        roots.iter().any(|root| {
            folder
                .strip_prefix(&root.lexical)
                .is_ok_and(|below| canonical == root.canonical.join(below))
                || (folder.starts_with(&root.canonical) && folder == canonical)
        })
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

    /// A tiny file system: folders, and links to canonical folders; counts the bytes of every
    /// path it is asked about, so tests can check the resolver's work without timing it.
    #[derive(Default)]
    struct CountingFs {
        entries: RwLock<HashMap<PathBuf, Option<PathBuf>>>,
        bytes_asked: std::sync::atomic::AtomicUsize,
    }

    impl CountingFs {
        fn with(entries: &[(&str, Option<&str>)]) -> CountingFs {
            let fs = CountingFs::default();
            for (path, link) in entries {
                fs.set(path, *link);
            }
            fs
        }
        fn set(&self, path: &str, link: Option<&str>) {
            self.entries
                .write()
                .unwrap()
                .insert(PathBuf::from(path), link.map(PathBuf::from));
        }
        fn count(&self, path: &Path) {
            self.bytes_asked
                .fetch_add(path.as_os_str().len(), std::sync::atomic::Ordering::Relaxed);
        }
    }

    impl FileSystem for CountingFs {
        fn canonicalize(&self, path: &Path) -> std::io::Result<PathBuf> {
            self.count(path);
            let entries = self.entries.read().unwrap();
            let mut out = PathBuf::from("/");
            for component in path.components() {
                match component {
                    Component::Normal(name) => {
                        out.push(name);
                        match entries.get(&out) {
                            Some(Some(target)) => out = target.clone(),
                            Some(None) => {}
                            None => return Err(std::io::ErrorKind::NotFound.into()),
                        }
                    }
                    Component::ParentDir => {
                        out.pop();
                    }
                    _ => {}
                }
            }
            Ok(out)
        }
        fn is_symlink(&self, path: &Path) -> Option<bool> {
            self.count(path);
            self.entries
                .read()
                .unwrap()
                .get(path)
                .map(|link| link.is_some())
        }
    }

    #[test]
    fn resolution_work_is_linear_in_the_number_of_dot_dot_components() {
        let fs = CountingFs::with(&[("/ws", None), ("/ws/src", None)]);
        let resolver = Resolver::default();
        let base = Path::new("/ws");
        for repeats in [1_000, 4_000] {
            for unit in ["a/../", "src/../", "../", "x/"] {
                let requested = format!("{}k", unit.repeat(repeats));
                fs.bytes_asked
                    .store(0, std::sync::atomic::Ordering::Relaxed);
                resolver.resolve(base, &requested, &fs);
                resolver.resolve(base, &requested, &fs);
                let asked = fs.bytes_asked.load(std::sync::atomic::Ordering::Relaxed);
                // Quadratic work (asking about every prefix) would be about repeats² bytes.
                assert!(
                    asked <= 64 * requested.len(),
                    "{unit} x{repeats}: {asked} bytes asked for a {}-byte path",
                    requested.len()
                );
            }
        }
        let resolved = resolver.resolve(base, &format!("{}src/k", "a/../".repeat(1_000)), &fs);
        assert_eq!(resolved.canonical, PathBuf::from("/ws/src/k"));
    }

    #[test]
    fn resolution_follows_links_like_realpath() {
        let fs = CountingFs::with(&[
            ("/ws", None),
            ("/ws/secrets", None),
            ("/ws/in", Some("/ws/secrets")),
            ("/out", None),
        ]);
        let resolver = Resolver::default();
        let base = Path::new("/ws");
        let canonical = |p: &str| resolver.resolve(base, p, &fs).canonical;
        assert_eq!(canonical("in/k"), PathBuf::from("/ws/secrets/k"));
        assert_eq!(canonical("in/../k"), PathBuf::from("/ws/k"));
        assert_eq!(canonical("missing/../in/k"), PathBuf::from("/ws/secrets/k"));
        assert_eq!(
            canonical("missing/x/../../../out/k"),
            PathBuf::from("/out/k")
        );
    }

    #[test]
    fn folders_outside_the_watched_roots_are_never_cached() {
        let fs = CountingFs::with(&[
            ("/ws", None),
            ("/ws/secrets", None),
            ("/out", None),
            ("/out/dir", None),
        ]);
        let resolver = Resolver::default();
        resolver.set_watched_roots(vec![WorkspaceRoot::new(Path::new("/ws"), &fs)]);
        let base = Path::new("/ws");
        assert_eq!(
            resolver.resolve(base, "/out/dir/k", &fs).canonical,
            PathBuf::from("/out/dir/k")
        );
        // Nobody watches /out: its swap for a link into the workspace's secrets must be seen.
        fs.set("/out/dir", Some("/ws/secrets"));
        assert_eq!(
            resolver.resolve(base, "/out/dir/k", &fs).canonical,
            PathBuf::from("/ws/secrets/k")
        );
    }

    #[test]
    fn folders_inside_a_root_are_cached_only_without_links() {
        let fs = CountingFs::with(&[
            ("/ws", None),
            ("/ws/src", None),
            ("/ws/secrets", None),
            ("/ws/via", Some("/out")),
            ("/out", None),
            ("/out/dir", None),
        ]);
        let resolver = Resolver::default();
        resolver.set_watched_roots(vec![WorkspaceRoot::new(Path::new("/ws"), &fs)]);
        let base = Path::new("/ws");
        resolver.resolve(base, "src/a", &fs);
        fs.bytes_asked
            .store(0, std::sync::atomic::Ordering::Relaxed);
        resolver.resolve(base, "src/b", &fs);
        assert_eq!(
            fs.bytes_asked.load(std::sync::atomic::Ordering::Relaxed),
            "/ws/src/b".len(),
            "a cached folder costs one lstat of the file"
        );
        resolver.resolve(base, "via/dir/k", &fs);
        fs.set("/out/dir", Some("/ws/secrets"));
        assert_eq!(
            resolver.resolve(base, "via/dir/k", &fs).canonical,
            PathBuf::from("/ws/secrets/k")
        );
    }
}
