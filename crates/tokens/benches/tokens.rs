//! Throughput of exact o200k_base counting next to tiktoken-rs (the reference): 10 MB of mixed
//! text, 10 MB runs of one character, base64, and a cached recount of a growing conversation.
//!
//! `cargo bench -p roo-context-tokens`. Set `ROO_TOKENS_BENCH_FILE=path` to count a real file
//! (for instance `../shared/bench`'s `corpus/bigtext/mixed_10mb.txt`) instead of generated text.

use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::BytesCount;
use roo_context_tokens::{TokenCache, count_exact};

const TEN_MIB: usize = 10 * 1024 * 1024;

fn main() {
    // Load both tokenizers before timing anything.
    count_exact("warm");
    tiktoken_rs::o200k_base_singleton().encode_ordinary("warm");
    let (ours, reference) = (count_exact(&MIXED), tiktoken_rs_count(&MIXED));
    eprintln!(
        "mixed text: {} bytes ({}), {ours} tokens (tiktoken-rs: {reference})",
        MIXED.len(),
        std::env::var("ROO_TOKENS_BENCH_FILE").unwrap_or_else(|_| "generated".to_owned())
    );
    assert_eq!(ours, reference, "counts differ from the reference");
    divan::main();
}

/// Deterministic pseudo-random numbers (SplitMix64).
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

/// 10 MiB of source-like text (Rust, TypeScript, Python, Markdown, JSON, a little CJK and emoji),
/// or the file named by `ROO_TOKENS_BENCH_FILE`.
static MIXED: LazyLock<String> = LazyLock::new(|| {
    if let Ok(path) = std::env::var("ROO_TOKENS_BENCH_FILE") {
        return std::fs::read_to_string(&path).expect("ROO_TOKENS_BENCH_FILE is readable UTF-8");
    }
    const WORDS: &[&str] = &[
        "request", "context", "token", "buffer", "message", "history", "parse", "value", "index",
        "result", "error", "config", "handler", "stream", "window", "summary", "tool", "file",
    ];
    let mut rng = SplitMix(42);
    let mut out = String::with_capacity(TEN_MIB + 4096);
    while out.len() < TEN_MIB {
        let a = WORDS[rng.below(WORDS.len())];
        let b = WORDS[rng.below(WORDS.len())];
        let n = rng.below(10_000);
        let line = match rng.below(9) {
            0 => format!(
                "pub fn {a}_{b}(&self, {a}: &str) -> Result<usize, Error> {{\n    let {b} = self.{a}.get({n})?;\n    Ok({b}.len())\n}}\n\n"
            ),
            1 => format!(
                "export async function {a}{b}({a}: string): Promise<number> {{\n\treturn await this.{b}.count({a}, {n});\n}}\n"
            ),
            2 => format!(
                "def {a}_{b}(self, {a}):\n    \"\"\"Return the {b} of {a}.\"\"\"\n    return self._{b}[{a}] + {n}\n\n"
            ),
            3 => format!(
                "The {a} is passed to the {b} before the {a} window fills; see issue #{n}.\n"
            ),
            4 => format!("{{\"{a}\":{n},\"{b}\":[\"{a}\",\"{b}\",{n}],\"ok\":true}}\n"),
            5 => format!("## {a} and {b}\n\n- `{a}` — the {b} ({n} items)\n"),
            6 => format!("    // TODO({a}): handle {b} overflow when len > {n}\n"),
            7 => format!("トークン数を数える {a} 関数。 上下文窗口 {n} 😀\n"),
            _ => format!("    if {a}.{b}().is_some() && {n} > 0 {{ return; }}\n"),
        };
        out.push_str(&line);
    }
    out
});

static RUN_OF_A: LazyLock<String> = LazyLock::new(|| "a".repeat(TEN_MIB));
static RUN_OF_SPACES: LazyLock<String> = LazyLock::new(|| " ".repeat(TEN_MIB));
static RUN_OF_A_1MIB: LazyLock<String> = LazyLock::new(|| "a".repeat(1024 * 1024));
static BASE64_10MIB: LazyLock<String> = LazyLock::new(|| {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut rng = SplitMix(7);
    (0..TEN_MIB).map(|_| B64[rng.below(64)] as char).collect()
});

fn bench_count(bencher: Bencher, text: &'static str, count: fn(&str) -> usize) {
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| count(divan::black_box(text)));
}

fn tiktoken_rs_count(text: &str) -> usize {
    tiktoken_rs::o200k_base_singleton()
        .encode_ordinary(text)
        .len()
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn mixed_10mib_ours(bencher: Bencher) {
    bench_count(bencher, &MIXED, count_exact);
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn mixed_10mib_tiktoken_rs(bencher: Bencher) {
    bench_count(bencher, &MIXED, tiktoken_rs_count);
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn run_of_a_10mib_ours(bencher: Bencher) {
    bench_count(bencher, &RUN_OF_A, count_exact);
}

#[divan::bench(sample_count = 3, sample_size = 1)]
fn run_of_a_1mib_tiktoken_rs(bencher: Bencher) {
    bench_count(bencher, &RUN_OF_A_1MIB, tiktoken_rs_count);
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn run_of_spaces_10mib_ours(bencher: Bencher) {
    bench_count(bencher, &RUN_OF_SPACES, count_exact);
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn base64_10mib_ours(bencher: Bencher) {
    bench_count(bencher, &BASE64_10MIB, count_exact);
}

/// Recounting a 10 MiB conversation of ~2,000 messages after one message was appended: every
/// message but the new one comes from the cache.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn cached_recount_after_append(bencher: Bencher) {
    let messages: Vec<&str> = MIXED
        .as_bytes()
        .chunks(5_000)
        .map(|chunk| std::str::from_utf8(chunk).unwrap_or("not utf-8 at a cut"))
        .collect();
    let cache = TokenCache::default();
    let total: usize = messages.iter().map(|m| cache.count_exact(m)).sum();
    let mut turn = 0usize;
    bencher
        .counter(BytesCount::new(MIXED.len()))
        .bench_local(|| {
            turn += 1;
            let appended = format!("new message {turn}: the tool output follows\n");
            let recount: usize = messages.iter().map(|m| cache.count_exact(m)).sum::<usize>()
                + cache.count_exact(&appended);
            assert!(recount > total);
        });
}
