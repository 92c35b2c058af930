//! Summary verification (issue 19): the time to verify a 20,000-token summary against a
//! 10,000-message span (goal ≤ 5 ms), beside a baseline measured in the same run (counting the
//! summary's tokens, which every condense already does), and the addendum's size as a share of
//! the summary's tokens over a grid of summary sizes and loss rates (goal: median ≤ 10 %),
//! printed before divan's table. Run: `cargo bench -p roo-context-core --bench verify`.

use std::sync::LazyLock;

use divan::Bencher;
use roo_context_core::context::verify::{
    VerifyInput, VerifySettings, build_addendum, verify_summary,
};
use roo_context_core::conversation::{ApiMessage, Estimate, TokenCounter, parse_history};
use roo_context_tokens::TokenCache;
use serde_json::{Value, json};

const MESSAGES: usize = 10_000;
const FILES: usize = 400;
const TODOS: usize = 20;

struct Cached<'a>(&'a TokenCache);

impl TokenCounter for Cached<'_> {
    fn count_text(&self, text: &str) -> usize {
        self.0.count_exact(text)
    }
}

static CACHE: LazyLock<TokenCache> = LazyLock::new(|| TokenCache::with_capacity(1 << 16));

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const WORDS: &[&str] = &[
    "parser", "token", "window", "module", "cache", "render", "state", "queue", "worker", "retry",
    "config", "schema", "route", "handler", "client", "server", "buffer", "stream", "index",
    "table", "layout", "widget", "canvas", "shape", "circle", "area", "vector", "matrix",
];

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ren", "tor", "vel", "sa", "din", "pra", "qui", "zo", "fen", "gar", "hul",
    "bri", "cet", "dum", "ex", "fla", "gro",
];

/// A vocabulary of 3,000 made-up words, drawn with a Zipf-like law (a few words very common,
/// most rare), so word statistics resemble real prose.
static VOCABULARY: LazyLock<Vec<String>> = LazyLock::new(|| {
    (0..3_000usize)
        .map(|i| {
            let n = SYLLABLES.len();
            format!(
                "{}{}{}",
                SYLLABLES[i % n],
                SYLLABLES[(i / n) % n],
                if i >= n * n {
                    SYLLABLES[(i / (n * n)) % n]
                } else {
                    ""
                }
            )
        })
        .collect()
});

fn prose(rng: &mut Rng, words: usize) -> String {
    let mut out = String::new();
    for index in 0..words {
        let unit = (rng.next() % 1_000_000) as f64 / 1_000_000.0;
        let rank = ((VOCABULARY.len() as f64).powf(unit) as usize).saturating_sub(1);
        out.push_str(&VOCABULARY[rank.min(VOCABULARY.len() - 1)]);
        out.push_str(if index % 12 == 11 { ". " } else { " " });
    }
    out
}

fn file(index: usize) -> String {
    format!(
        "src/{}/{}_{index}.ts",
        WORDS[index % WORDS.len()],
        WORDS[(index / 7) % WORDS.len()]
    )
}

fn todo(index: usize) -> String {
    format!(
        "Port the {} {} step {index}",
        WORDS[index % WORDS.len()],
        WORDS[(index * 3) % WORDS.len()]
    )
}

const CONSTRAINTS: &[&str] = &[
    "Never change the public API of the parser.",
    "Don't add new dependencies to the worker.",
    "Always run the schema tests before committing.",
    "Use the logger from src/log.ts instead of console.log.",
    "Keep the canvas layout unchanged on mobile.",
];

