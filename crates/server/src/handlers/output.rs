//! `roo/output/ingest` and `roo/output/read` (issue 31): the preview is decided in
//! `core::context::preview_output`; here the whole output is stored content-addressed in the task
//! folder (`roo-context/outputs/<sha256>`, atomic writes, at most 256 MiB per task, oldest evicted)
//! and paged back byte for byte. A `sourcePath` is judged by the access rule at ingest and again
//! at every read; lines the output attributes to a blocked file (`core::context::attributed`)
//! are withheld before anything is stored.

use std::borrow::Cow;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use roo_context_core::context::{
    DEFAULT_OUTPUT_CAP_TOKENS, OutputKind, Withheld, preview_output, withhold_blocked_lines,
};
use roo_context_protocol::output::*;
use roo_context_protocol::requests::{self, RooRequest};
use serde::{Deserialize, Serialize};

use super::{Handler, Snapshot, base_folder};
use crate::atomic_file::write_atomically;
use crate::baselines::sha256_hex;
use crate::counting::{Mode, with_counter};
use crate::rpc::RpcError;

const TEMP_PREFIX: &str = ".output-tmp-";
const DEFAULT_MAX_LINES: u64 = 500;

/// Bytes of stored outputs a task keeps (`ROO_CONTEXT_OUTPUT_CAP_BYTES`, default 256 MiB).
fn task_cap_bytes() -> u64 {
    std::env::var("ROO_CONTEXT_OUTPUT_CAP_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256 << 20)
}

/// Where a stored output came from, kept beside it so a read judges it again.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SourceRecord {
    source_path: String,
    cwd: Option<String>,
}

/// The sources recorded for output `id`: none when it has no record. A record that exists but
/// cannot be read or parsed is an error, never "no source" (which would skip the judgement).
fn read_sources(dir: &Path, id: &str) -> Result<Vec<SourceRecord>, RpcError> {
    match std::fs::read(dir.join(format!("{id}.source"))) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_err(RpcError::internal),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(error) => Err(RpcError::internal(error)),
    }
}

fn outputs_dir(storage_dir: &str) -> Result<PathBuf, RpcError> {
    let storage = Path::new(storage_dir);
    if !storage.is_dir() {
        return Err(RpcError::field(
            "storageDir",
            "the task folder does not exist",
        ));
    }
    let dir = storage.join("roo-context").join("outputs");
    std::fs::create_dir_all(&dir).map_err(RpcError::internal)?;
    Ok(dir)
}

fn is_output_id(name: &str) -> bool {
    name.len() == 64
        && name
            .bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
}

fn judge_source(snapshot: &Snapshot, path: &str, cwd: Option<&str>) -> Result<(), RpcError> {
    let (state, policy) = (&*snapshot.state, &*snapshot.policy);
    let base = base_folder(policy, cwd);
    let decision = policy.check_access(&state.resolver, &state.fs, Some(&base), path);
    if decision.allowed() {
        Ok(())
    } else {
        Err(RpcError::field(
            "sourcePath",
            format!(
                "{path} is blocked by the access rule (.rooignore); its output is not stored or shown"
            ),
        ))
    }
}

/// Removes the oldest outputs (by modification time, then id) until the task holds at most the
/// cap, never `keep`; returns the evicted ids.
fn evict(dir: &Path, keep: &str) -> Vec<String> {
    let mut blobs: Vec<(std::time::SystemTime, String, u64)> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            let meta = entry.metadata().ok()?;
            if !is_output_id(&name) {
                return None;
            }
            Some((meta.modified().ok()?, name, meta.len()))
        })
        .collect();
    blobs.sort();
    let mut total: u64 = blobs.iter().map(|b| b.2).sum();
    let cap = task_cap_bytes();
    let mut evicted = Vec::new();
    for (_, name, len) in blobs {
        if total <= cap {
            break;
        }
        if name == keep {
            continue;
        }
        let _ = std::fs::remove_file(dir.join(&name));
        let _ = std::fs::remove_file(dir.join(format!("{name}.source")));
        total -= len;
        evicted.push(name);
    }
    evicted
}

