//! Histories held by the sidecar (issue 29): one [`Held`] per task behind its own async lock,
//! so a task's requests apply in arrival order while other tasks go on, and a condense that
//! waits for the host's summary does not hold the lock (appends go on meanwhile). The ops, the
//! digest and what a batch may do are `roo_context_core::conversation::sync`'s; this module
//! keeps the state, persists it (`persist: sidecar`: `api_conversation_history.journal` beside
//! `api_conversation_history.json`, through [`crate::journal_file`]) and converts wire ops.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use roo_context_core::conversation::sync::{
    HistoryDoc, HistoryOp, HistoryState, content_digest, digest_hex, first_touched, ops_between,
    parse_digest,
};
use roo_context_core::conversation::{ApiMessage, effective_api_history, parse_history};
use roo_context_core::fs::{OsFs, read_regular_file};
use roo_context_core::wire_text;
use roo_context_protocol::sync as wire;
use serde_json::{Value, json};

use crate::journal_file::JournaledFile;
use crate::rpc::RpcError;

/// The agent's own history file, which the sidecar writes when it persists.
pub const HISTORY_FILE: &str = "api_conversation_history.json";
/// The sidecar's journal of changes beside it.
pub const HISTORY_JOURNAL: &str = "api_conversation_history.journal";
const TEMP_PREFIX: &str = ".api_conversation_history.tmp-";
/// The largest history file read.
const MAX_HISTORY_BYTES: u64 = 2 * 1024 * 1024 * 1024;

/// Every held history, by task.
#[derive(Default)]
pub struct Histories {
    tasks: std::sync::Mutex<HashMap<String, Arc<tokio::sync::Mutex<Held>>>>,
    /// The folders histories are persisted in (canonical), by task: one writer per folder.
    claims: std::sync::Mutex<HashMap<PathBuf, String>>,
    /// The last version of each task's history closed or dropped: a task opened again goes on
    /// from it, so a base from before (an append still in flight) is never taken for one of
    /// the new history's versions.
    closed_at: std::sync::Mutex<HashMap<String, u64>>,
}

/// One task's history.
pub struct Held {
    /// The messages and their digests.
    pub doc: HistoryDoc,
    /// Set when the sidecar persists the history.
    pub disk: Option<Disk>,
    /// The oldest version a batch of appends may name as its base: a condense's ops and
    /// appends commute (the condense touches only what was there before it started), so an
    /// append sent before the host saw the condense's answer still applies; any other host
    /// change moves this up to its own version.
    pub append_floor: u64,
    /// The version of the last change that was not an append (a host's or context
    /// management's): a condense that waited for its summary applies only if none came since
    /// it started.
    pub rewritten_at: u64,
    /// Which opening of the task this is (set when held): a condense that waited for its
    /// summary settles only into the history it ran on, never into one opened since.
    pub generation: u64,
}

static NEXT_GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// Where a persisted history lives.
pub struct Disk {
    dir: PathBuf,
    journal: JournaledFile,
}

impl Histories {
    /// The task's history, if held.
    pub fn get(&self, task_id: &str) -> Option<Arc<tokio::sync::Mutex<Held>>> {
        self.tasks.lock().ok()?.get(task_id).cloned()
    }

    /// Holds `held` for the task, replacing what was held.
    pub fn insert(&self, task_id: &str, mut held: Held) -> Arc<tokio::sync::Mutex<Held>> {
        held.generation = NEXT_GENERATION.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let held = Arc::new(tokio::sync::Mutex::new(held));
        if let Ok(mut tasks) = self.tasks.lock() {
            tasks.insert(task_id.to_owned(), held.clone());
        }
        held
    }

    /// Forgets the task's history (and the folder it persisted in), last at `version`.
    pub fn remove(&self, task_id: &str, version: u64) -> Option<Arc<tokio::sync::Mutex<Held>>> {
        self.release(task_id);
        if let Ok(mut closed) = self.closed_at.lock() {
            let last = closed.entry(task_id.to_owned()).or_default();
            *last = (*last).max(version);
        }
        self.tasks.lock().ok()?.remove(task_id)
    }