/// A Roo-style span: tool calls reading and editing files, results, user messages (some with
/// constraints), and a TODO list updated along the way.
static SPAN: LazyLock<Vec<ApiMessage>> = LazyLock::new(|| {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut values = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "<task>Port the shapes service to TypeScript. Never change the public API of the parser.</task>"}], "ts": 1}),
    ];
    for index in 1..MESSAGES {
        let ts = 1 + index as u64;
        let value = if index % 2 == 1 {
            let name = if index % 10 == 1 {
                "update_todo_list"
            } else if index % 3 == 0 {
                "write_to_file"
            } else {
                "read_file"
            };
            let input = if name == "update_todo_list" {
                let done = (index * TODOS / MESSAGES).min(TODOS);
                let list: String = (0..TODOS)
                    .map(|i| {
                        format!(
                            "[{}] {}\n",
                            if i < done {
                                "x"
                            } else if i == done {
                                "-"
                            } else {
                                " "
                            },
                            todo(i)
                        )
                    })
                    .collect();
                json!({"todos": list})
            } else {
                json!({"path": file((rng.next() % FILES as u64) as usize)})
            };
            json!({"role": "assistant", "content": [
                {"type": "text", "text": prose(&mut rng, 40)},
                {"type": "tool_use", "id": format!("t{index}"), "name": name, "input": input}
            ], "ts": ts})
        } else if index % 50 == 0 {
            let constraint = CONSTRAINTS[(index / 50) % CONSTRAINTS.len()];
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("t{}", index - 1), "content": prose(&mut rng, 20)},
                {"type": "text", "text": format!("<user_message>{}\n{constraint}</user_message>", prose(&mut rng, 24))}
            ], "ts": ts})
        } else {
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("t{}", index - 1), "content": prose(&mut rng, 150)}
            ], "ts": ts})
        };
        values.push(value);
    }
    parse_history(Value::Array(values)).unwrap().messages
});

/// The text of the span's last `<user_message>`.
fn latest_user_text() -> String {
    let text = SPAN
        .iter()
        .rev()
        .flat_map(|message| message.blocks().iter())
        .filter_map(|block| block.get("text").and_then(Value::as_str))
        .find(|text| text.starts_with("<user_message>"))
        .unwrap();
    text.trim_start_matches("<user_message>")
        .trim_end_matches("</user_message>")
        .replace('\n', " ")
}

/// A summary of about `tokens` tokens with the nine sections that keeps each file, TODO,
/// constraint and the latest message unless it loses it (with `loss_percent` chance each).
fn summary(tokens: usize, loss_percent: u64, seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut out = String::from(
        "<summary>\n1. Primary Request and Intent:\n   Port the shapes service to TypeScript.\n",
    );
    out.push_str(
        "2. Key Technical Concepts:\n   - TypeScript, canvas\n3. Files and Code Sections:\n",
    );
    for index in 0..FILES {
        if !rng.chance(loss_percent) {
            out.push_str(&format!("   - {}: {}\n", file(index), prose(&mut rng, 6)));
        }
    }
    out.push_str(
        "4. Errors and fixes:\n   - none\n5. Problem Solving:\n   done\n6. All user messages:\n",
    );
    for constraint in CONSTRAINTS {
        if !rng.chance(loss_percent) {
            out.push_str(&format!("   - {constraint}\n"));
        }
    }
    if !rng.chance(loss_percent) {
        out.push_str(&format!("   - Latest: {}\n", latest_user_text()));
    }
    out.push_str("7. Pending Tasks:\n");
    // The open items of the last list (the call at the last index ≡ 1 mod 10).
    let done = (MESSAGES - 9) * TODOS / MESSAGES;
    for index in done..TODOS {
        if !rng.chance(loss_percent) {
            out.push_str(&format!("   - {}\n", todo(index)));
        }
    }
    out.push_str("8. Current Work:\n");
    // Pad with prose to the size (about 1.5 estimated tokens per word here).
    while Estimate(Cached(&CACHE)).finish(CACHE.count_exact(&out)) < tokens {
        out.push_str(&format!("   {}\n", prose(&mut rng, 200)));
    }
    out.push_str("9. Optional Next Step:\n   Continue.\n</summary>");
    out
}

/// CPU time of the calling thread in milliseconds, from `/proc/thread-self/schedstat`.
fn thread_cpu_ms() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos: f64 = text.split_whitespace().next()?.parse().ok()?;
    Some(nanos / 1e6)
}

fn verify(summary: &str) -> (u64, u64) {
    verify_with(summary, false)
}

