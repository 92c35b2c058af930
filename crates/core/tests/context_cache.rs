//! Issue 30 through the public manage API: every change carries its cache impact, a
//! continuation-shaped summarize request (with its fallbacks), and deferral of changes that do
//! not pay for breaking the cached prefix yet.

use roo_context_core::context::*;
use roo_context_core::conversation::{ApiMessage, SequentialIds, effective_api_history};
use serde_json::{Value, json};

fn counter(text: &str) -> usize {
    text.len().div_ceil(4)
}

fn clock() -> u64 {
    5_000
}

fn conversation(turns: usize, chars: usize) -> Vec<ApiMessage> {
    let mut values = vec![
        json!({"role": "user", "content": "<task>fix it</task> <command name=\"x\">do x</command>", "ts": 1000}),
    ];
    for turn in 1..turns {
        let role = if turn % 2 == 1 { "assistant" } else { "user" };
        values.push(json!({"role": role, "content": "w".repeat(chars), "ts": 1000 + turn}));
    }
    serde_json::from_value(Value::Array(values)).unwrap()
}

fn input(trigger: Trigger, messages: Vec<ApiMessage>, window: u64) -> ManageInput {
    ManageInput {
        trigger,
        messages,
        system_prompt: "You are Roo.".into(),
        tools_json: None,
        context_window: window,
        max_tokens: Some(window as i64 / 10),
        total_tokens: None,
        settings: ThresholdSettings::default(),
        custom_condensing_prompt: None,
        environment_details: None,
        folded_file_sections: Vec::new(),
        summarizer: SummarizerInfo {
            context_window: window,
            max_tokens: Some(window as i64 / 10),
            supports_images: false,
        },
        verify: None,
        last_request: None,
        guard: None,
    }
}

fn answer(text: &str) -> SummarizeReply {
    SummarizeReply::Answer(SummarizerAnswer {
        text: text.into(),
        cost: 0.5,
        output_tokens: None,
    })
}

/// Runs a manage with `cache`; `reply` sees each request sent (a fallback is the second).
fn check(
    input: ManageInput,
    cache: CacheOptions,
    mut reply: impl FnMut(&CondenseRequest) -> SummarizeReply,
) -> (ManageOutcome, Vec<CondenseRequest>) {
    let mut ids = SequentialIds {
        prefix: "id".into(),
        issued: 0,
    };
    let mut sent = Vec::new();
    let outcome = match begin_manage_with(input, cache, &counter, &mut ids, &clock) {
        ManageStep::Done(outcome) => *outcome,
        ManageStep::Summarize(mut pending) => {
            sent.push(pending.request.clone());
            let mut answered = reply(&pending.request);
            if matches!(answered, SummarizeReply::ToolCall { .. })
                && let Some(fallback) = standalone_fallback(&pending, &counter, &clock)
            {
                pending.request = fallback;
                pending.retries = 1;
                sent.push(pending.request.clone());
                answered = reply(&pending.request);
            }
            finish_manage(*pending, answered, &counter, &mut ids, &clock)
        }
    };
    (outcome, sent)
}

fn reuse() -> CacheOptions {
    CacheOptions {
        prefix_reuse: Some(None),
        ..CacheOptions::default()
    }
}

#[test]
fn a_continuation_appends_only_the_instructions_and_keeps_the_unsent_message_verbatim() {
    let messages = conversation(9, 4000);
    let last = messages.last().unwrap().clone();
    let (outcome, sent) = check(
        input(Trigger::Manual, messages.clone(), 100_000),
        reuse(),
        |_| answer("summary"),
    );
    let request = &sent[0];
    assert_eq!(request.shape, RequestShapeKind::Continuation);
    assert_eq!(request.system_prompt, "");
    assert_eq!(request.replay.map(|(n, _)| n), Some(8));
    assert_eq!(request.summary_at, Some(8));
    assert_eq!(request.messages.len(), 1);
    let blocks = request.messages[0].blocks();
    assert_eq!(blocks[0]["text"], Value::String(CONDENSE_TEMPLATE.into()));
    assert!(
        blocks[1]["text"]
            .as_str()
            .unwrap()
            .contains("## Active Workflows")
    );
    assert_eq!(
        blocks.last().unwrap()["text"],
        Value::String(CONTINUATION_ANSWER_RULE.into())
    );
    assert_eq!(outcome.action, ContextAction::Condensed);
    assert_eq!(
        outcome.prefix_reuse,
        Some(PrefixReuseReport {
            shape: RequestShapeKind::Continuation,
            fallback: None
        })
    );
    // The summary replaces what was sent; the unsent message follows it untouched.
    assert_eq!(outcome.messages.len(), 10);
    assert!(outcome.messages[8].is_summary());
    assert_eq!(outcome.messages[9], last);
    assert!(
        outcome.messages[..8]
            .iter()
            .all(|m| m.condense_parent().is_some())
    );
    let effective = effective_api_history(&outcome.messages).messages;
    assert_eq!(effective.len(), 2);
    let fixed = counter("You are Roo.") as u64;
    let impact = outcome.cache_impact.unwrap();
    assert_eq!(impact.first_changed_index, 0);
    assert_eq!(impact.kept_prefix_tokens, fixed);
    assert_eq!(
        impact.rewrite_tokens,
        outcome.new_context_tokens.unwrap() - fixed
    );
}

