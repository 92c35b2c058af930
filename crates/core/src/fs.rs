//! The only file-system surface the core sees: a tiny trait so decisions stay testable and the
//! server can add caching without the core knowing. It also holds the read gate
//! ([`open_gated`]), the one way any byte that can reach the model is read.
//!
//! ## Decision: One read gate
//!
//! `fs::open_gated` is the only way file content is read for an answer: mentions (files and folder
//! listings' files), slash-command files, folded context, outlines, document symbols, folding
//! ranges and tracking fingerprints. Handlers judge the name first (`Policy::check_access`, for the
//! user-visible reason), then the gate opens the path once and judges what was opened: on Linux the
//! descriptor's own `/proc/self/fd` link, elsewhere the canonical form of the name, and either way
//! only if that path names the very object opened (same device and inode), else the read fails
//! closed. The common case costs neither: on Linux the gate first opens with
//! `openat2(RESOLVE_NO_SYMLINKS)` (through rustix), and when no link is on the way an absolute path
//! without `.`/`..` is the object's real path; a link, an old kernel or a sandbox without the call
//! falls back to the descriptor's link. There, when the link is the very name opened and the stat
//! before the open saw the same object, the second stat is skipped (a link ending in ` (deleted)`,
//! the kernel's mark, always takes the full check). What was opened goes through
//! `Policy::allows_opened`: its real path (`Policy::allows_real_path`) and its link count. Only
//! regular files are read (`O_NONBLOCK`, and a stat before the open, so a FIFO is never waited on
//! and a device never opened; the descriptor is checked again), and every read is bounded (fold 16
//! MiB, command files 1 MiB, fingerprints 64 MiB, mentions stream at most 256 MiB). The trait has
//! no other read method, so a new reader cannot bypass the gate by accident. Files of `/proc` and
//! `/sys` are never read (their sizes lie and their bytes are the process's: `src/env.ts ->
//! /proc/self/environ`).
//!
//! ## Decision: Hard links are refused while an ignore file is active
//!
//! A second name of a blocked file (`ln secrets/key.pem src/notes.txt`) is a different path with
//! the same bytes, and nothing finds a file's other names short of walking every folder. So the
//! gate refuses a regular file with more than one link whenever any folder has an ignore file
//! (`Policy::allows_links`); without one nothing is blocked and nothing is refused. The cost:
//! hard-linked trees (pnpm's store in `node_modules`, `cp -al` backups, some build outputs) are not
//! read by mentions, folding, symbols or fingerprints while an ignore file is active; the refusal
//! names the reason. `validateAccess` stays a judgement of names (the host reads the file itself),
//! as in the original.

use std::io;
use std::path::{Path, PathBuf};

pub mod memory;

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

    /// What `path` is, following symlinks (like `stat`).
    fn kind(&self, path: &Path) -> io::Result<EntryKind> {
        let _ = path;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this file system cannot stat paths",
        ))
    }

    /// How many names (hard links) the regular file at `path` has, links followed; `None` when
    /// it is not a regular file or the file system cannot tell.
    fn hard_links(&self, path: &Path) -> Option<u64> {
        let _ = path;
        None
    }

    /// The entries of a directory, sorted by name so listings are the same on every file system.
    fn read_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
        let _ = path;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this file system cannot list directories",
        ))
    }

    /// Opens `path` once, following links, without ever blocking (a FIFO is refused, not
    /// waited on), and describes what was opened: its kind, its size and the real path of the
    /// opened object (not of the name, which may have changed since). Only [`open_gated`] calls
    /// this; everything else reads through the gate.
    fn open_file(&self, path: &Path) -> io::Result<OpenedFile> {
        let _ = path;
        Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "this file system cannot open files",
        ))
    }

    /// Lists a folder once, returning its real path with the entries (only [`list_gated`]
    /// calls this). The default resolves the name first and lists the resolved path.
    fn list_dir(&self, path: &Path) -> io::Result<(PathBuf, Vec<DirEntry>)> {
        let real = self.canonicalize(path)?;
        let entries = self.read_dir(&real)?;
        Ok((real, entries))
    }
}