/// `roo/output/ingest`.
impl Handler for requests::OutputIngest {
    fn handle(
        snapshot: &Snapshot,
        params: IngestOutputParams,
    ) -> Result<IngestOutputResult, RpcError> {
        if params.task_id.is_empty() {
            return Err(RpcError::field("taskId", "must not be empty"));
        }
        if let Some(path) = &params.source_path {
            judge_source(snapshot, path, params.cwd.as_deref())?;
        }
        let dir = outputs_dir(&params.storage_dir)?;
        let kind = match params.kind.unwrap_or(ToolOutputKind::Other) {
            ToolOutputKind::Command => OutputKind::Command,
            ToolOutputKind::Mcp => OutputKind::Mcp,
            ToolOutputKind::Search => OutputKind::Search,
            ToolOutputKind::FileRead => OutputKind::FileRead,
            ToolOutputKind::Other => OutputKind::Other,
        };
        // Lines an output attributes to a blocked file never reach the store or the model. A
        // file read is the content of its `sourcePath`, judged above, not lines of other files.
        let withheld = if kind == OutputKind::FileRead {
            Withheld {
                text: Cow::Borrowed(params.text.as_str()),
                ..Withheld::default()
            }
        } else {
            let (state, policy) = (&*snapshot.state, &*snapshot.policy);
            let base = base_folder(policy, params.cwd.as_deref());
            withhold_blocked_lines(&params.text, kind == OutputKind::Search, |path| {
                !policy
                    .check_access(&state.resolver, &state.fs, Some(&base), path)
                    .allowed()
            })
        };
        let text: &str = &withheld.text;
        let bytes = text.as_bytes();
        let output_id = sha256_hex(bytes);
        if let Some(path) = &params.source_path {
            // The same bytes may come from several files: every source is kept and judged at
            // read, so a later rule on any of them withholds the bytes.
            let mut sources = read_sources(&dir, &output_id)?;
            let source = SourceRecord {
                source_path: path.clone(),
                cwd: params.cwd.clone(),
            };
            if !sources.contains(&source) {
                sources.push(source);
                let record = serde_json::to_vec(&sources).map_err(RpcError::internal)?;
                write_atomically(&dir, &format!("{output_id}.source"), TEMP_PREFIX, &record)
                    .map_err(RpcError::internal)?;
            }
        }
        write_atomically(&dir, &output_id, TEMP_PREFIX, bytes).map_err(RpcError::internal)?;
        let evicted = evict(&dir, &output_id);
        let cap = params.cap_tokens.unwrap_or(DEFAULT_OUTPUT_CAP_TOKENS);
        let preview = with_counter(&snapshot.tokens, Mode::Exact, |counter| {
            preview_output(
                text,
                kind,
                cap,
                &output_id,
                <requests::OutputRead as RooRequest>::METHOD,
                counter,
            )
        });
        Ok(IngestOutputResult {
            text: preview.text,
            truncated: preview.truncated,
            output_id,
            total_bytes: preview.total_bytes,
            total_lines: preview.total_lines,
            omitted_lines: preview.omitted_lines,
            evicted,
            withheld_paths: withheld.paths,
            withheld_lines: withheld.lines,
        })
    }
}

/// `roo/output/read`.
impl Handler for requests::OutputRead {
    fn handle(snapshot: &Snapshot, params: ReadOutputParams) -> Result<ReadOutputResult, RpcError> {
        if !is_output_id(&params.output_id) {
            return Err(RpcError::field(
                "outputId",
                "not an output id (64 lowercase hex digits)",
            ));
        }
        let dir = outputs_dir(&params.storage_dir)?;
        let unknown = || {
            RpcError::field(
                "outputId",
                format!(
                    "no stored output {} in this task (unknown or evicted)",
                    params.output_id
                ),
            )
        };
        for source in read_sources(&dir, &params.output_id)? {
            judge_source(snapshot, &source.source_path, source.cwd.as_deref())?;
        }
        let file = std::fs::File::open(dir.join(&params.output_id)).map_err(|_| unknown())?;
        let max_lines = params.max_lines.unwrap_or(DEFAULT_MAX_LINES).max(1);
        let start = params.start_line.unwrap_or(1);
        if start == 0 {
            return Err(RpcError::field("startLine", "lines are numbered from 1"));
        }
        let end = params.end_line.unwrap_or(u64::MAX);
        if end < start {
            return Err(RpcError::field("endLine", "must not be before startLine"));
        }
        let pattern = match &params.pattern {
            Some(p) => Some(regex::Regex::new(p).map_err(|e| RpcError::field("pattern", e))?),
            None => None,
        };
        let mut result = ReadOutputResult {
            text: String::new(),
            lines: Vec::new(),
            total_lines: 0,
            more: false,
        };
        // Streamed: memory is the answer, not the stored output (up to the task's cap).
        let mut reader = std::io::BufReader::new(file);
        let mut bytes = Vec::new();
        for number in 1.. {
            bytes.clear();
            if reader
                .read_until(b'\n', &mut bytes)
                .map_err(RpcError::internal)?
                == 0
            {
                break;
            }
            // Stored from a JSON string, so UTF-8; a file changed behind our back is an error.
            let line = std::str::from_utf8(&bytes).map_err(RpcError::internal)?;
            result.total_lines = number;
            if number < start || number > end {
                continue;
            }
            if let Some(pattern) = &pattern
                && !pattern.is_match(line)
            {
                continue;
            }
            if result.lines.len() as u64 >= max_lines {
                result.more = true;
                continue;
            }
            result.text.push_str(line);
            result.lines.push(OutputLine {
                line: number,
                text: line.to_string(),
            });
        }
        Ok(result)
    }
}
