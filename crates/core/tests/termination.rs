//! Termination as a property (issue 32): 10,000 seeded cases of a task that keeps adding tool
//! batches and asks for automatic, manual and emergency management, with summarizers that answer
//! empty, echo their input, answer oversized, time out, fail, or answer a tool call instead of
//! text, and a calibrated counter with random ratios. Deterministic (a fixed-seed generator, no
//! shrinking needed to reproduce: the failing case's seed is printed), bounded in time.
//!
//! Properties, each checked on every run:
//! - no result is larger than its input (model-facing tokens, counted by the same counter);
//! - at most one summarize call and one retry per run;
//! - an automatic run asks for a summary only once the context grew by
//!   `max(5 % of the window, 4096)` since the last change;
//! - after an emergency that changed the history, the next request is at most half the window.

use roo_context_core::context::calibrate::{Calibrated, Calibration, ClassRatio};
use roo_context_core::context::verify::{OnFail, VerifySettings};
use roo_context_core::context::*;
use roo_context_core::conversation::{ApiMessage, Role, SequentialIds, TokenCounter};
use serde_json::{Value, json};

const CASES: u64 = 10_000;
const STEPS_PER_CASE: usize = 3;

/// xorshift64*: small, seeded, the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// One character per token before calibration, so sizes are easy to steer.
fn exact(text: &str) -> usize {
    text.len()
}

fn clock() -> u64 {
    1_000_000
}

#[derive(Clone, Copy, Debug)]
enum Summarizer {
    Good,
    Empty,
    Echo,
    Oversized,
    Slow,
    Erroring,
    ToolCall,
}

fn summarizer(rng: &mut Rng) -> Summarizer {
    match rng.below(7) {
        0 => Summarizer::Good,
        1 => Summarizer::Empty,
        2 => Summarizer::Echo,
        3 => Summarizer::Oversized,
        4 => Summarizer::Slow,
        5 => Summarizer::Erroring,
        _ => Summarizer::ToolCall,
    }
}

fn request_text(request: &CondenseRequest) -> String {
    request
        .messages
        .iter()
        .map(|message| {
            message
                .fields
                .get("content")
                .map(Value::to_string)
                .unwrap_or_default()
        })
        .collect()
}