/// Lists a folder once and says where it really is: the real path of the listed folder (every
/// link resolved), judged by `allowed` before any name is returned. Folder mentions list
/// through here and build their children's paths on the real path, so a folder swapped for a
/// link after its check shows nothing of where the link points.
pub fn list_gated(
    fs: &dyn FileSystem,
    path: &Path,
    allowed: &dyn Fn(&Path) -> bool,
) -> Result<(PathBuf, Vec<DirEntry>), GateRefusal> {
    if path.as_os_str().as_encoded_bytes().contains(&0) {
        return Err(GateRefusal::Io(io::Error::new(
            io::ErrorKind::InvalidInput,
            "path contains a NUL byte",
        )));
    }
    let (real, entries) = fs.list_dir(path).map_err(GateRefusal::Io)?;
    if !allowed(&real) {
        return Err(GateRefusal::Blocked);
    }
    Ok((real, entries))
}

/// What [`FileSystem::open_file`] opened.
pub struct OpenedFile {
    /// The real path of the opened object, every link resolved.
    pub real_path: PathBuf,
    /// Its kind, links followed (never [`EntryKind::Symlink`]).
    pub kind: EntryKind,
    /// Its size when opened.
    pub len: u64,
    /// How many names (hard links) it has; 1 when the file system cannot tell.
    pub links: u64,
    /// Its bytes; only read for regular files.
    pub reader: Box<dyn io::Read + Send>,
}

/// What the gate knows about the object it opened, for the caller's judgement: where it really
/// is and how many names it has (another name of the same bytes may be blocked).
#[derive(Debug, Clone, Copy)]
pub struct OpenedObject<'a> {
    /// The real path of the opened object, every link resolved.
    pub real_path: &'a Path,
    /// Its number of hard links (names).
    pub links: u64,
}

impl std::fmt::Debug for OpenedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedFile")
            .field("real_path", &self.real_path)
            .field("kind", &self.kind)
            .field("len", &self.len)
            .field("links", &self.links)
            .finish_non_exhaustive()
    }
}

/// Why the read gate refused a file.
#[derive(Debug)]
pub enum GateRefusal {
    /// It could not be opened (missing, unreadable, a dangling link...).
    Io(io::Error),
    /// It is a folder.
    Directory,
    /// It is a FIFO, socket or device (never read, it could block or never end), or a file of
    /// a kernel pseudo file system (`/proc`, `/sys`), whose size says nothing about its bytes.
    NotRegular,
    /// The opened object's real path is blocked (a link, or a swap since it was judged by name).
    Blocked,
    /// Its real path is allowed, but it has other names (hard links) that cannot be judged.
    HardLinked {
        /// Its number of names.
        links: u64,
    },
    /// It is larger than the caller's bound.
    TooLarge {
        /// Its size.
        len: u64,
        /// The bound.
        limit: u64,
    },
}

impl std::fmt::Display for GateRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GateRefusal::Io(error) => write!(f, "cannot read: {error}"),
            GateRefusal::Directory => f.write_str("is a folder"),
            GateRefusal::NotRegular => f.write_str(
                "not a regular file (a FIFO, socket, device or /proc or /sys file is never read)",
            ),
            GateRefusal::Blocked => f.write_str("access blocked by the ignore file"),
            GateRefusal::HardLinked { links } => write!(
                f,
                "not read: it has {links} hard links, and another name of it may be blocked by \
                 the ignore file"
            ),
            GateRefusal::TooLarge { len, limit } => {
                write!(f, "file too large ({len} bytes, limit {limit})")
            }
        }
    }
}

/// A regular file the gate opened, judged and bounded. Reading yields at most the smaller of
/// its size when opened and the caller's bound, so a file that grows while read stays bounded.
pub struct GatedFile {
    /// The real path of what was read.
    pub real_path: PathBuf,
    /// Its size when opened.
    pub len: u64,
    reader: io::Take<Box<dyn io::Read + Send>>,
}

impl std::fmt::Debug for GatedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatedFile")
            .field("real_path", &self.real_path)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl io::Read for GatedFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reader.read(buf)
    }
}

impl GatedFile {
    /// Reads everything the bound allows.
    pub fn read_all(mut self) -> io::Result<Vec<u8>> {
        let mut bytes = Vec::with_capacity(self.reader.limit().min(64 * 1024 * 1024) as usize);
        io::Read::read_to_end(&mut self, &mut bytes)?;
        Ok(bytes)
    }
}