    /// The highest version the task's history had: the one held now (waiting for its lock:
    /// requests before the open apply first) or the last one closed.
    pub async fn last_version(&self, task_id: &str) -> u64 {
        let closed = self
            .closed_at
            .lock()
            .ok()
            .and_then(|closed| closed.get(task_id).copied())
            .unwrap_or(0);
        match self.get(task_id) {
            Some(held) => closed.max(held.lock().await.doc.state().version),
            None => closed,
        }
    }

    /// Makes `dir` the folder the task persists in: `Err` names the other task that persists
    /// there (two writers of one `api_conversation_history.json` and journal would overwrite
    /// each other). The task's earlier folder, if any, is released and returned (for
    /// [`Histories::restore_claim`] when the open fails).
    pub fn claim(&self, task_id: &str, dir: &Path) -> Result<Option<PathBuf>, String> {
        let canonical = dir
            .canonicalize()
            .map_err(|error| format!("{}: {error}", dir.display()))?;
        let mut claims = self
            .claims
            .lock()
            .map_err(|_| "the folder claims are poisoned".to_owned())?;
        if let Some(other) = claims.get(&canonical)
            && other != task_id
        {
            return Err(format!(
                "{} is where task `{other}` persists its history (one task per folder; close it first)",
                dir.display()
            ));
        }
        let earlier = claims
            .iter()
            .find(|(_, task)| *task == task_id)
            .map(|(dir, _)| dir.clone());
        claims.retain(|_, task| task != task_id);
        claims.insert(canonical, task_id.to_owned());
        Ok(earlier)
    }

    /// Undoes [`Histories::claim`] after a failed open: the task's folder is `earlier` again
    /// (none when it was not persisted, or no longer held).
    pub fn restore_claim(&self, task_id: &str, earlier: Option<PathBuf>) {
        if let Ok(mut claims) = self.claims.lock() {
            claims.retain(|_, task| task != task_id);
            if let Some(dir) = earlier {
                claims.insert(dir, task_id.to_owned());
            }
        }
    }

    /// Releases the folder the task persisted in.
    pub fn release(&self, task_id: &str) {
        if let Ok(mut claims) = self.claims.lock() {
            claims.retain(|_, task| task != task_id);
        }
    }
}

/// The wire form of a state.
pub fn wire_state(state: HistoryState) -> wire::HistoryState {
    wire::HistoryState {
        version: state.version,
        length: state.length,
        digest: digest_hex(state.digest),
    }
}

/// `-32010 historyOutOfSync`, with the sidecar's state (or none).
pub fn out_of_sync(task_id: &str, server: Option<HistoryState>, why: &str) -> RpcError {
    RpcError::OutOfSync {
        message: format!("history out of sync for task `{task_id}`: {why}"),
        data: serde_json::to_value(wire::HistoryOutOfSyncData {
            task_id: task_id.to_owned(),
            server: server.map(wire_state),
        })
        .unwrap_or(Value::Null),
    }
}

/// A history's messages, sent as `field` (named in the error).
pub fn parse_messages(field: &str, messages: Vec<Value>) -> Result<Vec<ApiMessage>, RpcError> {
    Ok(parse_history(Value::Array(messages))
        .map_err(|error| RpcError::field(field, error))?
        .messages)
}

fn parse_message(field: &str, message: Value) -> Result<ApiMessage, RpcError> {
    let mut messages = parse_messages(field, vec![message])?;
    Ok(messages.pop().expect("one message parsed"))
}

/// Content digests as the wire writes them, each checked.
pub fn parse_digests(
    field: &str,
    digests: Option<Vec<String>>,
) -> Result<Option<Vec<u64>>, RpcError> {
    digests
        .map(|digests| {
            digests
                .iter()
                .enumerate()
                .map(|(index, text)| parse_one_digest(&format!("{field}[{index}]"), text))
                .collect()
        })
        .transpose()
}

