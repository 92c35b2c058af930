//! Issue 30's measurements (a benchmark, not a test: it prints the figures BENCHMARKS.md
//! quotes). Run: `cargo run --release -p roo-context-core --example prompt_cache`.
//!
//! Part 1, prefix share. A test host records the agent's last request and the condense request
//! as the bytes a provider receives (Anthropic's Messages JSON and OpenAI's Chat Completions
//! JSON, serialized by the same code for both requests), for agent-shaped histories of 20k to
//! 180k tokens (the sidecar's count, `estimate` mode). The share is the o200k tokens of the
//! longest byte-identical prefix of both bodies over the tokens of the condense body.
//!
//! Part 2, replay. 100 agent requests at a 5-minute cadence (TTL 5 minutes) over a history
//! that grows past a 200k window, run once with today's behaviour (standalone condense) and
//! once with the issue's (continuation, cache clock, deferral). Each request is billed as the
//! provider would: the message prefix it shares with the previous request read at 0.1×, the
//! rest written at 1.25×; a standalone condense request is written at 1.25× (the Roo family's
//! Anthropic handler marks breakpoints on every call; the 1.0× figure is printed too), a
//! continuation reads its replay at 0.1× and pays its appended messages at 1.0× (no
//! breakpoint on them). Every change's `cacheImpact` is checked against the prefix change
//! measured between the two requests around it, by the same counter.

use std::sync::LazyLock;

use roo_context_core::context::{
    CacheClock, CacheImpact, CacheOptions, ContextAction, DeferPolicy, ManageInput, ManageStep,
    RequestShapeKind, SUMMARY_PROMPT, SummarizeReply, SummarizerAnswer, SummarizerInfo,
    ThresholdSettings, Trigger, begin_manage_with, finish_manage,
};
use roo_context_core::conversation::{
    ApiMessage, Estimate, SequentialIds, TokenCounter, effective_api_history, message_tokens,
    role_and_content_only,
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

const WINDOW: u64 = 200_000;
const MAX_TOKENS: i64 = 8192;

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

    fn words(&mut self, count: usize) -> String {
        const WORDS: &[&str] = &[
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
            "fn",
            "let",
            "const",
            "return",
            "error",
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
        ];
        let mut out = String::new();
        for _ in 0..count {
            out.push_str(WORDS[(self.next() % WORDS.len() as u64) as usize]);
            out.push(' ');
        }
        out
    }
}

/// A Roo-sized system prompt and tool list (about 6k and 3k o200k tokens).
static SYSTEM: LazyLock<String> = LazyLock::new(|| Rng(7).words(4_500));
static TOOLS: LazyLock<Vec<Value>> = LazyLock::new(|| {
    let mut rng = Rng(11);
    (0..14)
        .map(|i| {
            json!({"name": format!("tool_{i}"), "description": rng.words(100),
                   "input_schema": {"type": "object", "properties": {"path": {"type": "string", "description": rng.words(30)}}, "required": ["path"]}})
        })
        .collect()
});

fn message(value: Value) -> ApiMessage {
    serde_json::from_value(value).unwrap()
}

/// One agent turn: the assistant's text and tool call, then the tool result with environment
/// details.
fn turn(rng: &mut Rng, index: usize, ts: u64) -> [ApiMessage; 2] {
    turn_scaled(rng, index, ts, 1)
}

/// [`turn`] with tool results `scale` times as long (reads of whole files).
fn turn_scaled(rng: &mut Rng, index: usize, ts: u64, scale: usize) -> [ApiMessage; 2] {
    let id = format!("toolu_{index:05}");
    let tools = ["read_file", "execute_command", "apply_diff", "search_files"];
    let name = tools[rng.range(0, tools.len())];
    let result_words = match rng.range(0, 10) {
        0..=5 => rng.range(300, 1500),
        6..=8 => rng.range(1500, 4000),
        _ => rng.range(4000, 9000),
    } * scale;
    let words = rng.range(20, 150);
    [
        message(json!({"role": "assistant", "content": [
            {"type": "text", "text": rng.words(words)},
            {"type": "tool_use", "id": id, "name": name, "input": {"path": format!("src/module_{}.rs", rng.range(0, 400))}}
        ], "ts": ts})),
        message(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": id, "content": [{"type": "text", "text": rng.words(result_words)}]},
            {"type": "text", "text": format!("<environment_details>\n# Current Time\n{ts}\n# Open Tabs\nsrc/module_{}.rs\n</environment_details>", rng.range(0, 400))}
        ], "ts": ts + 1})),
    ]
}