/// Reads a file that is not model input (an ignore file, `task_metadata.json`) without ever
/// blocking or flooding: through [`open_gated`]'s opener with every real path allowed, so only
/// a regular file is read, a FIFO is never waited on, a swap for a special file between any
/// earlier check and the open is caught, and at most `bound` bytes are read (larger is an error).
pub fn read_regular_file(fs: &dyn FileSystem, path: &Path, bound: u64) -> io::Result<Vec<u8>> {
    match open_gated(fs, path, bound, true, &|_| true) {
        Ok(file) => file.read_all(),
        Err(GateRefusal::Io(error)) => Err(error),
        Err(refusal) => Err(io::Error::other(refusal.to_string())),
    }
}

/// [`read_regular_file`], also returning what was opened: its real path (every link resolved)
/// and its number of hard links, as the gate saw the object read (no second lookup by name).
pub fn read_regular_file_opened(
    fs: &dyn FileSystem,
    path: &Path,
    bound: u64,
) -> io::Result<(Vec<u8>, PathBuf, u64)> {
    let seen = std::cell::RefCell::new(None);
    let allowed = |object: &OpenedObject<'_>| {
        *seen.borrow_mut() = Some((object.real_path.to_path_buf(), object.links));
        true
    };
    let bytes = match open_gated(fs, path, bound, true, &allowed) {
        Ok(file) => file.read_all()?,
        Err(GateRefusal::Io(error)) => return Err(error),
        Err(refusal) => return Err(io::Error::other(refusal.to_string())),
    };
    let (real_path, links) = seen
        .into_inner()
        .ok_or_else(|| io::Error::other("the opened object was not judged"))?;
    Ok((bytes, real_path, links))
}

