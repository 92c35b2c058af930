//! Issue 31's measurement of tool-output hygiene (a benchmark, not a test). Run:
//! `cargo run --release -p roo-context-core --example hygiene_replay`.
//!
//! **How the trajectories are made (honestly: synthetic, not recorded).** A seeded generator
//! plays 50 tasks of 40 to 300 steps. Each step is one agent turn: assistant text (30-100
//! words) and one tool call, then its result: a read of a new file (300-3000 words of code-like
//! text), a re-read of a file read before, an `apply_diff` or a `write_to_file` of a read file,
//! a test run (60 % failing: error lines and a `test result: FAILED` summary), a search, or a
//! large command output (a build log, 1000-6000 words: what `roo/output/ingest` lets through
//! under its 8000-token cap). The words come from a small code-and-prose vocabulary, so the
//! token counts are o200k counts of realistic-looking text, not of real repositories.
//!
//! Each task is replayed twice: without hygiene, and with `shape_history` (default options)
//! called before every request on the history as the host keeps it. A request's input is the
//! system prompt (9,000 tokens) plus the effective history; it is summed over all requests.
//! Condensing is modelled crudely, the same way in both runs: a request above a 128k window's
//! budget (`allowed_tokens`) is followed by a condense request that reads it all again, and the
//! history becomes the task and a 2000-word summary (no summarizer is run). After every
//! shaping the latest read of every file is checked to be in the shaped request whole (the
//! invariant), and each change of the request's prefix (a new batch) is counted.

use std::collections::HashMap;
use std::sync::LazyLock;

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

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn range(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() % (high - low) as u64) as usize
    }

    /// Between `low` and `high` words.
    fn text(&mut self, low: usize, high: usize) -> String {
        let count = self.range(low, high);
        self.words(count)
    }

    fn words(&mut self, count: usize) -> String {
        const WORDS: &[&str] = &[
            "the",
            "context",
            "window",
            "token",
            "file",
            "src/lib.rs",
            "=>",
            "{",
            "}",
            "fn",
            "let",
            "const",
            "return",
            "value",
            "async",
            "await",
            "impl",
            "struct",
            "match",
            "Some",
            "None",
            "\n",
            "    ",
            "// note",
            "path",
            "test",
            "config",
            "parse",
            "request",
            "handler",
            "42",
            "0x1f",
            "user",
            "cache",
            "self",
            "pub",
            "mod",
            "use",
        ];
        let mut out = String::new();
        for _ in 0..count {
            out.push_str(WORDS[(self.next() % WORDS.len() as u64) as usize]);
            out.push(' ');
        }
        out
    }
}

fn message(value: Value) -> ApiMessage {
    serde_json::from_value(value).unwrap()
}

/// One synthetic task: its messages, and for each step the file whose latest read it is (to
/// check the invariant).
fn task(seed: u64) -> Vec<ApiMessage> {
    let mut rng = Rng(seed);
    let steps = rng.range(40, 301);
    let mut ts = 1_000u64;
    let mut messages = vec![message(
        json!({"role": "user", "content": format!("<task>{}</task>", rng.words(80)), "ts": ts}),
    )];
    let mut files: Vec<String> = Vec::new();
    for step in 0..steps {
        let id = format!("toolu_{seed}_{step}");
        let roll = rng.range(0, 100);
        let (name, input, output, is_error) = if roll < 20 || files.is_empty() {
            let path = format!("src/module_{}.rs", files.len());
            files.push(path.clone());
            let body = rng.text(300, 3000);
            (
                "read_file",
                json!({"path": path}),
                format!("{path}\n{body}"),
                false,
            )
        } else if roll < 35 {
            let path = files[rng.range(0, files.len())].clone();
            let body = rng.text(300, 3000);
            (
                "read_file",
                json!({"path": path}),
                format!("{path}\n{body}"),
                false,
            )
        } else if roll < 50 {
            let path = files[rng.range(0, files.len())].clone();
            let diff = rng.text(20, 120);
            (
                "apply_diff",
                json!({"path": path, "diff": diff}),
                format!("Changes applied to {path}."),
                false,
            )
        } else if roll < 55 {
            let path = files[rng.range(0, files.len())].clone();
            let content = rng.text(200, 1500);
            (
                "write_to_file",
                json!({"path": path, "content": content}),
                format!("Wrote {path}."),
                false,
            )
        } else if roll < 70 {
            let failing = rng.range(0, 10) < 6;
            let mut out = rng.text(500, 4000);
            if failing {
                out.push_str("\nerror[E0308]: mismatched types\n --> src/lib.rs:42:5\n");
                out.push_str("test result: FAILED. 118 passed; 2 failed; 0 ignored\n");
            } else {
                out.push_str("\ntest result: ok. 120 passed; 0 failed; 0 ignored\n");
            }
            (
                "execute_command",
                json!({"command": "cargo test"}),
                out,
                failing,
            )
        } else if roll < 85 {
            let pattern = rng.words(2);
            (
                "search_files",
                json!({"path": ".", "regex": pattern}),
                rng.text(100, 1500),
                false,
            )
        } else {
            (
                "execute_command",
                json!({"command": "cargo build --verbose"}),
                rng.text(1000, 6000),
                false,
            )
        };
        ts += 1;
        messages.push(message(json!({"role": "assistant", "content": [
            {"type": "text", "text": rng.text(30, 100)},
            {"type": "tool_use", "id": id, "name": name, "input": input}], "ts": ts})));
        ts += 1;
        let mut result = json!({"type": "tool_result", "tool_use_id": id, "content": output});
        if is_error {
            result["is_error"] = json!(true);
        }
        messages.push(message(
            json!({"role": "user", "content": [result], "ts": ts}),
        ));
    }
    messages
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

fn main() {
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
        replay(condensing, budget, &options, &summary);
    }
}

fn replay(condensing: bool, budget: u64, options: &HygieneOptions, summary: &ApiMessage) {
    let mut totals = Totals::default();
    let started = std::time::Instant::now();
    for seed in 0..TASKS as u64 {
        let full = task(1 + seed);
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
        "{TASKS} synthetic tasks, {} steps, {} requests ({:.1} s)",
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