fn task(ts: u64) -> ApiMessage {
    message(json!({"role": "user", "content": [
        {"type": "text", "text": "<task>Port the request handler to the new cache API and keep the tests green.</task> <command name=\"review\">Review every diff before applying it.</command>"}
    ], "ts": ts}))
}

fn fixed_tokens() -> u64 {
    let tools = Value::Array(TOOLS.clone()).to_string();
    (COUNTER.finish(COUNTER.count_text(&SYSTEM)) + COUNTER.finish(COUNTER.count_text(&tools)))
        as u64
}

fn input(trigger: Trigger, messages: Vec<ApiMessage>) -> ManageInput {
    input_at(trigger, messages, 100.0)
}

fn input_at(trigger: Trigger, messages: Vec<ApiMessage>, percent: f64) -> ManageInput {
    ManageInput {
        trigger,
        messages,
        system_prompt: SYSTEM.clone(),
        tools_json: Some(Value::Array(TOOLS.clone()).to_string()),
        context_window: WINDOW,
        max_tokens: Some(MAX_TOKENS),
        total_tokens: None,
        settings: ThresholdSettings {
            auto_condense_context_percent: percent,
            ..ThresholdSettings::default()
        },
        custom_condensing_prompt: None,
        environment_details: None,
        folded_file_sections: Vec::new(),
        summarizer: SummarizerInfo {
            context_window: WINDOW,
            max_tokens: Some(MAX_TOKENS),
            supports_images: false,
        },
        verify: None,
        last_request: None,
        guard: None,
    }
}

/// The model-facing messages of a stored history (what the host sends).
fn sent(messages: &[ApiMessage]) -> Vec<ApiMessage> {
    effective_api_history(messages)
        .messages
        .iter()
        .map(|m| role_and_content_only(m))
        .collect()
}

fn wire(messages: &[ApiMessage]) -> Vec<Value> {
    messages
        .iter()
        .map(|m| Value::Object(m.fields.clone()))
        .collect()
}