/// The read gate: the one function through which every byte that can reach the model is read
/// (mentions, command files, folded context, outlines, symbols, folding ranges, fingerprints).
/// It opens `path` once, then judges what was opened rather than the name: the object must be
/// a regular file (links followed; FIFOs and devices are refused without blocking) whose real
/// and link count `allowed` accepts (`Policy::allows_opened`), and no larger than `bound` when
/// `refuse_larger` is set. Reads are bounded by `bound` either way. The caller judges the name
/// first (for the user-visible reason); this second judgement closes the window between that
/// check and the open. Files of `/proc` and `/sys` are never read: their sizes lie (0 or 4096)
/// and their bytes are the process's or the kernel's, never workspace content.
pub fn open_gated(
    fs: &dyn FileSystem,
    path: &Path,
    bound: u64,
    refuse_larger: bool,
    allowed: &dyn Fn(&OpenedObject<'_>) -> bool,
) -> Result<GatedFile, GateRefusal> {
    if path.as_os_str().as_encoded_bytes().contains(&0) {
        return Err(GateRefusal::Io(io::Error::new(
            io::ErrorKind::InvalidInput,
            "path contains a NUL byte",
        )));
    }
    let opened = fs.open_file(path).map_err(GateRefusal::Io)?;
    match opened.kind {
        EntryKind::File => {}
        EntryKind::Directory => return Err(GateRefusal::Directory),
        EntryKind::Symlink | EntryKind::Other => return Err(GateRefusal::NotRegular),
    }
    if is_kernel_pseudo_file(&opened.real_path) {
        return Err(GateRefusal::NotRegular);
    }
    let object = OpenedObject {
        real_path: &opened.real_path,
        links: opened.links,
    };
    if !allowed(&object) {
        // Say why when the links alone decided it.
        let single = OpenedObject { links: 1, ..object };
        return Err(if object.links > 1 && allowed(&single) {
            GateRefusal::HardLinked {
                links: object.links,
            }
        } else {
            GateRefusal::Blocked
        });
    }
    if refuse_larger && opened.len > bound {
        return Err(GateRefusal::TooLarge {
            len: opened.len,
            limit: bound,
        });
    }
    Ok(GatedFile {
        real_path: opened.real_path,
        len: opened.len,
        reader: io::Read::take(opened.reader, bound.min(opened.len)),
    })
}

/// Whether a real path lies in a kernel pseudo file system (`/proc`, `/sys`): regular files
/// there report a size of 0 or 4096 whatever they hold, and hold the process's environment,
/// memory maps or kernel state, never workspace content.
pub fn is_kernel_pseudo_file(real: &Path) -> bool {
    cfg!(target_os = "linux") && (real.starts_with("/proc") || real.starts_with("/sys"))
}

/// `std::fs::canonicalize` with Windows' verbatim prefix removed where that is lossless (what
/// the `dunce` crate does), so `\\?\C:\ws` compares equal to a `C:\ws` root.
pub fn canonicalize_simplified(path: &Path) -> io::Result<PathBuf> {
    let canonical = std::fs::canonicalize(path)?;
    #[cfg(windows)]
    if let Some(simple) = canonical.to_str().and_then(simplify_verbatim) {
        return Ok(PathBuf::from(simple));
    }
    Ok(canonical)
}

/// The plain form of a Windows verbatim path (`\\?\C:\a` → `C:\a`,
/// `\\?\UNC\server\share\a` → `\\server\share\a`), or `None` when it has no verbatim
/// prefix or the plain form would mean something else (a reserved device name, a trailing dot
/// or space, a `/`, or a length past the classic 260-character limit). Pure, so it is tested on
/// every platform.
pub fn simplify_verbatim(path: &str) -> Option<String> {
    let (plain, rest) = if let Some(rest) = path.strip_prefix(r"\\?\UNC\") {
        (format!(r"\\{rest}"), rest)
    } else {
        let rest = path.strip_prefix(r"\\?\")?;
        let bytes = rest.as_bytes();
        let drive = bytes.len() >= 3
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && bytes[2] == b'\\';
        if !drive {
            return None;
        }
        (rest.to_owned(), &rest[3..])
    };
    if plain.len() >= 260 || rest.contains('/') {
        return None;
    }
    const RESERVED: [&str; 22] = [
        "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
        "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
    ];
    for name in rest.split('\\') {
        if name == "." || name == ".." || name.ends_with('.') || name.ends_with(' ') {
            return None;
        }
        let stem = name.split('.').next().unwrap_or("").trim_end();
        if RESERVED.iter().any(|r| r.eq_ignore_ascii_case(stem)) {
            return None;
        }
    }
    Some(plain)
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
        canonicalize_simplified(path)
    }

    fn is_symlink(&self, path: &Path) -> Option<bool> {
        std::fs::symlink_metadata(path)
            .ok()
            .map(|m| m.file_type().is_symlink())
    }

    fn kind(&self, path: &Path) -> io::Result<EntryKind> {
        std::fs::metadata(path).map(|m| kind_of(m.file_type()))
    }

    fn hard_links(&self, path: &Path) -> Option<u64> {
        let metadata = std::fs::metadata(path).ok()?;
        metadata.is_file().then(|| link_count(&metadata))
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

    #[cfg(target_os = "linux")]
    fn list_dir(&self, path: &Path) -> io::Result<(PathBuf, Vec<DirEntry>)> {
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::OpenOptionsExt;
        let folder = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NONBLOCK | libc::O_CLOEXEC)
            .open(path)?;
        let own = format!("/proc/self/fd/{}", folder.as_raw_fd());
        let real = std::fs::read_link(&own)?;
        if !same_object(&std::fs::metadata(&real)?, &folder.metadata()?) {
            return Err(io::Error::other(
                "the folder changed while it was opened; not listed",
            ));
        }
        // Listing through the descriptor lists exactly the folder that was judged.
        let entries = self.read_dir(Path::new(&own))?;
        Ok((real, entries))
    }

    fn open_file(&self, path: &Path) -> io::Result<OpenedFile> {
        // A cheap look first so devices and FIFOs are normally never opened at all; the
        // descriptor is checked again below, because the name may change in between.
        let before = std::fs::metadata(path)?;
        if !before.is_file() {
            return Ok(OpenedFile {
                real_path: path.to_path_buf(),
                kind: kind_of(before.file_type()),
                len: 0,
                links: 1,
                reader: Box::new(io::empty()),
            });
        }
        // No link anywhere on the way: the name opened is where the object is.
        if let Some(file) = open_without_links(path)? {
            let metadata = file.metadata()?;
            return Ok(OpenedFile {
                real_path: path.to_path_buf(),
                kind: kind_of(metadata.file_type()),
                len: metadata.len(),
                links: link_count(&metadata),
                reader: Box::new(file),
            });
        }
        let file = open_nonblocking(path)?;
        let metadata = file.metadata()?;
        let kind = kind_of(metadata.file_type());
        let real_path = if kind == EntryKind::File {
            real_path_of(&file, path, &before, &metadata)?
        } else {
            path.to_path_buf()
        };
        Ok(OpenedFile {
            real_path,
            kind,
            len: metadata.len(),
            links: link_count(&metadata),
            reader: Box::new(file),
        })
    }
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: opening a FIFO never waits for a writer; O_NOCTTY: a terminal never becomes
    // ours. Reads of regular files ignore O_NONBLOCK.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
}

/// Opens `path` as [`open_nonblocking`] does, but only if no component of it is a symlink
/// (`openat2` with `RESOLVE_NO_SYMLINKS`, Linux 5.6): then the object opened lies at `path`
/// itself, which is its real path when `path` is absolute and has no `.` or `..`. `Ok(None)`
/// when that cannot be used here (a link on the way, a path with `..`, an older kernel or a
/// sandbox without the call): the caller then resolves the descriptor's real path.
#[cfg(target_os = "linux")]
fn open_without_links(path: &Path) -> io::Result<Option<std::fs::File>> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    let plain = path.is_absolute()
        && path
            .components()
            .skip(1)
            .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !plain {
        return Ok(None);
    }
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
    match rustix::fs::openat2(
        rustix::fs::CWD,
        path,
        flags,
        Mode::empty(),
        ResolveFlags::NO_SYMLINKS,
    ) {
        Ok(fd) => Ok(Some(std::fs::File::from(fd))),
        Err(rustix::io::Errno::LOOP | rustix::io::Errno::XDEV)
        | Err(rustix::io::Errno::NOSYS | rustix::io::Errno::PERM | rustix::io::Errno::INVAL)
        | Err(rustix::io::Errno::AGAIN | rustix::io::Errno::TOOBIG) => Ok(None),
        Err(other) => Err(other.into()),
    }
}

