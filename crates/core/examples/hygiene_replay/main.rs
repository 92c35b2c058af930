//! Issue 31's measurement of tool-output hygiene (a benchmark, not a test). Run:
//! `cargo run --release -p roo-context-core --example hygiene_replay`.
//!
//! **The corpus.** By default the real one (`real.rs`: 50 tasks of 40-300 steps played over
//! the Roo Code 3.52.1 and Zoo Code 3.80.0 snapshots, every tool result made from the
//! real bytes of the files, in Roo Code 3.52.1's formats; how, in that file's header).
//! `--synthetic` replays the first, synthetic corpus instead (`synthetic.rs`), `--write FILE`
//! keeps the corpus as JSON lines (one task per line) and prints its sha256, and repository
//! folders given as arguments replace the defaults.
//!
//! Each task is replayed twice: without hygiene, and with `shape_history` (default options)
//! called before every request on the history as the host keeps it. A request's input is the
//! system prompt (9,000 tokens) plus the effective history; it is summed over all requests.
//! Condensing is modelled crudely, the same way in both runs: a request above a 128k window's
//! budget (`allowed_tokens`) is followed by a condense request that reads it all again, and the
//! history becomes the task and a 2000-word summary (no summarizer is run). After every
//! shaping the latest read of every file is checked to be in the shaped request whole (the
//! invariant), and each change of the request's prefix (a new batch) is counted.

mod real;
mod synthetic;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use synthetic::Rng;

use roo_context_core::context::{HygieneOptions, allowed_tokens, shape_history};
use roo_context_core::conversation::{
    ApiMessage, Block, Estimate, HistoryTokens, TokenCounter, effective_api_history,
};
use roo_context_tokens::TokenCache;
use serde_json::{Value, json};

static CACHE: LazyLock<TokenCache> = LazyLock::new(|| TokenCache::with_capacity(1 << 16));

struct Exact;

impl TokenCounter for Exact {
    fn count_text(&self, text: &str) -> usize {
        CACHE.count_exact(text)
    }
}

/// The sidecar's default counter (o200k × 1.5).
const COUNTER: Estimate<Exact> = Estimate(Exact);

const TASKS: usize = 50;
const WINDOW: u64 = 128_000;

fn message(value: Value) -> ApiMessage {
    serde_json::from_value(value).unwrap()
}