fn parse_one_digest(field: &str, text: &str) -> Result<u64, RpcError> {
    parse_digest(text).ok_or_else(|| RpcError::field(field, "not a digest (16 hex digits)"))
}

/// The core op of a wire op (`at` names it in errors: `ops[3]`).
pub fn core_op(at: &str, op: wire::HistoryOpWire) -> Result<HistoryOp, RpcError> {
    let field = |name: &str| format!("{at}.{name}");
    Ok(match op {
        wire::HistoryOpWire::Append {
            messages,
            content_digests,
        } => HistoryOp::Append {
            messages: parse_messages(&field("messages"), messages)?,
            content_digests: parse_digests(&field("contentDigests"), content_digests)?,
        },
        wire::HistoryOpWire::RemoveLast { expect_role } => HistoryOp::RemoveLast { expect_role },
        wire::HistoryOpWire::Replace {
            index,
            message,
            content_digest,
        } => HistoryOp::Replace {
            index,
            message: parse_message(&field("message"), message)?,
            content_digest: content_digest
                .map(|d| parse_one_digest(&field("contentDigest"), &d))
                .transpose()?,
        },
        wire::HistoryOpWire::Truncate { length } => HistoryOp::Truncate { length },
        wire::HistoryOpWire::Reset {
            messages,
            content_digests,
        } => HistoryOp::Reset {
            messages: parse_messages(&field("messages"), messages)?,
            content_digests: parse_digests(&field("contentDigests"), content_digests)?,
        },
        wire::HistoryOpWire::SetTags { ranges, tags } => HistoryOp::SetTags {
            ranges: ranges
                .into_iter()
                .map(|[start, end]| (start, end))
                .collect(),
            tags,
        },
        wire::HistoryOpWire::Insert {
            index,
            message,
            content_digest,
        } => HistoryOp::Insert {
            index,
            message: parse_message(&field("message"), message)?,
            content_digest: content_digest
                .map(|d| parse_one_digest(&field("contentDigest"), &d))
                .transpose()?,
        },
    })
}

fn value(message: ApiMessage) -> Value {
    Value::Object(message.fields)
}

fn digests_wire(digests: Option<Vec<u64>>) -> Option<Vec<String>> {
    digests.map(|digests| digests.into_iter().map(digest_hex).collect())
}

/// The wire form of a core op (what the host applies, and what the journal records).
pub fn wire_op(op: HistoryOp) -> wire::HistoryOpWire {
    match op {
        HistoryOp::Append {
            messages,
            content_digests,
        } => wire::HistoryOpWire::Append {
            messages: messages.into_iter().map(value).collect(),
            content_digests: digests_wire(content_digests),
        },
        HistoryOp::RemoveLast { expect_role } => wire::HistoryOpWire::RemoveLast { expect_role },
        HistoryOp::Replace {
            index,
            message,
            content_digest,
        } => wire::HistoryOpWire::Replace {
            index,
            message: value(message),
            content_digest: content_digest.map(digest_hex),
        },
        HistoryOp::Truncate { length } => wire::HistoryOpWire::Truncate { length },
        HistoryOp::Reset {
            messages,
            content_digests,
        } => wire::HistoryOpWire::Reset {
            messages: messages.into_iter().map(value).collect(),
            content_digests: digests_wire(content_digests),
        },
        HistoryOp::SetTags { ranges, tags } => wire::HistoryOpWire::SetTags {
            ranges: ranges
                .into_iter()
                .map(|(start, end)| [start, end])
                .collect(),
            tags,
        },
        HistoryOp::Insert {
            index,
            message,
            content_digest,
        } => wire::HistoryOpWire::Insert {
            index,
            message: value(message),
            content_digest: content_digest.map(digest_hex),
        },
    }
}