#[cfg(not(target_os = "linux"))]
fn open_without_links(_: &Path) -> io::Result<Option<std::fs::File>> {
    Ok(None)
}

#[cfg(not(unix))]
fn open_nonblocking(path: &Path) -> io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// The real path of an opened file: on Linux the descriptor's own link in `/proc/self/fd`,
/// elsewhere the canonical form of the name. Either way the answer is accepted only when that
/// path names the very object that was opened (same device and inode), so a swap or a deleted
/// file fails closed.
///
/// The common case costs no second `stat`: when the descriptor's link is the very name that was
/// opened, and the `stat` of that name just before the open saw the same object, the name was
/// the object's before the open and the kernel says it still is (a link never shows as the
/// object's own path). A link ending in ` (deleted)` is the kernel's mark of a removed name, so
/// it always takes the full check (the name might be a file that is called so).
fn real_path_of(
    file: &std::fs::File,
    path: &Path,
    before: &std::fs::Metadata,
    opened: &std::fs::Metadata,
) -> io::Result<PathBuf> {
    #[cfg(target_os = "linux")]
    let candidate = {
        use std::os::fd::AsRawFd;
        std::fs::read_link(format!("/proc/self/fd/{}", file.as_raw_fd()))
            .or_else(|_| std::fs::canonicalize(path))?
    };
    #[cfg(not(target_os = "linux"))]
    let candidate = {
        let _ = file;
        canonicalize_simplified(path)?
    };
    let marked_deleted = candidate
        .as_os_str()
        .as_encoded_bytes()
        .ends_with(b" (deleted)");
    if cfg!(target_os = "linux")
        && !marked_deleted
        && candidate == path
        && same_object(before, opened)
    {
        return Ok(candidate);
    }
    if same_object(&std::fs::metadata(&candidate)?, opened) {
        Ok(candidate)
    } else {
        Err(io::Error::other(
            "the file changed while it was opened; not read",
        ))
    }
}

#[cfg(unix)]
fn same_object(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(unix)]
fn link_count(metadata: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    metadata.nlink()
}

#[cfg(not(unix))]
fn link_count(_: &std::fs::Metadata) -> u64 {
    // Not exposed by std on this platform: one name, as the file system cannot tell.
    1
}

#[cfg(not(unix))]
fn same_object(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    a.len() == b.len() && a.modified().ok() == b.modified().ok() && a.file_type() == b.file_type()
}