/// Anthropic's Messages body; breakpoints on the system prompt and the last block of the last
/// two user messages of `marked` (the Roo family's handler), none on `appended`.
fn anthropic_body(system: &str, tools: bool, marked: &[Value], appended: &[Value]) -> String {
    let mut messages: Vec<Value> = marked.to_vec();
    let users: Vec<usize> = (0..messages.len())
        .filter(|&i| messages[i]["role"] == "user")
        .collect();
    for &i in users.iter().rev().take(2) {
        if let Some(Value::Array(blocks)) = messages[i].get_mut("content")
            && let Some(last) = blocks.last_mut()
        {
            last["cache_control"] = json!({"type": "ephemeral"});
        }
    }
    messages.extend(appended.iter().cloned());
    let mut body = json!({"model": "claude-sonnet-4-5", "max_tokens": MAX_TOKENS,
        "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}]});
    if tools {
        body["tools"] = Value::Array(TOOLS.clone());
        body["tool_choice"] = json!({"type": "auto"});
    }
    body["messages"] = Value::Array(messages);
    body["stream"] = json!(true);
    body.to_string()
}

/// OpenAI's Chat Completions body (tools before messages, as the SDK sends what it is given),
/// messages converted one by one.
fn openai_body(system: &str, tools: bool, messages: &[Value]) -> String {
    let mut out = vec![json!({"role": "system", "content": system})];
    for message in messages {
        let role = message["role"].as_str().unwrap_or("user");
        let blocks = match &message["content"] {
            Value::String(text) => vec![json!({"type": "text", "text": text})],
            Value::Array(blocks) => blocks.clone(),
            _ => Vec::new(),
        };
        let texts: Vec<Value> = blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .map(|b| json!({"type": "text", "text": b["text"]}))
            .collect();
        if role == "assistant" {
            let calls: Vec<Value> = blocks
                .iter()
                .filter(|b| b["type"] == "tool_use")
                .map(|b| json!({"id": b["id"], "type": "function", "function": {"name": b["name"], "arguments": b["input"].to_string()}}))
                .collect();
            let text: Vec<&str> = texts.iter().filter_map(|t| t["text"].as_str()).collect();
            let mut converted = json!({"role": "assistant", "content": text.join("\n")});
            if !calls.is_empty() {
                converted["tool_calls"] = Value::Array(calls);
            }
            out.push(converted);
        } else {
            for result in blocks.iter().filter(|b| b["type"] == "tool_result") {
                out.push(json!({"role": "tool", "tool_call_id": result["tool_use_id"], "content": result["content"].to_string()}));
            }
            if !texts.is_empty() {
                out.push(json!({"role": "user", "content": texts}));
            }
        }
    }
    let mut body = json!({"model": "gpt-5"});
    if tools {
        body["tools"] = Value::Array(
            TOOLS
                .iter()
                .map(|t| json!({"type": "function", "function": {"name": t["name"], "description": t["description"], "parameters": t["input_schema"]}}))
                .collect(),
        );
        body["tool_choice"] = json!("auto");
    }
    body["messages"] = Value::Array(out);
    body["stream"] = json!(true);
    body.to_string()
}

/// o200k tokens of the longest byte-identical prefix of `last` and `condense`, over the tokens
/// of `condense`.
fn prefix_share(last: &str, condense: &str) -> f64 {
    let mut common = last
        .bytes()
        .zip(condense.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !condense.is_char_boundary(common) {
        common -= 1;
    }
    roo_context_tokens::count_exact(&condense[..common]) as f64
        / roo_context_tokens::count_exact(condense) as f64
}

fn summary_answer() -> SummarizeReply {
    SummarizeReply::Answer(SummarizerAnswer {
        text: Rng(99).words(1_000),
        cost: 0.0,
        output_tokens: None,
    })
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

fn part_one() {
    println!("## Part 1: prefix share of the condense request\n");
    println!(
        "System prompt and tools: {} sidecar tokens.\n",
        fixed_tokens()
    );
    println!(
        "| history (sidecar tokens) | request shape | Anthropic share | OpenAI share | condense body (o200k) |"
    );
    println!("|---:|---|---:|---:|---:|");
    let (mut anthropic, mut openai, mut fallbacks, mut runs) = (Vec::new(), Vec::new(), 0, 0);
    let fixed = fixed_tokens();
    for (seed, target) in (20_000u64..=180_000)
        .step_by(10_000)
        .enumerate()
        .flat_map(|(i, t)| [(i * 2, t), (i * 2 + 1, t)])
    {
        let mut rng = Rng(1000 + seed as u64);
        let mut history = vec![task(1)];
        let mut total = fixed + message_tokens(&history[0], &COUNTER) as u64;
        let mut index = 0;
        while total < target || history.len() < 3 {
            for m in turn(&mut rng, index, 10 + 2 * index as u64) {
                total += message_tokens(&m, &COUNTER) as u64;
                history.push(m);
            }
            index += 1;
        }
        // The agent's last request held everything but the newest turn (its reply and the
        // tool result came after it).
        let last_request = sent(&history[..history.len() - 2]);
        let cache = CacheOptions {
            prefix_reuse: Some(Some(last_request.len())),
            ..CacheOptions::default()
        };
        let mut ids = SequentialIds::default();
        let clock = || 1_000u64;
        let ManageStep::Summarize(pending) = begin_manage_with(
            input(Trigger::Manual, history.clone()),
            cache,
            &COUNTER,
            &mut ids,
            &clock,
        ) else {
            panic!("a manual run asks for a summary");
        };
        let request = &pending.request;
        runs += 1;
        let last_wire = wire(&last_request);
        let last_a = anthropic_body(&SYSTEM, true, &last_wire, &[]);
        let last_o = openai_body(&SYSTEM, true, &last_wire);
        let (condense_a, condense_o) = match request.shape {
            RequestShapeKind::Continuation => {
                assert_eq!(request.replay.unwrap().0, last_request.len());
                let appended = wire(&request.messages);
                let mut all = last_wire.clone();
                all.extend(appended.iter().cloned());
                (
                    anthropic_body(&SYSTEM, true, &last_wire, &appended),
                    openai_body(&SYSTEM, true, &all),
                )
            }
            RequestShapeKind::Standalone => {
                fallbacks += 1;
                let messages = wire(&request.messages);
                (
                    anthropic_body(SUMMARY_PROMPT, false, &messages, &[]),
                    openai_body(SUMMARY_PROMPT, false, &messages),
                )
            }
        };
        let (a, o) = (
            prefix_share(&last_a, &condense_a),
            prefix_share(&last_o, &condense_o),
        );
        anthropic.push(a);
        openai.push(o);
        println!(
            "| {target} | {:?} | {a:.4} | {o:.4} | {} |",
            request.shape,
            roo_context_tokens::count_exact(&condense_a)
        );
    }
    println!(
        "\n{runs} histories: median share Anthropic {:.4}, OpenAI {:.4}; minimum {:.4} / {:.4}; fallback rate {:.1} % ({fallbacks} of {runs}).\n",
        median(&mut anthropic.clone()),
        median(&mut openai.clone()),
        anthropic.iter().cloned().fold(f64::MAX, f64::min),
        openai.iter().cloned().fold(f64::MAX, f64::min),
        100.0 * fallbacks as f64 / runs as f64
    );
}

/// Tokens of model-facing messages by the run's counter.
fn tokens_of(messages: &[ApiMessage]) -> u64 {
    messages
        .iter()
        .map(|m| message_tokens(m, &COUNTER) as u64)
        .sum()
}

#[derive(Default)]
struct Replay {
    billed: f64,
    billed_plain_condense: f64,
    condenses: usize,
    continuations: usize,
    breaks_outside_condense: usize,
    breaks_at_condense: usize,
    changes: usize,
    impact_mismatches: usize,
    deferred: usize,
}

fn replay(issue30: bool, percent: f64, scale: usize) -> Replay {
    const CADENCE_MS: u64 = 300_000;
    let fixed = fixed_tokens();
    let mut rng = Rng(4242);
    let mut history = vec![task(1)];
    let mut previous: Vec<ApiMessage> = Vec::new();
    let mut last_request_at = None;
    let mut out = Replay::default();
    let mut ids = SequentialIds::default();
    for request in 0..100u64 {
        let now = 1_000_000 + request * CADENCE_MS;
        if request > 0 {
            let index = history.len();
            history.extend(turn_scaled(&mut rng, index, now - 1000, scale));
        }
        let cache = if issue30 {
            CacheOptions {
                clock: CacheClock {
                    last_request_at_ms: last_request_at,
                    ttl_ms: Some(CADENCE_MS),
                },
                defer: Some(DeferPolicy::default()),
                prefix_reuse: Some(Some(previous.len())),
                ..CacheOptions::default()
            }
        } else {
            CacheOptions::default()
        };
        let before = sent(&history);
        let clock = move || now;
        let outcome = match begin_manage_with(
            input_at(Trigger::Automatic, history.clone(), percent),
            cache,
            &COUNTER,
            &mut ids,
            &clock,
        ) {
            ManageStep::Done(outcome) => *outcome,
            ManageStep::Summarize(pending) => {
                let r = &pending.request;
                let appended = tokens_of(&r.messages) as f64;
                match r.shape {
                    RequestShapeKind::Continuation => {
                        let (n, replay_tokens) = r.replay.unwrap();
                        assert_eq!(
                            sent(&history)[..n],
                            previous[..],
                            "the replay is the last request"
                        );
                        out.continuations += 1;
                        let cost = replay_tokens as f64 * 0.1 + appended;
                        out.billed += cost;
                        out.billed_plain_condense += cost;
                    }
                    RequestShapeKind::Standalone => {
                        out.billed += r.request_tokens as f64 * 1.25;
                        out.billed_plain_condense += r.request_tokens as f64;
                    }
                }
                finish_manage(*pending, summary_answer(), &COUNTER, &mut ids, &clock)
            }
        };
        if outcome.deferred.is_some() {
            out.deferred += 1;
        }
        if outcome.changed {
            history = outcome.messages.clone();
        }
        let now_sent = sent(&history);
        // The provider's view: the message prefix shared with the previous request.
        let first = previous
            .iter()
            .zip(now_sent.iter())
            .position(|(a, b)| a != b)
            .unwrap_or(previous.len().min(now_sent.len()));
        let warm = last_request_at.is_some_and(|at| now - at <= CADENCE_MS);
        let kept = fixed + tokens_of(&now_sent[..first]);
        let rest = tokens_of(&now_sent[first..]);
        let cost = if warm && request > 0 {
            kept as f64 * 0.1 + rest as f64 * 1.25
        } else {
            (kept + rest) as f64 * 1.25
        };
        out.billed += cost;
        out.billed_plain_condense += cost;
        if first < previous.len() {
            match outcome.action {
                ContextAction::Condensed => out.breaks_at_condense += 1,
                _ => out.breaks_outside_condense += 1,
            }
        }
        if outcome.changed {
            out.changes += 1;
            if outcome.action == ContextAction::Condensed {
                out.condenses += 1;
            }
            let impact: CacheImpact = outcome.cache_impact.expect("every change is priced");
            // Measured against what this request would have been without the change.
            let unchanged_first = before
                .iter()
                .zip(now_sent.iter())
                .position(|(a, b)| a != b)
                .unwrap_or(before.len().min(now_sent.len()));
            let measured = (
                unchanged_first,
                fixed + tokens_of(&before[..unchanged_first]),
                tokens_of(&now_sent[unchanged_first..]),
                (fixed + tokens_of(&before)).saturating_sub(fixed + tokens_of(&now_sent)),
            );
            let reported = (
                impact.first_changed_index,
                impact.kept_prefix_tokens,
                impact.rewrite_tokens,
                impact.saved_tokens_per_request,
            );
            if measured != reported {
                out.impact_mismatches += 1;
                eprintln!("request {request}: measured {measured:?}, cacheImpact {reported:?}");
            }
        }
        previous = now_sent;
        last_request_at = Some(now);
    }
    out
}

fn part_two() {
    println!("## Part 2: replay of 100 requests at a 5-minute cadence\n");
    println!(
        "| tool results | condense threshold | behaviour | billed input (token units) | with today's condense at 1.0× | condenses | continuations | prefix breaks at condense | outside condense | deferred | cacheImpact mismatches |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut lines = Vec::new();
    for (scale, percent) in [(1, 100.0), (1, 75.0), (1, 50.0), (2, 100.0), (2, 75.0)] {
        let reads = if scale == 1 {
            "moderate"
        } else {
            "whole files (2×)"
        };
        let today = replay(false, percent, scale);
        let issue = replay(true, percent, scale);
        for (name, r) in [("today", &today), ("issue 30", &issue)] {
            println!(
                "| {reads} | {percent} % | {name} | {:.0} | {:.0} | {} | {} | {} | {} | {} | {} of {} |",
                r.billed,
                r.billed_plain_condense,
                r.condenses,
                r.continuations,
                r.breaks_at_condense,
                r.breaks_outside_condense,
                r.deferred,
                r.impact_mismatches,
                r.changes
            );
        }
        lines.push(format!(
            "{reads} tool results, threshold {percent} %: billed input {:.1} % below today's ({:.1} % when today's condense is billed at 1.0×)",
            100.0 * (1.0 - issue.billed / today.billed),
            100.0 * (1.0 - issue.billed_plain_condense / today.billed_plain_condense)
        ));
    }
    println!();
    for line in lines {
        println!("{line}.");
    }
}

fn main() {
    part_one();
    part_two();
}
