//! An in-memory file system with links, FIFOs and devices, so the read gate and every decision
//! built on [`FileSystem`] can be tested exactly, including hostile workspaces, without a disk.

use std::collections::BTreeMap;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, RwLock};

use super::{DirEntry, EntryKind, FileSystem, OpenedFile};

#[derive(Debug, Clone)]
enum Node {
    /// A regular file; hard links share the same bytes.
    File(Arc<Vec<u8>>),
    Directory,
    Symlink(PathBuf),
    /// A FIFO or device: reading it would block or never end.
    Special,
}

/// A Unix-like file system in memory (absolute paths, `/` separators). Parent folders are
/// created on demand; links may be relative or absolute and may dangle.
#[derive(Debug)]
pub struct MemFs {
    nodes: RwLock<BTreeMap<PathBuf, Node>>,
}

impl Default for MemFs {
    fn default() -> Self {
        let mut nodes = BTreeMap::new();
        nodes.insert(PathBuf::from("/"), Node::Directory);
        MemFs {
            nodes: RwLock::new(nodes),
        }
    }
}

const MAX_LINK_HOPS: usize = 40;

fn not_found(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::NotFound,
        format!("{} does not exist", path.display()),
    )
}

impl MemFs {
    fn insert(&self, path: &str, node: Node) {
        let path = PathBuf::from(path);
        let mut nodes = self.nodes.write().expect("lock");
        let mut parent = path.parent();
        while let Some(folder) = parent {
            nodes.entry(folder.to_path_buf()).or_insert(Node::Directory);
            parent = folder.parent();
        }
        nodes.insert(path, node);
    }

    /// Adds (or replaces) a regular file.
    pub fn file(&self, path: &str, content: impl Into<Vec<u8>>) -> &Self {
        self.insert(path, Node::File(Arc::new(content.into())));
        self
    }

    /// Adds a second name (hard link) for the regular file at `existing`.
    pub fn hard_link(&self, path: &str, existing: &str) -> &Self {
        let real = self
            .resolve(Path::new(existing), true)
            .expect("hard_link: the existing file must exist");
        match self.node(&real) {
            Some(node @ Node::File(_)) => self.insert(path, node),
            _ => panic!("hard_link: {existing} is not a regular file"),
        }
        self
    }

    fn links_of(&self, bytes: &Arc<Vec<u8>>) -> u64 {
        let nodes = self.nodes.read().expect("lock");
        nodes
            .values()
            .filter(|n| matches!(n, Node::File(other) if Arc::ptr_eq(other, bytes)))
            .count() as u64
    }

    /// Adds a folder.
    pub fn folder(&self, path: &str) -> &Self {
        self.insert(path, Node::Directory);
        self
    }

    /// Adds (or replaces) a symbolic link to `target`.
    pub fn symlink(&self, path: &str, target: &str) -> &Self {
        self.insert(path, Node::Symlink(PathBuf::from(target)));
        self
    }

    /// Adds a FIFO or device.
    pub fn special(&self, path: &str) -> &Self {
        self.insert(path, Node::Special);
        self
    }

    /// Removes `path` and everything below it.
    pub fn remove(&self, path: &str) {
        let path = Path::new(path);
        self.nodes
            .write()
            .expect("lock")
            .retain(|p, _| !p.starts_with(path));
    }

    /// Resolves `path` to an existing node's real path, following links (the last component
    /// only when `follow_last`).
    fn resolve(&self, path: &Path, follow_last: bool) -> io::Result<PathBuf> {
        let nodes = self.nodes.read().expect("lock");
        let mut pending: Vec<PathBuf> = path
            .components()
            .rev()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(PathBuf::from(n)),
                Component::ParentDir => Some(PathBuf::from("..")),
                _ => None,
            })
            .collect();
        let mut current = PathBuf::from("/");
        let mut hops = 0;
        while let Some(name) = pending.pop() {
            if name.as_os_str() == ".." {
                current.pop();
                continue;
            }
            let next = current.join(&name);
            match nodes.get(&next) {
                None => return Err(not_found(path)),
                Some(Node::Symlink(target)) if follow_last || !pending.is_empty() => {
                    hops += 1;
                    if hops > MAX_LINK_HOPS {
                        return Err(io::Error::other("too many levels of symbolic links"));
                    }
                    if target.is_absolute() {
                        current = PathBuf::from("/");
                    }
                    pending.extend(target.components().rev().filter_map(|c| match c {
                        Component::Normal(n) => Some(PathBuf::from(n)),
                        Component::ParentDir => Some(PathBuf::from("..")),
                        _ => None,
                    }));
                }
                Some(Node::File(_) | Node::Special | Node::Symlink(_)) if !pending.is_empty() => {
                    return Err(io::Error::new(
                        io::ErrorKind::NotADirectory,
                        format!("{} is not a folder", next.display()),
                    ));
                }
                Some(_) => current = next,
            }
        }
        Ok(current)
    }

    fn node(&self, real: &Path) -> Option<Node> {
        self.nodes.read().expect("lock").get(real).cloned()
    }
}

fn kind_of(node: &Node) -> EntryKind {
    match node {
        Node::File(_) => EntryKind::File,
        Node::Directory => EntryKind::Directory,
        Node::Symlink(_) => EntryKind::Symlink,
        Node::Special => EntryKind::Other,
    }
}

impl FileSystem for MemFs {
    fn canonicalize(&self, path: &Path) -> io::Result<PathBuf> {
        self.resolve(path, true)
    }

    fn is_symlink(&self, path: &Path) -> Option<bool> {
        let real = self.resolve(path, false).ok()?;
        self.node(&real).map(|n| matches!(n, Node::Symlink(_)))
    }

    fn kind(&self, path: &Path) -> io::Result<EntryKind> {
        let real = self.resolve(path, true)?;
        self.node(&real).map(|n| kind_of(&n)).ok_or(not_found(path))
    }

    fn hard_links(&self, path: &Path) -> Option<u64> {
        let real = self.resolve(path, true).ok()?;
        match self.node(&real)? {
            Node::File(bytes) => Some(self.links_of(&bytes)),
            _ => None,
        }
    }

    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
        let real = self.resolve(path, true)?;
        if !matches!(self.node(&real), Some(Node::Directory)) {
            return Err(io::Error::new(io::ErrorKind::NotADirectory, "not a folder"));
        }
        let nodes = self.nodes.read().expect("lock");
        Ok(nodes
            .iter()
            .filter(|(p, _)| p.parent() == Some(real.as_path()))
            .map(|(p, n)| DirEntry {
                name: p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                kind: kind_of(n),
            })
            .collect())
    }

    fn open_file(&self, path: &Path) -> io::Result<OpenedFile> {
        let real_path = self.resolve(path, true)?;
        let node = self.node(&real_path).ok_or(not_found(path))?;
        let links = match &node {
            Node::File(bytes) => self.links_of(bytes),
            _ => 1,
        };
        let (len, reader): (u64, Box<dyn io::Read + Send>) = match &node {
            Node::File(bytes) => (
                bytes.len() as u64,
                Box::new(io::Cursor::new(bytes.as_ref().clone())),
            ),
            // A device that never ends: only the gate's refusal keeps a reader away from it.
            Node::Special => (0, Box::new(io::repeat(0))),
            _ => (0, Box::new(io::empty())),
        };
        Ok(OpenedFile {
            real_path,
            kind: kind_of(&node),
            len,
            links,
            reader,
        })
    }
}