/// The history as the agent's file holds it: a compact JSON array, as `JSON.stringify` writes
/// it (lone surrogates as the host escaped them), no trailing newline.
pub fn history_file_bytes(messages: &[ApiMessage]) -> Vec<u8> {
    wire_text::javascript_json(messages)
}

/// What a load from disk found.
pub struct Loaded {
    /// The history, its journal replayed.
    pub held: Held,
    /// What was repaired, for the open result.
    pub recovery: Option<String>,
}

/// Loads `<dir>/api_conversation_history.json` and replays the sidecar's journal beside it
/// (also without `persist`: a host taking the writing back gets a file holding everything
/// acknowledged, the journal compacted into it). A missing file is an empty history; an unreadable one is an error (never
/// `[]`, which would lose the task's history). Blocking.
pub fn load(dir: &Path, persist: bool) -> Result<Loaded, RpcError> {
    let path = dir.join(HISTORY_FILE);
    let bytes = match read_regular_file(&OsFs, &path, MAX_HISTORY_BYTES) {
        Ok(bytes) => Some(bytes),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
        Err(error) => {
            return Err(RpcError::field(
                "storageDir",
                format!("cannot read {}: {error}", path.display()),
            ));
        }
    };
    let messages = match &bytes {
        None => Vec::new(),
        Some(bytes) => {
            let parsed: Value =
                serde_json::from_slice(&wire_text::encode_json(bytes)).map_err(|error| {
                    RpcError::field(
                        "storageDir",
                        format!("{} is not JSON: {error}", path.display()),
                    )
                })?;
            parse_messages(
                "storageDir",
                match parsed {
                    Value::Array(list) => list,
                    other => {
                        return Err(RpcError::field(
                            "storageDir",
                            format!(
                                "{} holds {}, not an array of messages",
                                path.display(),
                                roo_context_core::conversation::json_type(&other)
                            ),
                        ));
                    }
                },
            )?
        }
    };
    let mut doc = HistoryDoc::new(messages, None).map_err(RpcError::internal)?;
    // The journal is replayed whoever persists from now on: what it holds was acknowledged
    // as on disk (`durable`), and a host taking the writing back must not lose it.
    let (mut journal, loaded) = JournaledFile::load(
        dir,
        HISTORY_FILE,
        HISTORY_JOURNAL,
        TEMP_PREFIX,
        bytes.as_deref(),
    )
    .map_err(RpcError::internal)?;
    let mut recovery = Vec::new();
    if let Some(aside) = &loaded.set_aside {
        recovery.push(format!(
            "the journal did not continue {} (another writer changed the file, or the journal is damaged); it was moved to {} and not replayed",
            path.display(),
            aside.display()
        ));
    }
    let replayed = loaded.records.len();
    let mut other_digests = 0;
    for (index, record) in loaded.records.into_iter().enumerate() {
        match replay(&mut doc, record) {
            Ok(true) => {}
            Ok(false) => other_digests += 1,
            Err(why) => {
                recovery.push(format!(
                    "journal record {} of {replayed} not replayed ({why}); it and the records after it are dropped",
                    index + 1
                ));
                break;
            }
        }
    }
    if other_digests > 0 {
        recovery.push(format!(
            "{other_digests} journal records replayed to another digest than recorded (content \
             digests the host sent are not kept on disk; the sidecar's own are used)"
        ));
    }
    if replayed > 0 {
        recovery.insert(0, format!("{replayed} journal records replayed"));
    }
    if loaded.compact || !recovery.is_empty() {
        journal
            .compact(&history_file_bytes(doc.messages()))
            .map_err(|error| {
                RpcError::internal(format!("cannot write {}: {error}", path.display()))
            })?;
    }
    Ok(Loaded {
        held: Held {
            append_floor: doc.state().version,
            rewritten_at: doc.state().version,
            generation: 0,
            doc,
            disk: persist.then(|| Disk {
                dir: dir.to_path_buf(),
                journal,
            }),
        },
        recovery: (!recovery.is_empty()).then(|| recovery.join("; ")),
    })
}

