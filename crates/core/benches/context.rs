//! The sidecar's own time per `manageContext` call on a 10,000-message, ~50 MB history whose
//! host answers at once: measuring the effective history, assembling the summarize request
//! (shrinking it to the summarizer's window), and building the summary, with warm token caches.
//! Counting uses the tokens crate's cache (a dev-dependency only: the core itself never depends
//! on it). Run: `cargo bench -p roo-context-core --bench context`.

use std::sync::LazyLock;

use divan::Bencher;
use roo_context_core::context::{
    ManageInput, ManageStep, SummarizeReply, SummarizerAnswer, SummarizerInfo, ThresholdSettings,
    Trigger, begin_manage, finish_manage, report,
};
use roo_context_core::conversation::{ApiMessage, Estimate, SequentialIds, TokenCounter};
use roo_context_tokens::TokenCache;
use serde_json::json;

fn main() {
    divan::main();
}

const MESSAGES: usize = 10_000;
const TARGET_BYTES: usize = 50 * 1024 * 1024;

struct Cached<'a>(&'a TokenCache);

impl TokenCounter for Cached<'_> {
    fn count_text(&self, text: &str) -> usize {
        self.0.count_exact(text)
    }
}

/// Deterministic pseudo-random prose and code, so every message is distinct.
fn text(seed: &mut u64, bytes: usize) -> String {
    const WORDS: &[&str] = &[
        "fn",
        "let",
        "const",
        "return",
        "the",
        "context",
        "window",
        "token",
        "summary",
        "file",
        "src/lib.rs",
        "=>",
        "{",
        "}",
        "(",
        ")",
        "error",
        "value",
        "12345",
        "async",
        "await",
        "impl",
        "struct",
        "match",
        "Some",
        "None",
        "\n",
        "    ",
        "// comment",
        "path",
    ];
    let mut out = String::with_capacity(bytes + 16);
    while out.len() < bytes {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        out.push_str(WORDS[(*seed % WORDS.len() as u64) as usize]);
        out.push(' ');
    }
    out
}

static HISTORY: LazyLock<Vec<ApiMessage>> = LazyLock::new(|| {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let per_message = TARGET_BYTES / MESSAGES;
    let mut messages = Vec::with_capacity(MESSAGES);
    messages.push(
        serde_json::from_value(json!({"role": "user", "content": [{"type": "text", "text": "<task>Port the service</task>"}], "ts": 1}))
            .unwrap(),
    );
    for index in 1..MESSAGES {
        let ts = 1 + index as u64;
        let value = if index % 2 == 1 {
            json!({"role": "assistant", "content": [
                {"type": "text", "text": text(&mut seed, per_message / 4)},
                {"type": "tool_use", "id": format!("toolu_{index}"), "name": "read_file", "input": {"path": format!("src/file_{index}.rs")}}
            ], "ts": ts})
        } else {
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": format!("toolu_{}", index - 1), "content": text(&mut seed, per_message * 7 / 4)}
            ], "ts": ts})
        };
        messages.push(serde_json::from_value(value).unwrap());
    }
    messages
});

static CACHE: LazyLock<TokenCache> = LazyLock::new(|| TokenCache::with_capacity(1 << 20));

fn input() -> ManageInput {
    ManageInput {
        trigger: Trigger::Automatic,
        messages: HISTORY.clone(),
        system_prompt: "You are Roo, a coding agent.".into(),
        tools_json: None,
        context_window: 200_000,
        max_tokens: Some(8192),
        total_tokens: None,
        settings: ThresholdSettings::default(),
        custom_condensing_prompt: None,
        environment_details: Some("<environment_details>cwd</environment_details>".into()),
        folded_file_sections: Vec::new(),
        summarizer: SummarizerInfo {
            context_window: 200_000,
            max_tokens: Some(8192),
            supports_images: true,
        },
        verify: None,
        last_request: None,
        guard: None,
    }
}

fn manage(input: ManageInput) -> usize {
    let counter = Estimate(Cached(&CACHE));
    let mut ids = SequentialIds::default();
    let clock = || 1_000u64;
    let outcome = match begin_manage(input, &counter, &mut ids, &clock) {
        ManageStep::Done(outcome) => *outcome,
        ManageStep::Summarize(pending) => {
            let reply = SummarizeReply::Answer(SummarizerAnswer {
                text: "The summary.".into(),
                cost: 0.0,
                output_tokens: None,
            });
            finish_manage(*pending, reply, &counter, &mut ids, &clock)
        }
    };
    assert!(outcome.changed, "{:?}", outcome.error);
    report(&outcome).len() + outcome.messages.len()
}

/// One full automatic run (condense path) with warm caches; cloning the input is not timed.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn manage_context_10k_messages_50mb(bencher: Bencher) {
    let bytes: usize = HISTORY
        .iter()
        .map(|m| serde_json::to_string(m).unwrap().len())
        .sum();
    eprintln!(
        "history: {} messages, {:.1} MB",
        HISTORY.len(),
        bytes as f64 / 1e6
    );
    manage(input()); // warm the token cache
    bencher.with_inputs(input).bench_values(manage);
}

/// The decision alone on a cold token cache (the first `manage` in a server), nothing due:
/// with the host's `totalTokens` only the last message is counted; without it the whole
/// history is (the baseline, measured in the same run).
fn first_decision(total_tokens: Option<u64>) -> bool {
    let cold = TokenCache::with_capacity(1 << 20);
    let counter = Estimate(Cached(&cold));
    let mut run = input();
    run.total_tokens = total_tokens;
    run.context_window = 100_000_000;
    let budget = roo_context_core::context::measure_budget(&run, &counter);
    assert!(!budget.should_condense);
    budget.model_facing_tokens.is_some()
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn first_decision_cold_measuring_the_history() -> bool {
    first_decision(None)
}

#[divan::bench(sample_count = 5, sample_size = 1)]
fn first_decision_cold_with_total_tokens() -> bool {
    first_decision(Some(50_000))
}
