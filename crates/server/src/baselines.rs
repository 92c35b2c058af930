//! The baselines of the user's-diff notices (`takeRecentlyModified` with `withDiffs`): per task,
//! the content the agent last saw of each tracked file, content-addressed in the task folder
//! (`roo-context/seen/<sha256>`, index `roo-context/seen.json`), LRU-bounded, never for blocked,
//! binary or oversized files; and the notices taken but not yet acknowledged, so a notice is
//! repeated until the host says it reached the model. Owned by the task's actor in `tracker/actor.rs`
//! (its only writer); every write is atomic. What a notice says is decided in
//! `core::stale_diff`; this module does the reading (through the read gate) and the storing.
//! The index also keeps how each tracked key is watched (its base folder and the tracker's
//! fingerprint of what the agent last saw), which a reopened task restores from, and this module
//! computes the `diffStat` of `roo/files/didChange` with the notices' own diff function.
//! One file on purpose (over 600 lines): the store, its index and the notice ledger share one
//! invariant (a blob lives while an index entry or an unacknowledged notice names it).

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use roo_context_core::access::Policy;
use roo_context_core::fs::{GateRefusal, OsFs, open_gated, read_regular_file};
use roo_context_core::stale_diff::{
    self, Added, DiffLimits, Fallback, MAX_FILE_BYTES, NoticeBuilder, Side, text_of,
};
use roo_context_core::tracker::{ChangeKind, Fingerprint, ObservedChange, RecordSource};
use roo_context_core::wire_text;
use roo_context_protocol::files as wire;

use crate::atomic_file::{remove_leftover_temp_files, write_atomically};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::journal_file::JournaledFile;
use crate::state::SharedState;

mod index_delta;

/// The store's folder inside the task folder.
pub const STORE_DIR: &str = "roo-context";
/// The index of the baselines, inside [`STORE_DIR`].
pub const INDEX_FILE: &str = "seen.json";
/// The journal of the index, inside [`STORE_DIR`]: each batch appends its change there
/// (`index_delta.rs`, `journal_file.rs`).
pub const INDEX_JOURNAL_FILE: &str = "seen.journal";
/// The folder of the content-addressed blobs, inside [`STORE_DIR`].
pub const BLOBS_DIR: &str = "seen";
/// Default bound of one task's baselines (distinct bytes); `ROO_CONTEXT_SEEN_CAP_BYTES`
/// overrides it (tests use a small one).
pub const DEFAULT_CAP_BYTES: u64 = 64 * 1024 * 1024;
/// Most baselines of one task, whatever their size (empty files cost an entry each).
const MAX_ENTRIES: usize = 100_000;
/// Notices kept for acknowledgement; acknowledging one drops every older one.
const KEPT_NOTICES: usize = 8;
const TEMP_PREFIX: &str = ".tmp-";

/// What the agent saw of a tracked file, for its baseline: the text the host gave, or the file
/// to read now through the read gate (with the policy that judged it).
#[derive(Debug, Clone)]
pub struct SeenContent {
    /// The file (lexical absolute path, as watched).
    pub absolute: PathBuf,
    /// What the host says the agent read or wrote; `None`: read the file now.
    pub text: Option<Arc<str>>,
    /// The access rule at the time of tracking.
    pub policy: Arc<Policy>,
    /// The folder the tracked key was resolved against (persisted for the restore).
    pub base: PathBuf,
    /// The agent saw only part of the file (`text` is then `None`: the whole file is read).
    pub partial: bool,
}

/// `seen.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Index {
    version: u32,
    files: BTreeMap<String, Entry>,
    /// Tracked key → how to watch it again after a restart (restore, in `tracker/actor.rs`).
    /// Untrusted when read back: every path is judged again by the access rule.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    watched: BTreeMap<String, WatchedEntry>,
    /// [`fingerprint_check`] of the build that wrote the `known` fingerprints: another build
    /// may hash differently, and then they are ignored (never trusted as equal).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fingerprints: Option<String>,
    /// Changes not yet acknowledged (observed, or taken into a notice the host did not confirm):
    /// kept on disk so closing the task or restarting the server between a take and its
    /// acknowledgement does not lose them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pending: BTreeMap<String, StoredChange>,
}

/// How a tracked key is watched, persisted so a reopened task watches it again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WatchedEntry {
    /// The folder the key was resolved against (the request's `cwd`, or the first folder).
    pub base: String,
    /// The file as watched, so a reopened task can diff its baseline and its unacknowledged
    /// change before the restore re-resolves it (read only through [`persisted_path`]: the
    /// index is a file anyone with the task folder can edit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub absolute: Option<PathBuf>,
    /// The real file (every link resolved) the baseline was read from: a take diffs only that
    /// file, never another one a link swapped in since names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub real: Option<PathBuf>,
    /// The tracker's fingerprint of what the agent last saw ([`persist_fingerprint`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<String>,
    /// What the file held before agent writes announced but not seen yet (persisted
    /// fingerprints): still no user edit after a reopen.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub superseded: Vec<String>,
}

/// A fingerprint as persisted: `missing` or `<len>:<hash0 hex>:<hash1 hex>`.
pub fn persist_fingerprint(fingerprint: Fingerprint) -> String {
    match fingerprint {
        Fingerprint::Missing => "missing".to_owned(),
        Fingerprint::Content { len, hash } => format!("{len}:{:016x}:{:016x}", hash[0], hash[1]),
    }
}

/// The inverse of [`persist_fingerprint`]; `None` for anything else.
pub fn parse_fingerprint(text: &str) -> Option<Fingerprint> {
    if text == "missing" {
        return Some(Fingerprint::Missing);
    }
    let mut parts = text.split(':');
    let len = parts.next()?.parse().ok()?;
    let h0 = u64::from_str_radix(parts.next()?, 16).ok()?;
    let h1 = u64::from_str_radix(parts.next()?, 16).ok()?;
    parts.next().is_none().then_some(Fingerprint::Content {
        len,
        hash: [h0, h1],
    })
}

/// The fingerprint of a fixed text in this build: persisted fingerprints are used only when a
/// build hashing the same way wrote them.
fn fingerprint_check() -> String {
    persist_fingerprint(Fingerprint::of(b"roo-context fingerprint check v1"))
}

/// A change not yet acknowledged, as `seen.json` keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredChange {
    /// `modified`, `deleted` or `renamed`.
    kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    new_path: Option<String>,
}

impl StoredChange {
    fn of(kind: &ChangeKind) -> StoredChange {
        let (kind, new_path) = match kind {
            ChangeKind::Modified => ("modified", None),
            ChangeKind::Deleted => ("deleted", None),
            ChangeKind::Renamed { to } => ("renamed", to.clone()),
        };
        StoredChange {
            kind: kind.to_owned(),
            new_path,
        }
    }

    fn kind(&self) -> ChangeKind {
        match self.kind.as_str() {
            "deleted" => ChangeKind::Deleted,
            "renamed" => ChangeKind::Renamed {
                to: self.new_path.clone(),
            },
            _ => ChangeKind::Modified,
        }
    }
}