#[test]
fn a_tool_result_left_unsent_keeps_its_tool_call_after_the_summary() {
    let mut messages = conversation(7, 4000);
    messages.push(serde_json::from_value(json!({"role": "assistant", "content": [
        {"type": "text", "text": "reading"},
        {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a"}}], "ts": 2000})).unwrap());
    messages.push(
        serde_json::from_value(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "x".repeat(400)}], "ts": 2001}))
        .unwrap(),
    );
    let (outcome, sent) = check(input(Trigger::Manual, messages, 100_000), reuse(), |_| {
        answer("summary")
    });
    assert_eq!(sent[0].summary_at, Some(7));
    let effective = effective_api_history(&outcome.messages).messages;
    assert_eq!(effective.len(), 3, "summary, tool call, tool result");
    assert_eq!(effective[2].blocks()[0]["tool_use_id"], "t1");
}

#[test]
fn a_replay_too_large_for_the_summarizer_falls_back_to_the_standalone_request() {
    let mut run = input(Trigger::Manual, conversation(9, 4000), 100_000);
    run.summarizer.context_window = 9_000;
    run.summarizer.max_tokens = Some(1000);
    let (outcome, sent) = check(run, reuse(), |_| answer("summary"));
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].shape, RequestShapeKind::Standalone);
    assert_eq!(sent[0].fallback, Some(PrefixReuseFallback::ReplayTooLarge));
    assert_eq!(outcome.action, ContextAction::Condensed);
    assert_eq!(
        outcome.prefix_reuse.unwrap().fallback,
        Some(PrefixReuseFallback::ReplayTooLarge)
    );
}

#[test]
fn a_tool_call_answer_falls_back_once_and_a_second_one_fails() {
    let (outcome, sent) = check(
        input(Trigger::Manual, conversation(9, 4000), 100_000),
        reuse(),
        |request| match request.shape {
            RequestShapeKind::Continuation => SummarizeReply::ToolCall { cost: 0.1 },
            RequestShapeKind::Standalone => answer("summary"),
        },
    );
    assert_eq!(sent.len(), 2);
    assert_eq!(sent[1].fallback, Some(PrefixReuseFallback::ToolCallAnswer));
    assert_eq!(outcome.action, ContextAction::Condensed);
    assert_eq!(
        outcome.prefix_reuse.unwrap().fallback,
        Some(PrefixReuseFallback::ToolCallAnswer)
    );
    let (failed, sent) = check(
        input(Trigger::Manual, conversation(9, 4000), 100_000),
        reuse(),
        |_| SummarizeReply::ToolCall { cost: 0.1 },
    );
    assert_eq!(sent.len(), 2);
    assert!(!failed.changed);
    assert_eq!(
        failed.error.as_deref(),
        Some(
            "Condensing API call failed: the model answered with a tool call instead of a summary"
        )
    );
}

#[test]
fn a_condense_carries_the_impact_the_new_history_measures() {
    let messages = conversation(9, 4000);
    let (outcome, _) = check(
        input(Trigger::Manual, messages.clone(), 100_000),
        CacheOptions::default(),
        |_| answer("summary"),
    );
    let impact = outcome.cache_impact.unwrap();
    let fixed = counter("You are Roo.") as u64;
    let summary_tokens = outcome.new_context_tokens.unwrap() - fixed;
    assert_eq!(impact.first_changed_index, 0);
    assert_eq!(impact.kept_prefix_tokens, fixed);
    assert_eq!(impact.rewrite_tokens, summary_tokens);
    assert_eq!(
        impact.saved_tokens_per_request,
        outcome.prev_context_tokens - outcome.new_context_tokens.unwrap()
    );
    let effective = effective_api_history(&outcome.messages).messages;
    assert_eq!(effective.len(), 1);
}

#[test]
fn a_truncation_carries_its_impact_and_a_plain_run_has_none() {
    // Over budget with no summarizer: the automatic run truncates.
    let run = input(Trigger::Automatic, conversation(21, 4000), 25_000);
    let (outcome, _) = check(run, CacheOptions::default(), |_| {
        SummarizeReply::NoSummarizer
    });
    assert_eq!(outcome.action, ContextAction::Truncated);
    let impact = outcome.cache_impact.unwrap();
    assert_eq!(impact.first_changed_index, 1);
    assert_eq!(
        impact.saved_tokens_per_request,
        outcome.prev_context_tokens - outcome.new_context_tokens.unwrap()
    );
    let (quiet, _) = check(
        input(Trigger::Automatic, conversation(3, 40), 100_000),
        CacheOptions::default(),
        |_| answer("never"),
    );
    assert_eq!(quiet.cache_impact, None);
}