/// The id of the latest read of every file, and whether it is whole in `request`.
fn latest_reads_kept(request: &[std::borrow::Cow<'_, ApiMessage>], stored: &[ApiMessage]) -> usize {
    let mut latest: HashMap<String, (String, String)> = HashMap::new();
    let mut uses: HashMap<String, String> = HashMap::new();
    for message in stored {
        for block in message.blocks() {
            match Block::view(block) {
                Block::ToolUse {
                    id: Some(id),
                    name: Some(name),
                    input: Some(input),
                } => {
                    if let Some(path) = input.get("path").and_then(Value::as_str) {
                        uses.insert(id.to_owned(), format!("{name}:{path}"));
                    }
                }
                Block::ToolResult {
                    tool_use_id: Some(id),
                    content: Some(Value::String(text)),
                    ..
                } => {
                    if let Some(call) = uses.get(id)
                        && let Some(path) = call.strip_prefix("read_file:")
                    {
                        latest.insert(path.to_owned(), (id.to_owned(), text.clone()));
                    }
                    // A full write is the newest content too (its input is never touched).
                    if let Some(call) = uses.get(id)
                        && let Some(path) = call.strip_prefix("write_to_file:")
                    {
                        latest.remove(path);
                    }
                }
                _ => {}
            }
        }
    }
    let mut violations = 0;
    for (id, text) in latest.values() {
        let kept = request.iter().flat_map(|m| m.blocks()).any(|block| {
            matches!(Block::view(block), Block::ToolResult { tool_use_id: Some(found), content: Some(Value::String(seen)), .. } if found == id && seen == text)
        });
        if !kept {
            violations += 1;
        }
    }
    violations
}

#[derive(Default)]
struct Totals {
    requests: u64,
    plain: u64,
    shaped: u64,
    plain_condenses: u64,
    shaped_condenses: u64,
    plain_over_budget: u64,
    shaped_over_budget: u64,
    violations: usize,
    prefix_changes: u64,
    steps: u64,
}

/// Model-facing tokens of a request over `history`.
fn request_tokens(history: &[ApiMessage]) -> u64 {
    SYSTEM_TOKENS
        + HistoryTokens::new(history, &COUNTER).total(&effective_api_history(history).messages)
            as u64
}

/// A Roo-sized system prompt and tool list.
const SYSTEM_TOKENS: u64 = 9_000;

/// The corpus to replay: tasks with a label (repository and folder, or "synthetic").
struct Corpus {
    name: String,
    tasks: Vec<(Vec<ApiMessage>, String)>,
}

/// The real corpus over every repository of `roots` that exists (`TASKS` tasks, round robin).
fn real_corpus(roots: &[PathBuf]) -> Option<Corpus> {
    let repos: Vec<real::Repo> = roots
        .iter()
        .filter_map(|root| root.canonicalize().ok())
        .filter(|root| root.is_dir())
        .filter_map(|root| real::Repo::load(&root).ok())
        .filter(|repo| !repo.files.is_empty())
        .collect();
    if repos.is_empty() {
        return None;
    }
    let mut words = Rng(7);
    let tasks = (0..TASKS as u64)
        .map(|seed| {
            real::task(
                &repos[seed as usize % repos.len()],
                1 + seed,
                &COUNTER,
                &mut words,
            )
        })
        .collect();
    let names: Vec<String> = repos
        .iter()
        .map(|repo| format!("{} ({} files)", repo.name, repo.files.len()))
        .collect();
    Some(Corpus {
        name: format!("real repositories: {}", names.join(", ")),
        tasks,
    })
}

fn synthetic_corpus() -> Corpus {
    Corpus {
        name: "synthetic vocabulary".to_owned(),
        tasks: (0..TASKS as u64)
            .map(|seed| (synthetic::task(1 + seed), "synthetic".to_owned()))
            .collect(),
    }
}

/// Usage: `hygiene_replay [--synthetic] [--write FILE] [REPOSITORY ...]`. Without repositories,
/// the upstream snapshots unpacked under `/tmp/corpus` (see BENCHMARKS.md), else this workspace.
fn main() {
    let mut args = std::env::args().skip(1);
    let (mut synthetic_only, mut write, mut roots) = (false, None, Vec::new());
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--synthetic" => synthetic_only = true,
            "--write" => write = args.next().map(PathBuf::from),
            _ => roots.push(PathBuf::from(arg)),
        }
    }
    if roots.is_empty() {
        // The snapshots' bytes never change, so the corpus (and its sha256) is the same on every
        // machine; this workspace changes with every commit and is only the fallback.
        roots = vec![
            PathBuf::from("/tmp/corpus/roo-code-3.52.1"),
            PathBuf::from("/tmp/corpus/zoo-code-3.80.0"),
        ];
        if !roots.iter().all(|root| root.is_dir()) {
            eprintln!("snapshots not unpacked under /tmp/corpus: replaying this workspace's tree");
            roots = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")];
        }
    }
    let corpus = if synthetic_only {
        synthetic_corpus()
    } else {
        real_corpus(&roots).unwrap_or_else(|| {
            eprintln!("no repository found among {roots:?}; replaying the synthetic corpus");
            synthetic_corpus()
        })
    };
    describe(&corpus, write.as_deref());
    let budget = allowed_tokens(WINDOW, Some(8192));
    let options = HygieneOptions::default();
    // The crude condense model: a request over the budget is followed by a condense request
    // reading the whole history, and the history becomes the task and a 2000-word summary.
    let summary = message(json!({"role": "user", "content": Rng(99).words(2_000)}));
    for condensing in [false, true] {
        println!(
            "{}",
            if condensing {
                "With the crude condense model:"
            } else {
                "Without condensing (histories grow without bound):"
            }
        );
        replay(&corpus, condensing, budget, &options, &summary);
    }
}

