//! Exact, linear-time o200k_base token counting and a content cache. The original's per-block and
//! estimate rules live in one place, the core (`roo_context_core::conversation::tokens`).
//!
//! Counting goes through [`bpe_openai`]'s o200k_base tokenizer: it pre-tokenizes with the same
//! pattern as tiktoken (as a linear-time automaton) and counts each piece with a linear-time BPE
//! whose output equals tiktoken's merges. Special tokens such as `<|endoftext|>` are counted as
//! plain text, like tiktoken's `encode_ordinary` and like the original (`encode(text, undefined, [])`).
//! The tests compare every count with tiktoken-rs, the reference implementation.
//!
//! Nothing is loaded until the first count (the tables take about 0.1 s and 30+ MB to load);
//! [`warm`] loads them on a background thread.
//!
//! - [`count_exact`] / [`count_exact_till_limit`]: exact o200k_base counts of a text.
//! - [`TokenCache`]: a bounded, thread-safe cache of text counts keyed by content hash, so a growing
//!   conversation only pays for its new content.
//!
//! ## Decision: Tokens: bpe-openai counts, tiktoken-rs checks
//!
//! bpe-openai is linear on any input (tiktoken-rs is n log n on long runs and panics on a 1 MB
//! whitespace run) and its token ids equal tiktoken's; the tests prove equality with tiktoken-rs on
//! a corpus, with proptests and on long runs. The cost: a bigger binary (tables embedded) and a
//! slow build script (profile overrides halve it).

mod cache;

use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use bpe_openai::Tokenizer;

pub use cache::{CacheStats, TokenCache};

/// Set once the o200k_base tables have been loaded by anyone (a count or [`warm`]).
static LOADED: AtomicBool = AtomicBool::new(false);

/// The process-wide o200k_base tokenizer; loads it on first use.
fn o200k() -> &'static Tokenizer {
    let tokenizer = bpe_openai::o200k_base();
    LOADED.store(true, Ordering::Release);
    tokenizer
}

/// Loads the o200k_base tables on a background thread so the first real count is fast.
///
/// Call it after startup (the server does so once `initialize` has been answered). Loading is
/// idempotent and shared with on-demand loading: a count that arrives while warming waits for the
/// same load instead of starting a second one. Returns the thread's handle, or `None` when the
/// thread could not be spawned (the tables then load on first use).
pub fn warm() -> Option<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("roo-tokens-warm".to_owned())
        .spawn(|| {
            o200k();
        })
        .ok()
}

/// Whether the o200k_base tables are loaded (by a count or a finished [`warm`]).
pub fn is_loaded() -> bool {
    LOADED.load(Ordering::Acquire)
}

/// The exact o200k_base token count of `text`, equal to tiktoken's `encode_ordinary(text).len()`.
///
/// Linear time in the length of `text` whatever its shape (long runs of one character, whitespace
/// runs, base64 blobs, minified JSON). Special-token strings count as ordinary text.
pub fn count_exact(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    o200k().count(text)
}

/// `Some(count_exact(text))` when that count is at most `token_limit`, else `None`.
///
/// Stops soon after the limit is passed, so a budget check on a huge text costs about
/// `O(token_limit)` BPE work (plus scanning the first pre-token).
pub fn count_exact_till_limit(text: &str, token_limit: usize) -> Option<usize> {
    if text.is_empty() {
        return Some(0);
    }
    let tokenizer = o200k();
    tokenizer.count_till_limit(&tokenizer.normalize(text), token_limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check_exact(text: &str, expected: usize) {
        assert_eq!(count_exact(text), expected, "count_exact({text:?})");
    }

    #[test]
    fn exact_counts_of_known_texts() {
        for (text, expected) in [
            ("", 0),
            ("Hello world", 2),
            ("hello", 1),
            (" ", 1),
            ("<|endoftext|>", 7),
            ("a".repeat(8).as_str(), 1),
            ("a".repeat(16).as_str(), 2),
        ] {
            check_exact(text, expected);
        }
    }

    #[test]
    fn till_limit_agrees_with_exact_count() {
        let text = "fn main() { println!(\"hello, world\"); }\n".repeat(20);
        let exact = count_exact(&text);
        assert_eq!(count_exact_till_limit(&text, exact), Some(exact));
        assert_eq!(count_exact_till_limit(&text, exact + 100), Some(exact));
        assert_eq!(count_exact_till_limit(&text, exact - 1), None);
        assert_eq!(count_exact_till_limit(&text, 0), None);
        assert_eq!(count_exact_till_limit("", 0), Some(0));
    }

    #[test]
    fn warm_loads_the_tables() {
        let handle = warm().expect("spawn warm thread");
        handle.join().expect("warm thread did not panic");
        assert!(is_loaded());
    }
}