fn reply(behaviour: Summarizer, request: &CondenseRequest, rng: &mut Rng) -> SummarizeReply {
    let answer = |text: String| {
        SummarizeReply::Answer(SummarizerAnswer {
            text,
            cost: 0.01,
            output_tokens: None,
        })
    };
    match behaviour {
        Summarizer::Good => answer(format!(
            "1. Primary Request and Intent: {}",
            "s".repeat(rng.below(2000) as usize)
        )),
        Summarizer::Empty => answer(String::new()),
        Summarizer::Echo => answer(request_text(request)),
        Summarizer::Oversized => answer(request_text(request).repeat(2)),
        Summarizer::Slow => SummarizeReply::TimedOut { after_ms: 10 },
        Summarizer::Erroring => SummarizeReply::Failed {
            error: Box::new(HostError {
                message: "500".into(),
                ..HostError::default()
            }),
            cost: 0.0,
        },
        Summarizer::ToolCall => {
            answer(r#"<tool_use name="read_file">{"path": "src/lib.rs"}</tool_use>"#.to_owned())
        }
    }
}

fn text_message(role: Role, size: usize, fill: char) -> ApiMessage {
    ApiMessage::new(role, Value::String(fill.to_string().repeat(size.max(1))))
}

fn tool_batch(rng: &mut Rng, window: u64) -> Vec<ApiMessage> {
    let mut batch = Vec::new();
    for index in 0..=rng.below(3) {
        let id = format!("call-{}-{index}", rng.next() % 1000);
        let size = rng.below(window * 12 / 100) as usize + 1;
        batch.push(
            serde_json::from_value(json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": id, "name": "read_file", "input": {"path": "a.rs"}}]}))
            .unwrap(),
        );
        batch.push(
            serde_json::from_value(json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": id, "content": "r".repeat(size)}]}))
            .unwrap(),
        );
    }
    if rng.chance(50) {
        batch.push(text_message(Role::User, rng.below(400) as usize, 'u'));
    }
    batch
}

fn calibration(rng: &mut Rng) -> Calibration {
    let mut calibration = Calibration::of_family("default");
    calibration.classes = [0; 5].map(|_| ClassRatio {
        ratio: 0.8 + rng.below(80) as f64 / 100.0,
        weight: 0.0,
    });
    calibration
}

struct Run {
    outcome: ManageOutcome,
    calls: u32,
}

/// What the server does: begin, ask the host, the one retry when offered, finish.
fn run(
    input: ManageInput,
    behaviour: Summarizer,
    counter: &dyn TokenCounter,
    rng: &mut Rng,
) -> Run {
    let mut ids = SequentialIds {
        prefix: "id".into(),
        issued: 0,
    };
    match begin_manage(input, counter, &mut ids, &clock) {
        ManageStep::Done(outcome) => Run {
            outcome: *outcome,
            calls: 0,
        },
        ManageStep::Summarize(pending) => {
            let mut pending = *pending;
            let mut calls = 1;
            let mut answer = reply(behaviour, &pending.request, rng);
            if let SummarizeReply::Answer(first) = &answer
                && let Some((message, tokens)) = retry_request(&pending, first, counter)
            {
                calls += 1;
                pending.request.messages.push(message);
                pending.request.request_tokens = tokens;
                pending.retries = 1;
                pending.first_answer = Some(first.clone());
                answer = reply(behaviour, &pending.request, rng);
            }
            Run {
                outcome: finish_manage(pending, answer, counter, &mut ids, &clock),
                calls,
            }
        }
    }
}

/// How often each path ran, so the properties cannot pass by never being exercised.
#[derive(Default, Debug)]
struct Coverage {
    summarize_calls: u64,
    retries: u64,
    blocked_by_guard: u64,
    emergency_changes: u64,
    condensed: u64,
    truncated: u64,
}

fn check_case(seed: u64, coverage: &mut Coverage) -> Result<(), String> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let window = [8_192u64, 8_192, 16_384, 16_384, 32_768][rng.below(5) as usize];
    let calibration = calibration(&mut rng);
    let counter = Calibrated {
        inner: &exact,
        calibration: &calibration,
    };
    let mut messages = vec![text_message(Role::User, 200, 't')];
    let mut guard = ProgressGuard::default();
    let mut last_request: Option<LastRequest> = None;
    for step in 0..STEPS_PER_CASE {
        messages.extend(tool_batch(&mut rng, window));
        let trigger = match rng.below(10) {
            0 => Trigger::Manual,
            1 | 2 => Trigger::Emergency,
            _ => Trigger::Automatic,
        };
        let behaviour = summarizer(&mut rng);
        let verify = rng.chance(20).then(|| VerifyConfig {
            settings: VerifySettings {
                on_fail: OnFail::RetryThenRepair,
                ..VerifySettings::default()
            },
            ..VerifyConfig::default()
        });
        let fixed = counter.count_text("system prompt") as u64;
        let before = model_facing_tokens(&messages, fixed, &counter);
        let input = ManageInput {
            trigger,
            messages: messages.clone(),
            system_prompt: "system prompt".into(),
            tools_json: None,
            context_window: window,
            max_tokens: Some((window / 10) as i64),
            total_tokens: None,
            settings: ThresholdSettings {
                auto_condense_context_percent: 50.0 + rng.below(50) as f64,
                ..ThresholdSettings::default()
            },
            custom_condensing_prompt: None,
            environment_details: None,
            folded_file_sections: vec![],
            summarizer: SummarizerInfo {
                context_window: window,
                max_tokens: Some((window / 10) as i64),
                supports_images: false,
            },
            verify,
            last_request,
            guard: Some(guard),
        };
        let Run { outcome, calls } = run(input, behaviour, &counter, &mut rng);
        coverage.summarize_calls += u64::from(calls);
        coverage.retries += u64::from(calls == 2);
        let due = outcome.budget.context_percent >= outcome.budget.threshold
            || outcome.budget.over_budget;
        coverage.blocked_by_guard += u64::from(trigger == Trigger::Automatic && calls == 0 && due);
        coverage.emergency_changes += u64::from(trigger == Trigger::Emergency && outcome.changed);
        coverage.condensed += u64::from(outcome.action == ContextAction::Condensed);
        coverage.truncated += u64::from(outcome.action == ContextAction::Truncated);
        let context =
            || format!("seed {seed} step {step} {trigger:?} {behaviour:?} window {window}");
        if calls > 2 || (calls == 2 && outcome.verification.as_ref().map(|v| v.retries) != Some(1))
        {
            return Err(format!("{}: {calls} summarize calls", context()));
        }
        if trigger == Trigger::Automatic && calls > 0 {
            let grown = outcome
                .prev_context_tokens
                .saturating_sub(guard.tokens_after_last_change);
            if grown < min_growth_tokens(window) {
                return Err(format!("{}: re-triggered after {grown} tokens", context()));
            }
        }
        let after = if outcome.changed {
            model_facing_tokens(&outcome.messages, fixed, &counter)
        } else {
            if outcome.messages != messages {
                return Err(format!(
                    "{}: unchanged outcome with other messages",
                    context()
                ));
            }
            before
        };
        if after > before {
            return Err(format!(
                "{}: result {after} larger than input {before}",
                context()
            ));
        }
        if outcome.changed && after >= before {
            return Err(format!("{}: a change that saved nothing", context()));
        }
        // The next request is what the change left: at most half the window after an emergency.
        if trigger == Trigger::Emergency && outcome.changed && after > window / 2 {
            return Err(format!(
                "{}: after an emergency {after} > half of {window}",
                context()
            ));
        }
        guard = outcome.next_guard(guard);
        messages = outcome.messages;
        // The host sends the request; the provider counts what the sidecar's calibration says.
        last_request = Some(LastRequest {
            input_tokens: model_facing_tokens(&messages, fixed, &counter).max(1),
            message_count: messages.len(),
        });
    }
    Ok(())
}

/// Half the cases each, so the two test threads share them.
#[test]
fn first_half_of_the_termination_cases_has_no_violation() {
    check_cases(0..CASES / 2);
}

#[test]
fn second_half_of_the_termination_cases_has_no_violation() {
    check_cases(CASES / 2..CASES);
}

fn check_cases(seeds: std::ops::Range<u64>) {
    let mut coverage = Coverage::default();
    let count = seeds.end - seeds.start;
    let violations: Vec<String> = seeds
        .filter_map(|seed| check_case(seed, &mut coverage).err())
        .collect();
    assert!(
        violations.is_empty(),
        "{} of {count} cases violated a property; first: {:?}",
        violations.len(),
        violations.first()
    );
    eprintln!("{coverage:?}");
    assert!(coverage.summarize_calls > 500, "{coverage:?}");
    assert!(coverage.retries > 10, "{coverage:?}");
    assert!(coverage.blocked_by_guard > 50, "{coverage:?}");
    assert!(coverage.emergency_changes > 50, "{coverage:?}");
    assert!(
        coverage.condensed > 50 && coverage.truncated > 50,
        "{coverage:?}"
    );
}

/// The issue's replay at the core: the provider counted 89,600 tokens (70 % of 128k) for the
/// last request, then a 40k-token tool batch and a short message were stored. With
/// `total_tokens` (today) only the last message is added and nothing is due; with
/// `last_request` the whole batch is, and the summary is asked for before the batch is sent.
#[test]
fn a_40k_tool_batch_at_70_percent_of_128k_is_condensed_before_it_is_sent() {
    let mut messages = vec![text_message(Role::User, 2_000, 't')];
    let sent = messages.len();
    messages.push(
        serde_json::from_value(json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "big.log"}}]}))
        .unwrap(),
    );
    messages.push(
        serde_json::from_value(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "r".repeat(40_000)}]}))
        .unwrap(),
    );
    messages.push(text_message(Role::User, 20, 'u'));
    let input = |last_request: Option<LastRequest>, total_tokens: Option<u64>| ManageInput {
        trigger: Trigger::Automatic,
        messages: messages.clone(),
        system_prompt: "system prompt".into(),
        tools_json: None,
        context_window: 128_000,
        max_tokens: Some(8192),
        total_tokens,
        settings: ThresholdSettings::default(),
        custom_condensing_prompt: None,
        environment_details: None,
        folded_file_sections: vec![],
        summarizer: SummarizerInfo {
            context_window: 128_000,
            max_tokens: Some(8192),
            supports_images: false,
        },
        verify: None,
        last_request,
        guard: last_request.map(|_| ProgressGuard::default()),
    };
    let mut ids = SequentialIds::default();
    let counter: &dyn TokenCounter = &exact;
    match begin_manage(input(None, Some(89_600)), counter, &mut ids, &clock) {
        ManageStep::Done(outcome) => assert_eq!(outcome.action, ContextAction::None),
        ManageStep::Summarize(_) => panic!("today's rule saw the batch"),
    }
    let last = LastRequest {
        input_tokens: 89_600,
        message_count: sent,
    };
    let ManageStep::Summarize(pending) =
        begin_manage(input(Some(last), None), counter, &mut ids, &clock)
    else {
        panic!("the batch was not seen before it was sent");
    };
    assert!(
        pending.budget.prev_context_tokens >= 129_600,
        "{:?}",
        pending.budget
    );
    let reply = SummarizeReply::Answer(SummarizerAnswer {
        text: "1. Primary Request and Intent: read big.log".into(),
        cost: 0.0,
        output_tokens: None,
    });
    let outcome = finish_manage(*pending, reply, counter, &mut ids, &clock);
    assert_eq!(
        outcome.action,
        ContextAction::Condensed,
        "{:?}",
        outcome.error
    );
}