/// Applies one journal record. `Ok(false)`: applied, but to another digest than it recorded:
/// the journal continues this very file (its header names it) and the record's lines are
/// checked, so that comes from content digests the host sent, which the file does not keep;
/// the record is acknowledged data and stays (the host's `expect` or next request sees the new
/// digest and resyncs). `Err`: its ops do not fit, nothing of it applied.
fn replay(doc: &mut HistoryDoc, record: Value) -> Result<bool, String> {
    let ops: Vec<wire::HistoryOpWire> =
        serde_json::from_value(record.get("ops").cloned().unwrap_or(Value::Null))
            .map_err(|e| format!("unreadable ops: {e}"))?;
    let ops = ops
        .into_iter()
        .enumerate()
        .map(|(at, op)| core_op(&format!("ops[{at}]"), op))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let state = doc.apply(ops).map_err(|e| e.to_string())?;
    if let Some(version) = record.get("version").and_then(Value::as_u64) {
        doc.set_version(version.max(state.version));
    }
    let expected = record.get("digest").and_then(Value::as_str);
    Ok(expected == Some(digest_hex(doc.state().digest).as_str()))
}

impl Held {
    /// Records a batch that was applied (`ops` in wire form) on disk, when persisted: appended
    /// to the journal and fsynced, or the whole file written when the journal is due for a
    /// compaction or the append fails. `Ok(true)`: durable. Blocking.
    pub fn persist(&mut self, ops: &[wire::HistoryOpWire]) -> std::io::Result<bool> {
        let Some(disk) = &mut self.disk else {
            return Ok(false);
        };
        let state = self.doc.state();
        let record = json!({
            "version": state.version,
            "digest": digest_hex(state.digest),
            "ops": ops,
        });
        // A file another writer replaced is written whole again (the sidecar is its writer
        // now): a journal record would continue the file that was there before, and a load
        // would set the journal aside, acknowledged records and all.
        if !disk.journal.whole_changed()
            && disk
                .journal
                .append_unless_due(&record)
                .is_ok_and(|appended| appended)
        {
            return Ok(true);
        }
        disk.journal
            .compact(&history_file_bytes(self.doc.messages()))?;
        Ok(true)
    }

    /// Writes the whole file now, when persisted and the journal holds anything. Blocking.
    pub fn flush(&mut self) -> std::io::Result<u64> {
        let Some(disk) = &mut self.disk else {
            return Ok(0);
        };
        if !disk.journal.has_records() && disk.dir.join(HISTORY_FILE).exists() {
            return Ok(0);
        }
        let bytes = history_file_bytes(self.doc.messages());
        disk.journal.compact(&bytes)?;
        Ok(bytes.len() as u64)
    }
}

/// Holds a history the host sent, persisting it (the whole file written now, a new journal
/// started) when `dir` is given. Blocking.
pub fn adopt_inline(doc: HistoryDoc, dir: Option<&Path>) -> Result<Loaded, RpcError> {
    let version = doc.state().version;
    let disk = match dir {
        None => None,
        Some(dir) => {
            let path = dir.join(HISTORY_FILE);
            let existing = match read_regular_file(&OsFs, &path, MAX_HISTORY_BYTES) {
                Ok(bytes) => Some(bytes),
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
                // The host's copy replaces whatever is there; an unreadable file is not read.
                Err(_) => None,
            };
            let (mut journal, _) = JournaledFile::load(
                dir,
                HISTORY_FILE,
                HISTORY_JOURNAL,
                TEMP_PREFIX,
                existing.as_deref(),
            )
            .map_err(RpcError::internal)?;
            journal
                .compact(&history_file_bytes(doc.messages()))
                .map_err(|error| {
                    RpcError::internal(format!("cannot write {}: {error}", path.display()))
                })?;
            Some(Disk {
                dir: dir.to_path_buf(),
                journal,
            })
        }
    };
    Ok(Loaded {
        held: Held {
            doc,
            disk,
            append_floor: version,
            rewritten_at: version,
            generation: 0,
        },
        recovery: None,
    })
}