/// Prints what the corpus holds, and writes it as JSON lines (one task per line) when asked.
fn describe(corpus: &Corpus, write: Option<&Path>) {
    let mut tools: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut uses: HashMap<String, String> = HashMap::new();
    let mut lines = String::new();
    for (messages, label) in &corpus.tasks {
        for message in messages {
            for block in message.blocks() {
                match Block::view(block) {
                    Block::ToolUse {
                        id: Some(id),
                        name: Some(name),
                        input,
                    } => {
                        let command = input
                            .and_then(|i| i.get("command"))
                            .and_then(Value::as_str)
                            .map(|c| {
                                if c.contains("test") {
                                    " (tests)"
                                } else {
                                    " (other)"
                                }
                            })
                            .unwrap_or("");
                        uses.insert(id.to_owned(), format!("{name}{command}"));
                    }
                    Block::ToolResult {
                        tool_use_id: Some(id),
                        content: Some(Value::String(text)),
                        ..
                    } => {
                        let entry = tools.entry(uses[id].clone()).or_default();
                        entry.0 += 1;
                        entry.1 += text.len() as u64;
                    }
                    _ => {}
                }
            }
        }
        if write.is_some() {
            lines.push_str(&json!({"task": label, "messages": messages}).to_string());
            lines.push('\n');
        }
    }
    println!("corpus: {}, {} tasks", corpus.name, corpus.tasks.len());
    for (tool, (count, bytes)) in &tools {
        println!("  {tool}: {count} results, {:.1} MB", *bytes as f64 / 1e6);
    }
    if let Some(path) = write {
        use sha2::Digest;
        std::fs::write(path, &lines).expect("the corpus file is writable");
        let digest = sha2::Sha256::digest(lines.as_bytes());
        let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
        println!(
            "  written to {} ({} bytes, sha256 {hex})",
            path.display(),
            lines.len()
        );
    }
}

fn replay(
    corpus: &Corpus,
    condensing: bool,
    budget: u64,
    options: &HygieneOptions,
    summary: &ApiMessage,
) {
    let mut totals = Totals::default();
    let started = std::time::Instant::now();
    for (full, _) in &corpus.tasks {
        totals.steps += (full.len() as u64 - 1) / 2;
        let condensed = vec![full[0].clone(), summary.clone()];
        let (mut plain, mut shaped) = (vec![full[0].clone()], vec![full[0].clone()]);
        // A request before each assistant turn: after the task, then after each tool result.
        let (mut cursor, mut end) = (1, 1);
        while end <= full.len() {
            plain.extend_from_slice(&full[cursor..end]);
            shaped.extend_from_slice(&full[cursor..end]);
            cursor = end;
            totals.requests += 1;

            let tokens = request_tokens(&plain);
            totals.plain += tokens;
            totals.plain_over_budget += u64::from(tokens > budget);
            if condensing && tokens > budget {
                totals.plain_condenses += 1;
                totals.plain += tokens;
                plain = condensed.clone();
            }

            let outcome = shape_history(std::mem::take(&mut shaped), options, &COUNTER);
            shaped = outcome.messages;
            if !outcome.decisions.is_empty() {
                totals.prefix_changes += 1;
            }
            let tokens = SYSTEM_TOKENS + outcome.tokens_after as u64;
            let request = effective_api_history(&shaped);
            totals.violations += latest_reads_kept(&request.messages, &shaped);
            totals.shaped += tokens;
            totals.shaped_over_budget += u64::from(tokens > budget);
            if condensing && tokens > budget {
                totals.shaped_condenses += 1;
                totals.shaped += tokens;
                shaped = condensed.clone();
            }
            end += 2;
        }
    }
    let saved = 100.0 * (1.0 - totals.shaped as f64 / totals.plain as f64);
    println!(
        "{TASKS} tasks, {} steps, {} requests ({:.1} s)",
        totals.steps,
        totals.requests,
        started.elapsed().as_secs_f64()
    );
    println!(
        "input tokens summed over all requests (condense requests included): {} without hygiene, {} with ({saved:.1} % fewer)",
        totals.plain, totals.shaped
    );
    println!(
        "condense events ({WINDOW}-token window, budget {budget}): {} without ({:.2} per task), {} with ({:.2} per task)",
        totals.plain_condenses,
        totals.plain_condenses as f64 / TASKS as f64,
        totals.shaped_condenses,
        totals.shaped_condenses as f64 / TASKS as f64
    );
    println!(
        "requests above the budget: {} without, {} with",
        totals.plain_over_budget, totals.shaped_over_budget
    );
    println!(
        "prefix changes (batches): {} ({:.1} per task); latest-content violations: {}",
        totals.prefix_changes,
        totals.prefix_changes as f64 / TASKS as f64,
        totals.violations
    );
}