fn verify_with(summary: &str, show: bool) -> (u64, u64) {
    let counter = Estimate(Cached(&CACHE));
    let settings = VerifySettings::default();
    let verification = verify_summary(
        &VerifyInput {
            summary,
            messages: &SPAN,
            tracked_files: &[],
            folded_paths: &[],
            cwd: None,
            host_todos: None,
            extra_constraints: &[],
            previous_context_tokens: 500_000,
            settings: &settings,
        },
        &counter,
    );
    if show {
        for check in verification.checks.iter().filter(|c| !c.passed) {
            eprintln!(
                "  {:?}: {} missing, e.g. {:?}",
                check.id,
                check.missing_count,
                check.missing.first()
            );
        }
    }
    let addendum = build_addendum(&verification.findings, 1_000_000, &counter)
        .unwrap()
        .map_or(0, |a| a.tokens);
    let summary_tokens = counter.finish(counter.count_text(summary)) as u64;
    (addendum, summary_tokens)
}

fn main() {
    // The addendum's share over a grid of summary sizes and loss rates.
    let mut shares = Vec::new();
    eprintln!("addendum share of summary tokens (rows: summary tokens; columns: loss rate)");
    eprintln!(
        "{:>8} {:>7} {:>7} {:>7} {:>7} {:>7}",
        "tokens", "0%", "2%", "5%", "10%", "20%"
    );
    for tokens in [2_000, 5_000, 10_000, 20_000] {
        let mut row = format!("{tokens:>8}");
        for loss in [0, 2, 5, 10, 20] {
            let (addendum, summary_tokens) = verify(&summary(tokens, loss, 7 + loss));
            let share = addendum as f64 / summary_tokens as f64;
            shares.push(share);
            row.push_str(&format!(" {:>6.1}%", share * 100.0));
        }
        eprintln!("{row}");
    }
    eprintln!("what a 20k-token summary with 5% loss misses:");
    verify_with(&SUMMARY_20K, true);
    shares.sort_by(f64::total_cmp);
    eprintln!(
        "median share {:.1}% over {} summaries",
        shares[shares.len() / 2] * 100.0,
        shares.len()
    );
    // CPU time of this thread (Linux), which a loaded machine does not inflate the way it
    // inflates wall time; the kernel accounts it in ticks, so it is averaged over many runs.
    if let Some(cpu) = thread_cpu_ms() {
        let runs = 60;
        verify(&SUMMARY_20K);
        let start = thread_cpu_ms().unwrap_or(cpu);
        for _ in 0..runs {
            divan::black_box(verify(divan::black_box(&SUMMARY_20K)));
        }
        let verify_ms = (thread_cpu_ms().unwrap_or(start) - start) / runs as f64;
        let start = thread_cpu_ms().unwrap_or(cpu);
        for _ in 0..runs {
            divan::black_box(roo_context_tokens::count_exact(divan::black_box(
                &SUMMARY_20K,
            )));
        }
        let baseline_ms = (thread_cpu_ms().unwrap_or(start) - start) / runs as f64;
        eprintln!(
            "CPU time per call (mean of {runs}): verify {verify_ms:.2} ms, baseline (count the summary's tokens) {baseline_ms:.2} ms, ratio {:.1}x",
            verify_ms / baseline_ms.max(1e-9)
        );
    }
    divan::main();
}

static SUMMARY_20K: LazyLock<String> = LazyLock::new(|| summary(20_000, 5, 42));

/// Baseline: counting the summary's tokens once (exact o200k, no cache), which every condense
/// does to check the result fits.
#[divan::bench(sample_count = 30)]
fn baseline_count_summary_tokens_20k(bencher: Bencher) {
    roo_context_tokens::count_exact("warm");
    bencher.bench(|| roo_context_tokens::count_exact(divan::black_box(&SUMMARY_20K)));
}

/// Verification of a 20k-token summary over the 10,000-message span, addendum included.
#[divan::bench(sample_count = 30)]
fn verify_20k_token_summary_over_10k_messages(bencher: Bencher) {
    verify(&SUMMARY_20K); // warm the token cache
    bencher.bench(|| verify(divan::black_box(&SUMMARY_20K)));
}