/// Ascending indices as half-open ranges (`[0, 1, 2, 5]` is `[[0, 3], [5, 6]]`).
pub fn index_ranges(indices: &[usize]) -> Vec<[usize; 2]> {
    let mut ranges: Vec<[usize; 2]> = Vec::new();
    for &index in indices {
        match ranges.last_mut() {
            Some(range) if range[1] == index => range[1] = index + 1,
            _ => ranges.push([index, index + 1]),
        }
    }
    ranges
}

impl Held {
    /// Makes the history go on after `version` (the task's history before this opening).
    pub fn continue_after(&mut self, version: u64) {
        if version >= self.doc.state().version {
            self.doc.set_version(version + 1);
        }
        self.append_floor = self.doc.state().version;
        self.rewritten_at = self.doc.state().version;
    }
}

/// Whether the doc's messages are out (lent to a computation that never gave them back: a
/// panic): such a history is dropped, never answered from.
pub fn is_broken(held: &Held) -> bool {
    held.doc.messages().len() != held.doc.content_digests().len()
}

impl Held {
    /// Takes `new`, what context management made of the history at `base`, as the next
    /// version: the ops that turn `base` into it (for the host and the journal), applied
    /// after any appends made since `base` (which stay after them). When the messages were
    /// lent (taken out for the computation), `new` gives them back. Blocking.
    pub fn settle(
        &mut self,
        task_id: &str,
        base: HistoryState,
        new: Vec<ApiMessage>,
        changed: bool,
    ) -> Result<wire::HistoryChanges, RpcError> {
        let lent = is_broken(self);
        if !changed {
            if lent {
                self.doc.restore_messages(new);
            }
            return Ok(self.changes(base, Vec::new()));
        }
        if !lent && (self.rewritten_at > base.version || base.length > self.doc.state().length) {
            return Err(out_of_sync(
                task_id,
                Some(self.doc.state()),
                "the host changed the history while it was being condensed; the result is dropped",
            ));
        }
        let base_len = base.length;
        let new_contents: Vec<u64> = new.iter().map(content_digest).collect();
        let ops = ops_between(
            &self.doc.content_digests()[..base_len],
            &self.doc.head_digests()[..base_len],
            &new,
            &new_contents,
        );
        let (tail, tail_contents) = if lent {
            (Vec::new(), Vec::new())
        } else {
            (
                self.doc.messages()[base_len..].to_vec(),
                self.doc.content_digests()[base_len..].to_vec(),
            )
        };
        let mut messages = new;
        messages.extend(tail);
        let mut contents = new_contents;
        contents.extend(tail_contents);
        let (ops, first) = match ops {
            Some(ops) => {
                let first = first_touched(&ops, base_len);
                (ops, first)
            }
            // Messages were dropped: the host gets the whole history once.
            None => (
                vec![HistoryOp::Reset {
                    messages: messages.clone(),
                    content_digests: Some(contents.clone()),
                }],
                0,
            ),
        };
        self.doc.adopt(messages, contents, first);
        self.rewritten_at = self.doc.state().version;
        let wire_ops: Vec<wire::HistoryOpWire> = ops.into_iter().map(wire_op).collect();
        if let Err(error) = self.persist(&wire_ops) {
            tracing::warn!(%error, task = %task_id, "context-management change not persisted");
        }
        Ok(self.changes(base, wire_ops))
    }

    fn changes(&self, base: HistoryState, ops: Vec<wire::HistoryOpWire>) -> wire::HistoryChanges {
        let effective = effective_api_history(self.doc.messages());
        wire::HistoryChanges {
            base_version: base.version,
            ops,
            effective_ranges: index_ranges(&effective.source_indices),
            state: wire_state(self.doc.state()),
        }
    }
}