/// One baseline.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    /// SHA-256 of the content, lowercase hex: the blob's file name.
    blob: String,
    bytes: u64,
    /// `read_tool`, `file_mentioned`, `roo_edited` or `notice` (advanced by an acknowledgement).
    source: String,
    /// When it was taken (ms since the epoch).
    at: i64,
    /// LRU clock: higher is more recently used.
    used: u64,
    /// The agent read only part of the file (`roo/files/track` with `partial`): the baseline
    /// is the whole file at read time.
    #[serde(default)]
    partial: bool,
}

/// A change not yet acknowledged.
#[derive(Debug, Clone)]
struct PendingChange {
    kind: ChangeKind,
    seq: u64,
}

/// What a notice showed of one file.
#[derive(Debug, Clone)]
enum Shown {
    /// A diff; the content it ends at is stored under this blob (`None`: could not be stored).
    Diff(Option<(String, u64)>),
    /// The original's line, for this reason.
    Fallback(Fallback),
}

#[derive(Debug)]
struct NoticeRecord {
    id: String,
    seq: u64,
    files: Vec<(String, Shown)>,
}

/// One task's baselines and unacknowledged notices.
#[derive(Debug)]
pub struct Baselines {
    /// `<task folder>/roo-context`; `None` for a task kept in memory only.
    dir: Option<PathBuf>,
    index: Index,
    /// Blobs of a task without a folder.
    memory: HashMap<String, Arc<[u8]>>,
    cap: u64,
    clock: u64,
    /// Tracked key → the file, for reading it when a notice is taken.
    paths: HashMap<String, PathBuf>,
    /// Tracked key → the real file its baseline was read from ([`WatchedEntry::real`]).
    reals: HashMap<String, PathBuf>,
    /// Tracked key → `seq` of the agent's last read or write.
    saw_seq: HashMap<String, u64>,
    pending: HashMap<String, PendingChange>,
    seq: u64,
    notices: VecDeque<NoticeRecord>,
    /// The index changed since it was last written.
    dirty: bool,
    /// The index as on disk (the whole file and its journal), which a flush diffs against.
    persisted: Index,
    /// `seen.json` and its journal; `None` in memory, or when the journal cannot be read (then
    /// nothing is written: writing would lose what it holds).
    journal: Option<Arc<std::sync::Mutex<JournaledFile>>>,
    /// Blobs that may have lost their last reference.
    dropped: Vec<String>,
}

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn store_cap() -> u64 {
    std::env::var("ROO_CONTEXT_SEEN_CAP_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_CAP_BYTES)
}

/// Whether the store folder or its blob folder is something other than a real folder (a link
/// to a folder elsewhere, say): such a store is never read, written or cleaned, since cleaning
/// it would delete files of the folder it points to.
fn store_is_foreign(dir: &Path) -> bool {
    [dir.to_path_buf(), dir.join(BLOBS_DIR)]
        .iter()
        .any(|folder| match std::fs::symlink_metadata(folder) {
            Ok(meta) => !meta.is_dir(),
            Err(error) => error.kind() != std::io::ErrorKind::NotFound,
        })
}

fn foreign_store_error(dir: &Path) -> std::io::Error {
    std::io::Error::other(format!(
        "{} or its blob folder is not a plain folder (a link?): not used",
        dir.display()
    ))
}

/// Loads the index and replays its journal; a missing one is empty, an unusable one is moved
/// aside (never overwritten), and so is a journal that does not continue it. Compacts when
/// records were replayed (or the LRU clocks renumbered), so the journal starts clean.
fn load_index(dir: &Path) -> (Index, Option<JournaledFile>) {
    remove_leftover_temp_files(dir, TEMP_PREFIX);
    remove_leftover_temp_files(&dir.join(BLOBS_DIR), TEMP_PREFIX);
    let path = dir.join(INDEX_FILE);
    let (mut index, whole) = match read_regular_file(&OsFs, &path, 64 * 1024 * 1024) {
        Ok(bytes) => match serde_json::from_slice::<Index>(&bytes) {
            Ok(index) if index.version == 1 && index.files.values().all(valid_entry) => {
                (index, Some(bytes))
            }
            parsed => {
                let aside = dir.join(format!("{INDEX_FILE}.corrupt-{}", crate::tracker::now_ms()));
                let _ = std::fs::rename(&path, &aside);
                tracing::warn!(error = ?parsed.err(), moved_to = %aside.display(), "unusable baseline index moved aside");
                (Index::default(), None)
            }
        },
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => (Index::default(), None),
        Err(error) => {
            tracing::warn!(%error, path = %path.display(), "baseline index unreadable; starting empty");
            return (Index::default(), None);
        }
    };
    let journal = JournaledFile::load(
        dir,
        INDEX_FILE,
        INDEX_JOURNAL_FILE,
        TEMP_PREFIX,
        whole.as_deref(),
    );
    let (mut journal, loaded) = match journal {
        Ok(loaded) => loaded,
        Err(error) => {
            // Left alone; the index is used without it and nothing is written this session.
            tracing::warn!(%error, "baseline index journal unreadable; baselines not saved");
            return (index, None);
        }
    };
    for record in loaded.records {
        if let Err(error) = index_delta::apply_record(&mut index, record) {
            tracing::warn!(%error, dir = %dir.display(), "baseline journal record not applied; replay stopped");
            break;
        }
    }
    index.version = 1;
    // Only beside an index that was read (one moved aside may name them still).
    if whole.is_some() {
        remove_orphan_blobs(dir, &index);
    }
    // The LRU clocks renumbered 1..=n in their order: a clock near `u64::MAX` in the
    // file must not overflow the one this session counts on.
    let mut order: Vec<(u64, String)> = index
        .files
        .iter()
        .map(|(key, entry)| (entry.used, key.clone()))
        .collect();
    order.sort();
    let mut renumbered = false;
    for (rank, (_, key)) in order.into_iter().enumerate() {
        if let Some(entry) = index.files.get_mut(&key) {
            renumbered |= entry.used != rank as u64 + 1;
            entry.used = rank as u64 + 1;
        }
    }
    if loaded.compact || renumbered {
        let compacted = serde_json::to_vec(&index)
            .map_err(std::io::Error::other)
            .and_then(|json| journal.compact(&json));
        if let Err(error) = compacted {
            // Not appended to again (the next write compacts): nothing is lost.
            tracing::warn!(%error, dir = %dir.display(), "baseline index not compacted at open");
        }
    }
    (index, Some(journal))
}

/// Blobs no baseline refers to (a crash between a blob's write and the index's): deleted when
/// the task is opened, so they never pile up.
fn remove_orphan_blobs(dir: &Path, index: &Index) {
    let referenced: HashSet<&str> = index.files.values().map(|e| e.blob.as_str()).collect();
    for entry in std::fs::read_dir(dir.join(BLOBS_DIR))
        .into_iter()
        .flatten()
        .flatten()
    {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        // Only what could be a blob of ours (a plain file with a blob's name) is ever deleted.
        let ours = name.len() == 64
            && name.bytes().all(|b| b.is_ascii_hexdigit())
            && entry.file_type().is_ok_and(|t| t.is_file());
        if ours && !referenced.contains(name.as_ref()) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// A blob name that cannot escape the blob folder, and a size a baseline can have (the sizes
/// are summed against the bound).
fn valid_entry(entry: &Entry) -> bool {
    entry.blob.len() == 64
        && entry.blob.bytes().all(|b| b.is_ascii_hexdigit())
        && entry.bytes <= MAX_FILE_BYTES
}

/// Reads a blob and checks it is what its name says; `None` when missing or corrupt.
fn read_blob(dir: &Path, name: &str) -> Option<Vec<u8>> {
    let bytes = read_regular_file(&OsFs, &dir.join(BLOBS_DIR).join(name), MAX_FILE_BYTES).ok()?;
    (sha256_hex(&bytes) == name).then_some(bytes)
}

/// Creates one level of the store inside an existing folder. Never the task folder itself: a
/// task folder deleted while the task runs (the user deleted the task) is not brought back.
fn create_store_dir(dir: &Path) -> std::io::Result<()> {
    match std::fs::create_dir(dir) {
        Err(error) if error.kind() != std::io::ErrorKind::AlreadyExists => Err(error),
        _ => Ok(()),
    }
}

fn write_blob(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    if store_is_foreign(dir) {
        return Err(foreign_store_error(dir));
    }
    let blobs = dir.join(BLOBS_DIR);
    // Content-addressed: an existing blob of the right size is this content (a corrupt one is
    // caught by the hash check when read).
    if std::fs::symlink_metadata(blobs.join(name))
        .is_ok_and(|m| m.is_file() && m.len() == bytes.len() as u64)
    {
        return Ok(());
    }
    create_store_dir(dir)?;
    create_store_dir(&blobs)?;
    write_atomically(&blobs, name, TEMP_PREFIX, bytes)
}

/// Whether a file path the index holds (or the tracker watches) may be read now: the one rule
/// for every path of `seen.json`, a file anyone with the task folder can edit. Only an absolute
/// path without `..` inside a workspace folder (the access rule resolves links: one leading
/// outside is outside) is ever read (`noBaseline` otherwise: only such files are watched, so
/// only they have changes to show), and only if the access rule allows it now (`blocked`; a
/// name that is not UTF-8 cannot be judged exactly: blocked). Returns the real file the path
/// leads to now, when it exists (resolved once here; the caller compares it with the baseline's).
pub fn persisted_path(
    state: &SharedState,
    policy: &Policy,
    absolute: &Path,
) -> Result<Option<PathBuf>, Fallback> {
    if !absolute.is_absolute()
        || absolute
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
    {
        return Err(Fallback::NoBaseline);
    }
    let name = absolute.to_str().ok_or(Fallback::Blocked)?;
    let decision = policy.check_access(&state.resolver, &state.fs, None, name);
    if decision.folder.is_none() {
        return Err(Fallback::NoBaseline);
    }
    if !decision.allowed() {
        return Err(Fallback::Blocked);
    }
    // The access rule counts a name inside a folder as inside even when it links elsewhere;
    // a stored path must also lead inside (the real file, judged without links on the way).
    let real = real_file_if_exists(absolute);
    if let Some(real) = &real {
        let real_name = real.to_str().ok_or(Fallback::Blocked)?;
        if policy
            .check_access(&state.resolver, &state.fs, None, real_name)
            .folder
            .is_none()
        {
            return Err(Fallback::NoBaseline);
        }
    }
    Ok(real)
}

/// The real file `absolute` names now (every link resolved), when it exists.
fn real_file_if_exists(absolute: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(absolute).ok()
}

/// The real file `absolute` names: the file itself, or for one not created yet its folder's
/// real path and its name; `None` when neither resolves.
fn real_file(absolute: &Path) -> Option<PathBuf> {
    real_file_if_exists(absolute)
        .or_else(|| Some(real_file_if_exists(absolute.parent()?)?.join(absolute.file_name()?)))
}

/// The content on disk now, read through the read gate after judging the name again (the file
/// may have become blocked, or a link to a blocked file, since the baseline was taken).
/// `baseline_of`: for a file with a baseline, the real file it was read from (`None`: unknown);
/// the file is read only if it still is that file (a link swapped in since, to a file elsewhere
/// or to another file of the workspace, is `noBaseline`: the model is never shown a file it did
/// not read). A missing file is `deleted` whatever its name pointed to.
fn read_current(
    state: &SharedState,
    absolute: &Path,
    baseline_of: Option<Option<&Path>>,
) -> Result<Vec<u8>, Fallback> {
    let policy = state.policy();
    let now = persisted_path(state, &policy, absolute)?;
    if let Some(expected) = baseline_of
        && let Some(now) = now
        && Some(now.as_path()) != expected
    {
        return Err(Fallback::NoBaseline);
    }
    match open_gated(&OsFs, absolute, MAX_FILE_BYTES, true, &|opened| {
        policy.allows_opened(opened)
    }) {
        // The name was judged before the open; a link swapped in between is caught here, on
        // the object actually opened.
        Ok(file)
            if baseline_of.is_some_and(|expected| Some(file.real_path.as_path()) != expected) =>
        {
            Err(Fallback::NoBaseline)
        }
        // File text reaches the reply: encoded as every text the sidecar reads (wire_text).
        Ok(file) => file
            .read_all()
            .map(|raw| wire_text::encode_bytes(&raw).into_owned())
            .map_err(|_| Fallback::Unreadable),
        Err(GateRefusal::Blocked | GateRefusal::HardLinked { .. }) => Err(Fallback::Blocked),
        Err(GateRefusal::TooLarge { .. }) => Err(Fallback::TooLarge),
        Err(GateRefusal::Io(error)) if error.kind() == std::io::ErrorKind::NotFound => {
            Err(Fallback::Deleted)
        }
        Err(_) => Err(Fallback::Unreadable),
    }
}

/// Whether the access rule blocks the file now, by its name or what it links to (a name that
/// is not UTF-8 cannot be judged exactly: blocked).
fn is_blocked_now(state: &SharedState, absolute: &Path) -> bool {
    let Some(name) = absolute.to_str() else {
        return true;
    };
    !state
        .policy()
        .check_access(&state.resolver, &state.fs, None, name)
        .allowed()
}

/// What a take needs of one file, gathered before the blocking work.
struct TakeInput {
    path: String,
    kind: ChangeKind,
    blob: Option<String>,
    absolute: Option<PathBuf>,
    /// The real file the baseline was read from.
    real: Option<PathBuf>,
}

/// Where a take reads baselines from.
#[derive(Clone, Debug)]
pub enum BlobSource {
    Disk(PathBuf),
    Memory(Arc<HashMap<String, Arc<[u8]>>>),
}

impl BlobSource {
    fn read(&self, name: &str) -> Option<Vec<u8>> {
        match self {
            BlobSource::Disk(dir) => read_blob(dir, name),
            BlobSource::Memory(blobs) => blobs.get(name).map(|b| b.to_vec()),
        }
    }
}

/// The pure notice plus the contents its diffs end at (to store as the next baselines).
struct Taken {
    notice: roo_context_core::stale_diff::Notice,
    shown: HashMap<String, Vec<u8>>,
    /// Other spellings of a file already in the notice (`./a.ts` after `a.ts`): not shown
    /// again, acknowledged with it.
    aliases: Vec<(String, String)>,
}

fn build_notice(
    inputs: Vec<TakeInput>,
    blobs: &BlobSource,
    state: &SharedState,
    limits: DiffLimits,
) -> Taken {
    let mut builder = NoticeBuilder::new(limits);
    let mut shown = HashMap::new();
    let mut first_of: HashMap<PathBuf, String> = HashMap::new();
    let mut aliases = Vec::new();
    for input in inputs {
        // One file is reported once per turn, whatever spellings the host tracked it under.
        if let Some(absolute) = &input.absolute {
            let file = std::path::absolute(absolute).unwrap_or_else(|_| absolute.clone());
            let file: PathBuf = file.components().collect();
            if let Some(first) = first_of.get(&file) {
                aliases.push((input.path, first.clone()));
                continue;
            }
            first_of.insert(file, input.path.clone());
        }
        let mut kind = input.kind;
        let gone_or_moved = matches!(kind, ChangeKind::Deleted | ChangeKind::Renamed { .. });
        if !gone_or_moved && !builder.budget_left() {
            builder.fall_back(&input.path, kind, Fallback::Budget);
            continue;
        }
        let current = match &input.absolute {
            // Only a file with a baseline is held to the file that baseline was read from.
            Some(absolute) => read_current(
                state,
                absolute,
                input.blob.as_ref().map(|_| input.real.as_deref()),
            ),
            None => Err(Fallback::NoBaseline),
        };
        match (&current, gone_or_moved) {
            // Created again since it went away: what is there now is the change.
            (Ok(_), true) => kind = ChangeKind::Modified,
            (Err(Fallback::Deleted), false) => kind = ChangeKind::Deleted,
            _ => {}
        }
        let baseline = input.blob.as_deref().and_then(|name| blobs.read(name));
        let current_side = match &current {
            Ok(bytes) => text_of(bytes, MAX_FILE_BYTES).map_or_else(Side::Missing, Side::Text),
            Err(reason) => Side::Missing(*reason),
        };
        let baseline_side = match &baseline {
            Some(bytes) => text_of(bytes, MAX_FILE_BYTES)
                .map_or(Side::Missing(Fallback::NoBaseline), Side::Text),
            None => Side::Missing(Fallback::NoBaseline),
        };
        if builder.add(&input.path, kind, baseline_side, current_side) == Added::Diff
            && let Ok(bytes) = current
        {
            shown.insert(input.path, bytes);
        }
    }
    Taken {
        notice: builder.finish(),
        shown,
        aliases,
    }
}

fn wire_change(file: &roo_context_core::stale_diff::FileNotice, partial: bool) -> wire::FileChange {
    wire::FileChange {
        partial,
        path: file.path.clone(),
        kind: match &file.kind {
            ChangeKind::Modified => wire::FileChangeKind::Modified,
            ChangeKind::Deleted => wire::FileChangeKind::Deleted,
            ChangeKind::Renamed { .. } => wire::FileChangeKind::Renamed,
        },
        new_path: match &file.kind {
            ChangeKind::Renamed { to } => to.clone(),
            _ => None,
        },
        fallback: file.fallback.map(wire_fallback),
        diff: file.diff.clone(),
        diff_stat: file.stat.map(wire_stat),
    }
}

fn wire_fallback(reason: Fallback) -> wire::DiffFallback {
    match reason {
        Fallback::NoBaseline => wire::DiffFallback::NoBaseline,
        Fallback::Binary => wire::DiffFallback::Binary,
        Fallback::TooLarge => wire::DiffFallback::TooLarge,
        Fallback::Blocked => wire::DiffFallback::Blocked,
        Fallback::Unreadable => wire::DiffFallback::Unreadable,
        Fallback::Deleted => wire::DiffFallback::Deleted,
        Fallback::Renamed => wire::DiffFallback::Renamed,
        Fallback::TooManyChanges => wire::DiffFallback::TooManyChanges,
        Fallback::DiffTooLong => wire::DiffFallback::DiffTooLong,
        Fallback::Budget => wire::DiffFallback::Budget,
        Fallback::Timeout => wire::DiffFallback::Timeout,
    }
}

/// The core's limits from the wire's, each absent field at its default, extremes clamped.
pub fn diff_limits(limits: Option<&wire::DiffLimits>) -> DiffLimits {
    let mut out = DiffLimits::default();
    if let Some(l) = limits {
        if let Some(v) = l.context_lines {
            out.context_lines = v.min(100) as usize;
        }
        if let Some(v) = l.max_chars_per_file {
            out.max_chars_per_file = v as usize;
        }
        if let Some(v) = l.max_chars_total {
            out.max_chars_total = v as usize;
        }
        if let Some(v) = l.max_changed_lines {
            out.max_changed_lines = v as usize;
        }
        if let Some(v) = l.timeout_ms {
            out.timeout = std::time::Duration::from_millis(u64::from(v.min(10_000)));
        }
    }
    out
}

impl Baselines {
    /// Opens the store of the task whose folder is `storage` (`None`: in memory).
    pub async fn open(storage: Option<PathBuf>) -> Baselines {
        let dir = storage.map(|s| s.join(STORE_DIR));
        // A linked store is neither read nor cleaned here, nor written later (`write_blob` and
        // `flush` check again): its files fall back to `noBaseline`, as with a full disk.
        let (index, journal) = match dir.clone() {
            Some(dir) => tokio::task::spawn_blocking(move || {
                if store_is_foreign(&dir) {
                    tracing::warn!(dir = %dir.display(), "baseline store is not a plain folder; not used");
                    return (Index::default(), None);
                }
                load_index(&dir)
            })
            .await
            .unwrap_or_default(),
            None => (Index::default(), None),
        };
        let index = Index {
            version: 1,
            ..index
        };
        let clock = index.files.values().map(|e| e.used).max().unwrap_or(0);
        // Where each key was watched, until the restore resolves it again: judged when read
        // ([`persisted_path`]), like every path of the index.
        let paths: HashMap<String, PathBuf> = index
            .watched
            .iter()
            .filter_map(|(key, watched)| Some((key.clone(), watched.absolute.clone()?)))
            .collect();
        let reals: HashMap<String, PathBuf> = index
            .watched
            .iter()
            .filter_map(|(key, watched)| Some((key.clone(), watched.real.clone()?)))
            .collect();
        let mut pending = HashMap::new();
        let mut seq = 0;
        for (key, change) in &index.pending {
            seq += 1;
            pending.insert(
                key.clone(),
                PendingChange {
                    kind: change.kind(),
                    seq,
                },
            );
        }
        Baselines {
            dir,
            persisted: index.clone(),
            journal: journal.map(|j| Arc::new(std::sync::Mutex::new(j))),
            index,
            memory: HashMap::new(),
            cap: store_cap(),
            clock,
            paths,
            reals,
            saw_seq: HashMap::new(),
            pending,
            seq,
            notices: VecDeque::new(),
            dirty: false,
            dropped: Vec::new(),
        }
    }

    /// The unacknowledged changes as `seen.json` keeps them; marks the index dirty when they
    /// differ from what it holds.
    fn sync_pending(&mut self) {
        let stored: BTreeMap<String, StoredChange> = self
            .pending
            .iter()
            .map(|(key, change)| (key.clone(), StoredChange::of(&change.kind)))
            .collect();
        if stored != self.index.pending {
            self.index.pending = stored;
            self.dirty = true;
        }
    }

    fn tick(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// The agent read or wrote `key` (`content` is `None` when the file is not watched: blocked
    /// or outside the workspace); `known` is the fingerprint the tracker recorded. The baseline
    /// becomes that content when it can be one (same fingerprint, text, within the bound).
    pub async fn saw(
        &mut self,
        key: &str,
        source: &RecordSource,
        content: Option<SeenContent>,
        known: Option<Fingerprint>,
        now: i64,
    ) {
        if let Some(content) = &content
            && content.partial
            && (self.index.files.contains_key(key) || self.pending.contains_key(key))
        {
            // A partial read saw a line range only: the agent's last full view stays the
            // baseline and a change not shown yet stays pending (it may lie outside the range).
            self.watch_base(key, &content.base, &content.absolute);
            return;
        }
        let seq = self.tick();
        self.saw_seq.insert(key.to_owned(), seq);
        self.pending.remove(key);
        if let Some(content) = &content {
            self.watch_base(key, &content.base, &content.absolute);
        }
        let (Some(content), Some(known @ Fingerprint::Content { .. })) = (content, known) else {
            self.forget(key).await;
            return;
        };
        self.paths.insert(key.to_owned(), content.absolute.clone());
        let partial = content.partial;
        let read = tokio::task::spawn_blocking(move || -> Option<(Vec<u8>, PathBuf)> {
            // The file the baseline is of, links resolved (a file not created yet: its name);
            // once opened, the opened object's own path (a link swapped in meanwhile is caught
            // at the take, which compares the object it opens with this).
            let mut real = real_file(&content.absolute).unwrap_or_else(|| content.absolute.clone());
            let bytes = match &content.text {
                Some(text) => {
                    // The host's text is stored only if the file itself may be opened now (or
                    // does not exist yet): a second name of a blocked file (hard link) passes
                    // every name check, and only the opened object shows what it is.
                    let judged = open_gated(&OsFs, &content.absolute, 0, false, &|opened| {
                        content.policy.allows_opened(opened)
                    });
                    match judged {
                        Ok(file) => real = file.real_path,
                        Err(GateRefusal::Io(error))
                            if error.kind() == std::io::ErrorKind::NotFound => {}
                        Err(_) => return None,
                    }
                    text.as_bytes().to_vec()
                }
                None => {
                    let file =
                        open_gated(&OsFs, &content.absolute, MAX_FILE_BYTES, true, &|opened| {
                            content.policy.allows_opened(opened)
                        })
                        .ok()?;
                    real = file.real_path.clone();
                    let raw = file.read_all().ok()?;
                    // Another content than the tracker judged (changed between the reads): no
                    // baseline rather than a wrong one.
                    if Fingerprint::of(&raw) != known {
                        return None;
                    }
                    // Stored as replies carry file text (wire_text), like the host's text.
                    wire_text::encode_bytes(&raw).into_owned()
                }
            };
            (text_of(&bytes, MAX_FILE_BYTES).is_ok()
                && (content.text.is_none() || Fingerprint::of(&bytes) == known))
                .then_some((bytes, real))
        })
        .await
        .ok()
        .flatten();
        let Some((bytes, real)) = read else {
            self.forget(key).await;
            return;
        };
        let name = sha256_hex(&bytes);
        if !self.store_blob(&name, bytes.clone()).await {
            self.forget(key).await;
            return;
        }
        if let Some(entry) = self.index.watched.get_mut(key)
            && entry.real.as_ref() != Some(&real)
        {
            entry.real = Some(real.clone());
        }
        self.reals.insert(key.to_owned(), real);
        self.clock += 1;
        let replaced = self.index.files.insert(
            key.to_owned(),
            Entry {
                blob: name,
                bytes: bytes.len() as u64,
                source: source_name(source),
                at: now,
                used: self.clock,
                partial,
            },
        );
        // The previous baseline's blob goes when nothing else names it (flush checks), or
        // re-reading a changed file would pile blobs up past the bound.
        self.dropped.extend(replaced.map(|e| e.blob));
        self.dirty = true;
    }

    /// Persists how `key` is watched: the one description of the file in `seen.json` (bounded
    /// like the baselines: a key beyond the bound is simply not restored).
    fn watch_base(&mut self, key: &str, base: &Path, absolute: &Path) {
        let base = base.to_string_lossy().into_owned();
        let absolute = Some(absolute.to_path_buf());
        if let Some(entry) = self.index.watched.get_mut(key) {
            if entry.base != base || entry.absolute != absolute {
                entry.base = base;
                entry.absolute = absolute;
                self.dirty = true;
            }
        } else if self.index.watched.len() < MAX_ENTRIES {
            self.index.watched.insert(
                key.to_owned(),
                WatchedEntry {
                    base,
                    absolute,
                    real: None,
                    known: None,
                    superseded: Vec::new(),
                },
            );
            self.dirty = true;
        }
    }

    /// The tracker's fingerprint of what the agent last saw of `key` changed: persisted with
    /// the next write of the index. Returns whether it changed.
    pub fn set_known(
        &mut self,
        key: &str,
        known: Option<Fingerprint>,
        superseded: &[Fingerprint],
    ) -> bool {
        let Some(entry) = self.index.watched.get_mut(key) else {
            return false;
        };
        let known = known.map(persist_fingerprint);
        let superseded: Vec<String> = superseded
            .iter()
            .copied()
            .map(persist_fingerprint)
            .collect();
        if entry.known == known && entry.superseded == superseded {
            return false;
        }
        entry.known = known;
        entry.superseded = superseded;
        self.dirty = true;
        true
    }

    /// What a reopened task needs to watch `keys` again: the base each was resolved against
    /// (`None`: never persisted) and what the agent last saw, as the persisted fingerprint or
    /// else the fingerprint of the baseline (`None`: unknown, including a missing or corrupt
    /// blob). Reads blobs: call on the blocking pool through [`RestoreSource`].
    pub fn restore_source(&self) -> RestoreSource {
        let trusted = self.index.fingerprints.as_deref() == Some(fingerprint_check().as_str());
        RestoreSource {
            watched: self.index.watched.clone(),
            blobs: self
                .index
                .files
                .iter()
                .map(|(k, e)| (k.clone(), e.blob.clone()))
                .collect(),
            trusted_fingerprints: trusted,
            store: self.blob_source(),
        }
    }

    /// A restored key is watched at `absolute` (for takes and `didChange` stats): the path
    /// just resolved and judged replaces the persisted one.
    pub fn restored(&mut self, key: &str, absolute: PathBuf) {
        if let Some(entry) = self.index.watched.get_mut(key)
            && entry.absolute.as_ref() != Some(&absolute)
        {
            entry.absolute = Some(absolute.clone());
            self.dirty = true;
        }
        self.paths.insert(key.to_owned(), absolute);
    }

    fn blob_source(&self) -> BlobSource {
        match &self.dir {
            Some(dir) => BlobSource::Disk(dir.clone()),
            None => BlobSource::Memory(Arc::new(self.memory.clone())),
        }
    }

    /// What the `diffStat` of a `roo/files/didChange` for `key` needs, when the key has a
    /// baseline small enough ([`DID_CHANGE_STAT_MAX_BYTES`]); `None` otherwise.
    pub fn stat_input(&self, key: &str, judged: Fingerprint) -> Option<StatInput> {
        let entry = self.index.files.get(key)?;
        if entry.bytes > DID_CHANGE_STAT_MAX_BYTES {
            return None;
        }
        Some(StatInput {
            judged,
            blob: entry.blob.clone(),
            absolute: self.paths.get(key)?.clone(),
            real: self.reals.get(key).cloned(),
            store: match &self.dir {
                Some(dir) => BlobSource::Disk(dir.clone()),
                None => BlobSource::Memory(Arc::new(HashMap::from([(
                    entry.blob.clone(),
                    self.memory.get(&entry.blob)?.clone(),
                )]))),
            },
        })
    }

    /// A change the tracker reported (`roo/files/didChange`).
    pub fn observed(&mut self, change: &ObservedChange) {
        let seq = self.tick();
        self.pending.insert(
            change.path.clone(),
            PendingChange {
                kind: change.kind.clone(),
                seq,
            },
        );
    }

    async fn store_blob(&mut self, name: &str, bytes: Vec<u8>) -> bool {
        match self.dir.clone() {
            None => {
                self.memory.insert(name.to_owned(), bytes.into());
                true
            }
            Some(dir) => {
                let name = name.to_owned();
                let stored =
                    tokio::task::spawn_blocking(move || write_blob(&dir, &name, &bytes)).await;
                match stored {
                    Ok(Ok(())) => true,
                    Ok(Err(error)) => {
                        tracing::warn!(%error, "baseline not stored");
                        false
                    }
                    Err(_) => false,
                }
            }
        }
    }

    async fn forget(&mut self, key: &str) {
        if let Some(entry) = self.index.files.remove(key) {
            self.dropped.push(entry.blob);
            self.dirty = true;
        }
    }

    fn referenced(&self) -> HashSet<&str> {
        let mut names: HashSet<&str> = self.index.files.values().map(|e| e.blob.as_str()).collect();
        for notice in &self.notices {
            for (_, shown) in &notice.files {
                if let Shown::Diff(Some((blob, _))) = shown {
                    names.insert(blob);
                }
            }
        }
        names
    }

    /// Once per batch of the actor's commands: evicts the least recently used baselines beyond
    /// the bounds, deletes the blobs nothing refers to any more and writes the index (so a
    /// burst of tracks costs one write, as `task_metadata.json` does). `Err` names the index
    /// that could not be written: a reply that promises durability must not be `Ok` then.
    pub async fn flush(&mut self) -> Result<(), String> {
        self.write(false).await
    }

    /// The last write of a closing task: as [`Baselines::flush`], and `seen.json` is written
    /// whole when its journal holds anything (the journal starts clean for the next open).
    pub async fn close(&mut self) -> Result<(), String> {
        self.write(true).await
    }

    async fn write(&mut self, close: bool) -> Result<(), String> {
        self.sync_pending();
        let journal_has_records = close
            && self
                .journal
                .as_ref()
                .is_some_and(|j| j.lock().unwrap_or_else(|e| e.into_inner()).has_records());
        if !self.dirty && self.dropped.is_empty() && !journal_has_records {
            return Ok(());
        }
        self.dirty = false;
        let mut dropped = std::mem::take(&mut self.dropped);
        // Least recently used first, in one sort (evicting one by one with a scan each was
        // quadratic when many baselines had to go at once); a blob shared by several keys
        // counts once and frees its bytes when its last key goes.
        let mut blobs: HashMap<&str, (u64, usize)> = HashMap::new();
        for entry in self.index.files.values() {
            blobs.entry(&entry.blob).or_insert((entry.bytes, 0)).1 += 1;
        }
        let mut total = blobs
            .values()
            .fold(0u64, |sum, (bytes, _)| sum.saturating_add(*bytes));
        let over = |total: u64, entries: usize| total > self.cap || entries > MAX_ENTRIES;
        if over(total, self.index.files.len()) {
            let mut by_age: Vec<(u64, &String)> = self
                .index
                .files
                .iter()
                .map(|(key, entry)| (entry.used, key))
                .collect();
            by_age.sort_unstable();
            let mut entries = self.index.files.len();
            let mut evicted = Vec::new();
            for (_, key) in by_age {
                if !over(total, entries) {
                    break;
                }
                let blob = self.index.files[key].blob.as_str();
                if let Some((bytes, keys)) = blobs.get_mut(blob) {
                    *keys -= 1;
                    if *keys == 0 {
                        total = total.saturating_sub(*bytes);
                    }
                }
                entries -= 1;
                evicted.push(key.clone());
            }
            for key in evicted {
                if let Some(entry) = self.index.files.remove(&key) {
                    dropped.push(entry.blob);
                }
            }
        }
        let referenced = self.referenced();
        let unreferenced: Vec<String> = dropped
            .into_iter()
            .filter(|name| !referenced.contains(name.as_str()))
            .collect();
        for name in &unreferenced {
            self.memory.remove(name);
        }
        let Some(dir) = self.dir.clone() else {
            return Ok(());
        };
        if self.index.watched.values().any(|w| w.known.is_some()) {
            self.index.fingerprints = Some(fingerprint_check());
        }
        let index_path = dir.join(INDEX_FILE);
        let Some(journal) = self.journal.clone() else {
            self.dirty = true;
            return Err(format!(
                "cannot save {}: {}",
                index_path.display(),
                foreign_store_error(&dir)
            ));
        };
        let delta = index_delta::diff(&self.persisted, &self.index);
        let record = match (!delta.is_empty())
            .then(|| serde_json::to_value(&delta))
            .transpose()
        {
            Ok(record) => record,
            Err(error) => return Err(error.to_string()),
        };
        let compact = {
            let journal = journal.lock().unwrap_or_else(|e| e.into_inner());
            match &record {
                Some(record) => close || journal.wants_compaction(record.to_string().len()),
                None => close && journal.has_records(),
            }
        };
        let appended = match record {
            Some(record) if !compact => {
                Some(write_store(&journal, &dir, move |j| j.append(&record)).await)
            }
            _ => None,
        };
        let written = match appended {
            Some(Ok(())) => Ok(()),
            None if !compact => Ok(()),
            failed => {
                // Compacting, or an append failed (the journal was removed, a write error):
                // the whole index holds the state, what the journal held included.
                if let Some(Err(error)) = failed {
                    tracing::warn!(%error, "baseline journal append failed; writing the whole index");
                }
                match serde_json::to_vec(&self.index) {
                    Ok(whole) => write_store(&journal, &dir, move |j| j.compact(&whole)).await,
                    Err(error) => Err(std::io::Error::other(error)),
                }
            }
        };
        if written.is_ok() {
            // Only once no index on disk names them: a kill before this point leaves blobs
            // nothing names (deleted when the task is next opened), never an index naming
            // deleted blobs.
            let blobs = dir.join(BLOBS_DIR);
            let deleted = unreferenced.clone();
            let _ = tokio::task::spawn_blocking(move || {
                for name in deleted {
                    let _ = std::fs::remove_file(blobs.join(name));
                }
            })
            .await;
        }
        let error = match written {
            Ok(()) => {
                index_delta::apply(&mut self.persisted, delta);
                return Ok(());
            }
            Err(error) => error.to_string(),
        };
        tracing::warn!(%error, "baseline index not saved");
        // Written with the next batch; the blobs it stops naming go then.
        self.dirty = true;
        self.dropped.extend(unreferenced);
        Err(format!("cannot save {}: {error}", index_path.display()))
    }

    /// `takeRecentlyModified` with `withDiffs`: `fresh` is the tracker's recently-modified set
    /// (just taken); every change not yet acknowledged is reported again, most recent first.
    pub async fn take(
        &mut self,
        fresh: Vec<String>,
        state: Arc<SharedState>,
        limits: DiffLimits,
    ) -> wire::FilesTakeResult {
        for path in fresh {
            if !self.pending.contains_key(&path) {
                let seq = self.tick();
                self.pending.insert(
                    path,
                    PendingChange {
                        kind: ChangeKind::Modified,
                        seq,
                    },
                );
            }
        }
        let mut order: Vec<(&String, &PendingChange)> = self.pending.iter().collect();
        order.sort_by_key(|(_, p)| std::cmp::Reverse(p.seq));
        let inputs: Vec<TakeInput> = order
            .into_iter()
            .map(|(path, change)| TakeInput {
                path: path.clone(),
                kind: change.kind.clone(),
                blob: self.index.files.get(path).map(|e| e.blob.clone()),
                absolute: self.paths.get(path).cloned(),
                real: self.reals.get(path).cloned(),
            })
            .collect();
        let blobs = self.blob_source();
        // Every stored baseline is judged again (not only the changed files'): a file a new
        // rule blocks loses its bytes from the store at the next take even if it never changes.
        let stored: Vec<(String, PathBuf)> = self
            .index
            .files
            .keys()
            .filter_map(|key| Some((key.clone(), self.paths.get(key)?.clone())))
            .collect();
        let taken = tokio::task::spawn_blocking(move || {
            let blocked: Vec<String> = stored
                .into_iter()
                .filter(|(_, absolute)| is_blocked_now(&state, absolute))
                .map(|(key, _)| key)
                .collect();
            (build_notice(inputs, &blobs, &state, limits), blocked)
        })
        .await;
        let Ok((
            Taken {
                notice,
                shown,
                aliases,
            },
            blocked,
        )) = taken
        else {
            return wire::FilesTakeResult {
                paths: Vec::new(),
                notice_id: None,
                changes: Some(Vec::new()),
                text: Some(String::new()),
            };
        };
        for key in &blocked {
            self.forget_blocked(key);
        }
        let seq = self.tick();
        let mut files = Vec::new();
        let reported: HashSet<&str> = notice
            .files
            .iter()
            .map(|f| f.path.as_str())
            .chain(aliases.iter().map(|(alias, _)| alias.as_str()))
            .collect();
        // Files holding what the agent last saw have nothing to deliver.
        self.pending
            .retain(|path, _| reported.contains(path.as_str()));
        for file in &notice.files {
            if file.fallback == Some(Fallback::Blocked) {
                self.forget_blocked(&file.path);
                files.push((file.path.clone(), Shown::Fallback(Fallback::Blocked)));
                continue;
            }
            if let Some(entry) = self.index.files.get_mut(&file.path) {
                self.clock += 1;
                entry.used = self.clock;
            }
            let shown_entry = match (file.fallback, shown.get(&file.path)) {
                (Some(reason), _) => Shown::Fallback(reason),
                (None, Some(bytes)) => {
                    let name = sha256_hex(bytes);
                    let stored = self.store_blob(&name, bytes.clone()).await;
                    Shown::Diff(stored.then_some((name, bytes.len() as u64)))
                }
                (None, None) => Shown::Diff(None),
            };
            files.push((file.path.clone(), shown_entry));
        }
        for (alias, first) in aliases {
            if let Some(shown) = files
                .iter()
                .find(|(p, _)| *p == first)
                .map(|(_, s)| s.clone())
            {
                files.push((alias, shown));
            }
        }
        let notice_id = (!files.is_empty()).then(|| format!("n-{}", uuid::Uuid::new_v4().simple()));
        if let Some(id) = &notice_id {
            self.notices.push_back(NoticeRecord {
                id: id.clone(),
                seq,
                files,
            });
            while self.notices.len() > KEPT_NOTICES {
                if let Some(old) = self.notices.pop_front() {
                    self.drop_notice_blobs(old);
                }
            }
        }
        wire::FilesTakeResult {
            paths: notice.files.iter().map(|f| f.path.clone()).collect(),
            notice_id,
            changes: Some(
                notice
                    .files
                    .iter()
                    .map(|f| {
                        let partial = self.index.files.get(&f.path).is_some_and(|e| e.partial);
                        wire_change(f, partial)
                    })
                    .collect(),
            ),
            text: Some(notice.text),
        }
    }

    /// A file the access rule blocks now: no bytes of it stay in the store, neither its
    /// baseline nor what earlier notices showed of it (acknowledging one of those must not
    /// bring them back); if the rule is lifted it falls back to `noBaseline` until read again.
    fn forget_blocked(&mut self, path: &str) {
        if let Some(entry) = self.index.files.remove(path) {
            self.dropped.push(entry.blob);
        }
        for notice in &mut self.notices {
            for (shown_path, shown) in &mut notice.files {
                if shown_path == path
                    && let Shown::Diff(Some((blob, _))) =
                        std::mem::replace(shown, Shown::Fallback(Fallback::Blocked))
                {
                    self.dropped.push(blob);
                }
            }
        }
        self.dirty = true;
    }

    fn drop_notice_blobs(&mut self, notice: NoticeRecord) {
        for (_, shown) in notice.files {
            if let Shown::Diff(Some((blob, _))) = shown {
                self.dropped.push(blob);
            }
        }
    }

    /// `roo/files/ackNotice`: the notice reached the model. Its diffs' contents become the
    /// baselines (unless the agent read or wrote the file since), its files stop being repeated
    /// (unless they changed again since), and older notices are dropped (this one repeated them).
    pub async fn ack(&mut self, notice_id: &str, now: i64) -> wire::AckNoticeResult {
        let Some(position) = self.notices.iter().position(|n| n.id == notice_id) else {
            return wire::AckNoticeResult {
                known: false,
                advanced: Vec::new(),
                delivered: Vec::new(),
            };
        };
        let mut dropped: Vec<NoticeRecord> = self.notices.drain(..=position).collect();
        let record = dropped.pop().expect("the acknowledged notice");
        let mut advanced = Vec::new();
        let mut delivered = Vec::new();
        let mut unreferenced = Vec::new();
        for (path, shown) in record.files {
            if self.pending.get(&path).is_some_and(|p| p.seq <= record.seq) {
                self.pending.remove(&path);
                delivered.push(path.clone());
            }
            let saw_since = self.saw_seq.get(&path).is_some_and(|s| *s > record.seq);
            if saw_since {
                continue;
            }
            match shown {
                Shown::Diff(Some((blob, bytes))) => {
                    self.clock += 1;
                    // The diff showed the changed lines only: a partial read stays partial.
                    let partial = self.index.files.get(&path).is_some_and(|e| e.partial);
                    let old = self.index.files.insert(
                        path.clone(),
                        Entry {
                            blob,
                            bytes,
                            source: "notice".to_owned(),
                            at: now,
                            used: self.clock,
                            partial,
                        },
                    );
                    unreferenced.extend(old.map(|e| e.blob));
                    advanced.push(path);
                }
                Shown::Fallback(Fallback::Deleted | Fallback::Renamed) => {
                    unreferenced.extend(self.index.files.remove(&path).map(|e| e.blob));
                }
                _ => {}
            }
        }
        for older in dropped {
            self.drop_notice_blobs(older);
        }
        self.dropped.extend(unreferenced);
        self.dirty = true;
        wire::AckNoticeResult {
            known: true,
            advanced,
            delivered,
        }
    }
}

/// Runs `write` on the index's journal on the blocking pool, in the store folder (created if
/// needed; never a linked one).
async fn write_store(
    journal: &Arc<std::sync::Mutex<JournaledFile>>,
    dir: &Path,
    write: impl FnOnce(&mut JournaledFile) -> std::io::Result<()> + Send + 'static,
) -> std::io::Result<()> {
    let (journal, dir) = (journal.clone(), dir.to_path_buf());
    tokio::task::spawn_blocking(move || {
        if store_is_foreign(&dir) {
            return Err(foreign_store_error(&dir));
        }
        create_store_dir(&dir)?;
        write(&mut journal.lock().unwrap_or_else(|e| e.into_inner()))
    })
    .await
    .unwrap_or_else(|e| Err(std::io::Error::other(e.to_string())))
}

/// Largest baseline (and current file) a `roo/files/didChange` gets a `diffStat` for: the stat
/// is computed while the change is persisted, so it must stay well under the fsync it overlaps.
pub const DID_CHANGE_STAT_MAX_BYTES: u64 = 256 * 1024;
/// Longest a `didChange` stat may take; past it the notification goes without one.
const DID_CHANGE_STAT_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(10);

/// What a `didChange` stat reads: the baseline's blob and the file now.
#[derive(Debug, Clone)]
pub struct StatInput {
    /// The content the notification is about: a file on disk that no longer (or not yet)
    /// holds it, such as an unsaved editor buffer, gets no stat rather than another's.
    judged: Fingerprint,
    blob: String,
    absolute: PathBuf,
    /// The real file the baseline was read from.
    real: Option<PathBuf>,
    store: BlobSource,
}

/// The counts of the diff between a file's baseline and its content now, for
/// `roo/files/didChange`; `None` for a blocked, binary, oversized, unreadable or missing file,
/// a missing or corrupt baseline, a file that no longer holds the judged content (or never
/// did: an unsaved editor buffer), no difference, or past the deadline. The counts come from the diff that
/// `withDiffs` shows ([`stale_diff::unified_diff`] with the same context), so both agree.
pub fn did_change_stat(input: &StatInput, state: &SharedState) -> Option<wire::DiffStat> {
    let baseline = input.store.read(&input.blob)?;
    let old = text_of(&baseline, DID_CHANGE_STAT_MAX_BYTES).ok()?;
    let current = read_current(state, &input.absolute, Some(input.real.as_deref())).ok()?;
    if Fingerprint::of(&current) != input.judged {
        return None;
    }
    let new = text_of(&current, DID_CHANGE_STAT_MAX_BYTES).ok()?;
    let deadline = std::time::Instant::now().checked_add(DID_CHANGE_STAT_TIMEOUT);
    let context = DiffLimits::default().context_lines;
    let (_, stat) = stale_diff::unified_diff(old, new, context, deadline)?;
    (stat.hunks > 0).then(|| wire_stat(stat))
}

fn wire_stat(stat: stale_diff::DiffStat) -> wire::DiffStat {
    wire::DiffStat {
        added: stat.added as u64,
        removed: stat.removed as u64,
        hunks: stat.hunks as u64,
    }
}

/// See [`Baselines::restore_source`].
#[derive(Debug)]
pub struct RestoreSource {
    watched: BTreeMap<String, WatchedEntry>,
    blobs: HashMap<String, String>,
    trusted_fingerprints: bool,
    store: BlobSource,
}

impl RestoreSource {
    /// The persisted base of `key`, if any (an absolute path without `..`: anything else is
    /// ignored; the key is then judged against it by the access rule, as when tracked).
    pub fn base(&self, key: &str) -> Option<PathBuf> {
        self.watched
            .get(key)
            .map(|w| PathBuf::from(&w.base))
            .filter(|base| {
                base.is_absolute()
                    && !base
                        .components()
                        .any(|c| matches!(c, std::path::Component::ParentDir))
            })
    }

    /// What the agent last saw of `key`, or `None` when unknown. Reads the baseline's blob
    /// (bounded, hash-checked) only when no trusted fingerprint was persisted.
    pub fn known(&self, key: &str) -> Option<Fingerprint> {
        if self.trusted_fingerprints
            && let Some(known) = self.watched.get(key).and_then(|w| w.known.as_deref())
        {
            return parse_fingerprint(known);
        }
        let blob = self.store.read(self.blobs.get(key)?)?;
        Some(Fingerprint::of(&blob))
    }

    /// What `key` held before agent writes announced but not seen yet (see
    /// [`WatchedEntry::superseded`]); empty when unknown or untrusted.
    pub fn superseded(&self, key: &str) -> Vec<Fingerprint> {
        if !self.trusted_fingerprints {
            return Vec::new();
        }
        self.watched
            .get(key)
            .map(|w| {
                w.superseded
                    .iter()
                    .filter_map(|f| parse_fingerprint(f))
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn source_name(source: &RecordSource) -> String {
    source.as_str().to_owned()
}