#[test]
fn a_small_automatic_condense_waits_and_an_emergency_never_does() {
    let settings = ThresholdSettings {
        auto_condense_context_percent: 10.0,
        ..ThresholdSettings::default()
    };
    let deferring = CacheOptions {
        defer: Some(DeferPolicy::default()),
        ..CacheOptions::default()
    };
    // 11 messages of 1000 tokens in a 100k window: above 10 %, far from the budget.
    let mut run = input(Trigger::Automatic, conversation(11, 4000), 100_000);
    run.settings = settings.clone();
    let (outcome, sent) = check(run, deferring.clone(), |_| answer("summary"));
    assert!(sent.is_empty());
    assert!(!outcome.changed);
    let deferral = outcome.deferred.unwrap();
    assert_eq!(
        deferral.reason,
        DeferReason::FreesTooLittle {
            min_freed_tokens: 20_000
        }
    );
    // The next batch: the history grew past the minimum, so it is condensed.
    let mut run = input(Trigger::Automatic, conversation(41, 4000), 100_000);
    run.settings = settings.clone();
    let (outcome, sent) = check(run, deferring.clone(), |_| answer("summary"));
    assert_eq!(sent.len(), 1);
    assert_eq!(outcome.action, ContextAction::Condensed);
    assert_eq!(outcome.deferred, None);
    // An emergency of the same small size never waits.
    let mut run = input(Trigger::Emergency, conversation(11, 4000), 12_000);
    run.settings = settings;
    let (outcome, sent) = check(run, deferring, |_| answer("summary"));
    assert_eq!(sent.len(), 1);
    assert_eq!(outcome.deferred, None);
}

#[test]
fn a_cold_cache_never_defers() {
    let settings = ThresholdSettings {
        auto_condense_context_percent: 10.0,
        ..ThresholdSettings::default()
    };
    let cold = CacheOptions {
        defer: Some(DeferPolicy::default()),
        clock: CacheClock {
            last_request_at_ms: Some(0),
            ttl_ms: Some(1_000),
        },
        ..CacheOptions::default()
    };
    let mut run = input(Trigger::Automatic, conversation(11, 4000), 100_000);
    run.settings = settings;
    let (outcome, sent) = check(run, cold, |_| answer("summary"));
    assert_eq!(sent.len(), 1);
    assert_eq!(outcome.action, ContextAction::Condensed);
    assert!(outcome.cache_impact.unwrap().cold);
}

#[test]
fn an_emergency_is_never_a_continuation() {
    // The provider refused the last request as too long: replaying it cannot work.
    let run = input(Trigger::Emergency, conversation(11, 4000), 12_000);
    let (outcome, sent) = check(run, reuse(), |_| answer("summary"));
    assert_eq!(sent[0].shape, RequestShapeKind::Standalone);
    assert_eq!(outcome.action, ContextAction::Condensed);
    assert_eq!(
        outcome.prefix_reuse.unwrap().fallback,
        Some(PrefixReuseFallback::ReplayTooLarge)
    );
}

#[test]
fn a_continuation_needs_only_the_window_minus_the_output_reserve() {
    // 8 messages of 1000 tokens replayed, in a 10.5k window with 1000 reserved: over the
    // budget's 90 % (8450) but within the window, so it is still a continuation.
    let mut run = input(Trigger::Manual, conversation(9, 4000), 100_000);
    run.summarizer.context_window = 10_500;
    run.summarizer.max_tokens = Some(100);
    let (_, sent) = check(run, reuse(), |_| answer("summary"));
    assert_eq!(sent[0].shape, RequestShapeKind::Continuation);
    assert_eq!(sent[0].token_limit, 10_400);
}

#[test]
fn a_continuation_is_verified_against_what_it_summarized_only() {
    use roo_context_core::context::verify::{CheckId, VerifySettings};
    let mut messages = conversation(7, 4000);
    messages.push(serde_json::from_value(json!({"role": "user", "content": "Please rename the module to cache_store.", "ts": 2000})).unwrap());
    messages.push(
        serde_json::from_value(json!({"role": "assistant", "content": "On it.", "ts": 2001}))
            .unwrap(),
    );
    messages.push(
        serde_json::from_value(
            json!({"role": "user", "content": "Also never touch the lock file.", "ts": 2002}),
        )
        .unwrap(),
    );
    let mut run = input(Trigger::Manual, messages, 100_000);
    run.verify = Some(VerifyConfig {
        settings: VerifySettings {
            checks: vec![CheckId::LatestUserMessage],
            ..VerifySettings::default()
        },
        ..VerifyConfig::default()
    });
    // The last request held the first nine messages; the newest stays verbatim after the
    // summary, so the summary need not (cannot) quote it.
    let (outcome, sent) = check(run, reuse(), |_| {
        answer("The user asked: Please rename the module to cache_store.")
    });
    assert_eq!(sent[0].summary_at, Some(9));
    let verification = outcome.verification.unwrap();
    assert!(verification.verification.passed, "{verification:?}");
    assert!(!verification.repaired);
}
