//! Tests of context management: thresholds and budgets, the condense request and summary, the
//! guards and error strings, sliding-window truncation with zero-progress recovery, the events,
//! and context-window-error classification. Test names carry the `context::` prefix.
//! One file on purpose: the cases of one feature with their shared builders, read top to bottom.

use std::collections::BTreeMap;

use roo_context_core::context::*;
use roo_context_core::conversation::{
    ApiMessage, RemovedContextIds, SequentialIds, effective_api_history, rewind_api_history,
};
use serde_json::{Value, json};

mod context {
    use super::*;

    /// Four characters per token, like the original's condense tests.
    fn counter(text: &str) -> usize {
        text.len().div_ceil(4)
    }

    fn clock() -> u64 {
        5_000
    }

    fn ids(prefix: &str) -> SequentialIds {
        SequentialIds {
            prefix: prefix.into(),
            issued: 0,
        }
    }

    fn history(values: Value) -> Vec<ApiMessage> {
        serde_json::from_value(values).unwrap()
    }

    fn text(role: &str, text: &str, ts: u64) -> Value {
        json!({"role": role, "content": text, "ts": ts})
    }

    fn summarizer(window: u64) -> SummarizerInfo {
        SummarizerInfo {
            context_window: window,
            max_tokens: None,
            supports_images: false,
        }
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
            environment_details: Some("<environment_details>cwd</environment_details>".into()),
            folded_file_sections: vec!["<system-reminder>folded a.ts</system-reminder>".into()],
            summarizer: summarizer(100_000),
            verify: None,
            last_request: None,
            guard: None,
        }
    }

    fn conversation(turns: usize, chars: usize) -> Vec<ApiMessage> {
        let mut values = vec![text(
            "user",
            "<task>fix it</task> <command name=\"x\">do x</command>",
            1000,
        )];
        for turn in 1..turns {
            let role = if turn % 2 == 1 { "assistant" } else { "user" };
            values.push(text(role, &"w".repeat(chars), 1000 + turn as u64));
        }
        history(Value::Array(values))
    }

    fn run(
        input: ManageInput,
        reply: impl FnOnce(&CondenseRequest) -> SummarizeReply,
    ) -> ManageOutcome {
        let mut ids = ids("id");
        match begin_manage(input, &counter, &mut ids, &clock) {
            ManageStep::Done(outcome) => *outcome,
            ManageStep::Summarize(pending) => {
                let reply = reply(&pending.request);
                finish_manage(*pending, reply, &counter, &mut ids, &clock)
            }
        }
    }

    fn answer(text: &str, cost: f64) -> SummarizeReply {
        SummarizeReply::Answer(SummarizerAnswer {
            text: text.into(),
            cost,
            output_tokens: None,
        })
    }

    #[test]
    fn allowed_tokens_matches_the_spec_numbers() {
        assert_eq!(allowed_tokens(100_000, Some(30_000)), 60_000);
        assert_eq!(allowed_tokens(100_000, None), 81_808);
        assert_eq!(allowed_tokens(100_000, Some(-1)), 81_808);
        assert_eq!(allowed_tokens(100_000, Some(0)), 81_808);
        assert_eq!(allowed_tokens(50_000, Some(10_000)), 35_000);
        assert_eq!(allowed_tokens(200_000, Some(30_000)), 150_000);
        assert_eq!(allowed_tokens(1_000, Some(30_000)), 0);
    }

    fn will(total: u64, last: u64, max: Option<i64>, settings: ThresholdSettings) -> bool {
        will_manage_context(&WillManageInput {
            total_tokens: total,
            last_message_tokens: last,
            context_window: 100_000,
            max_tokens: max,
            settings,
            guard: None,
        })
    }

    fn no_auto() -> ThresholdSettings {
        ThresholdSettings {
            auto_condense_context: false,
            ..ThresholdSettings::default()
        }
    }

    /// Zoo Code 3.80's opt-in denominator (`useAvailableInputForContextPercent`, for VS Code LM):
    /// the percentage is of the window minus the reserved output; `-1` or no `maxTokens`
    /// reserves nothing; no input space left is 100 %. Off, the whole window as before.
    #[test]
    fn the_condense_percentage_can_be_of_the_available_input() {
        let opted = ThresholdSettings {
            use_available_input: true,
            ..ThresholdSettings::default()
        };
        let off = ThresholdSettings::default();
        for (tokens, window, max, settings, expected) in [
            (35_000, 100_000, Some(30_000), &opted, 50.0),
            (35_000, 100_000, Some(30_000), &off, 35.0),
            (35_000, 100_000, Some(-1), &opted, 35.0),
            (35_000, 100_000, None, &opted, 35.0),
            (35_000, 100_000, Some(100_000), &opted, 100.0),
            (35_000, 100_000, Some(200_000), &opted, 100.0),
        ] {
            assert_eq!(
                condense_percent(tokens, window, max, settings),
                expected,
                "{tokens} of {window}, maxTokens {max:?}, opted {}",
                settings.use_available_input
            );
        }
        // Zoo's own case: 34,000 + 2,000 of 70,000 available crosses 50 %; of the whole window
        // it does not.
        let half = |use_available_input| ThresholdSettings {
            auto_condense_context_percent: 50.0,
            use_available_input,
            ..ThresholdSettings::default()
        };
        assert!(!will(34_000, 0, Some(30_000), half(true)));
        assert!(will(34_000, 2_000, Some(30_000), half(true)));
        assert!(!will(34_000, 2_000, Some(30_000), half(false)));
    }

    #[test]
    fn will_manage_truncates_strictly_above_allowed() {
        assert!(!will(59_990, 10, Some(30_000), no_auto()));
        assert!(will(59_991, 10, Some(30_000), no_auto()));
        assert!(!will(81_807, 0, None, no_auto()));
        assert!(will(81_809, 0, None, no_auto()));
    }

    #[test]
    fn profile_thresholds_have_a_valid_range_and_minus_one_inherits() {
        let with_profile = |value: f64| ThresholdSettings {
            auto_condense_context: true,
            auto_condense_context_percent: 80.0,
            profile_thresholds: BTreeMap::from([("p".to_owned(), value)]),
            current_profile_id: "p".into(),
            use_available_input: false,
        };
        for (value, expected) in [
            (-1.0, (80.0, ThresholdSource::Global)),
            (5.0, (5.0, ThresholdSource::Profile)),
            (100.0, (100.0, ThresholdSource::Profile)),
            (50.0, (50.0, ThresholdSource::Profile)),
            (3.0, (80.0, ThresholdSource::InvalidProfile { value: 3.0 })),
            (
                101.0,
                (80.0, ThresholdSource::InvalidProfile { value: 101.0 }),
            ),
            (0.0, (80.0, ThresholdSource::InvalidProfile { value: 0.0 })),
        ] {
            assert_eq!(
                effective_threshold(&with_profile(value)),
                expected,
                "{value}"
            );
        }
        assert!(will(50_000, 0, None, with_profile(50.0)));
        assert!(!will(49_999, 0, None, with_profile(50.0)));
        assert!(!will(79_000, 0, None, with_profile(3.0)));
        assert_eq!(
            invalid_profile_threshold_warning(3.0, "p", 80.0),
            "Invalid profile threshold 3 for profile \"p\". Using global default of 80%"
        );
    }

    #[test]
    fn emergency_threshold_wins_over_a_profile_threshold() {
        let mut run_input = input(Trigger::Emergency, conversation(4, 40), 1_000);
        run_input.max_tokens = Some(100);
        run_input
            .settings
            .profile_thresholds
            .insert("default".into(), 100.0);
        run_input.total_tokens = Some(760);
        let budget = measure_budget(&run_input, &counter);
        assert_eq!(budget.threshold, 75.0);
        assert_eq!(budget.threshold_source, ThresholdSource::Forced);
        assert!(budget.should_condense);
        run_input.trigger = Trigger::Automatic;
        let budget = measure_budget(&run_input, &counter);
        assert_eq!(budget.threshold, 100.0);
        assert!(!budget.should_condense);
    }

    #[test]
    fn budget_counts_only_the_effective_history() {
        let mut messages = conversation(6, 400);
        let plain = measure_budget(
            &input(Trigger::Automatic, messages.clone(), 100_000),
            &counter,
        );
        for message in &mut messages[..6] {
            message.set_condense_parent("S");
        }
        messages.push(history(json!([{"role": "user", "content": "## Conversation Summary\nshort", "isSummary": true, "condenseId": "S", "ts": 2000}])).remove(0));
        let condensed = measure_budget(&input(Trigger::Automatic, messages, 100_000), &counter);
        let (condensed_tokens, plain_tokens) = (
            condensed.model_facing_tokens.unwrap(),
            plain.model_facing_tokens.unwrap(),
        );
        assert!(condensed_tokens < plain_tokens / 10);
        assert_eq!(condensed.prev_context_tokens, condensed_tokens);
    }

    #[test]
    fn host_total_tokens_plus_last_message_is_the_previous_size() {
        let mut run_input = input(Trigger::Automatic, conversation(3, 40), 100_000);
        run_input.total_tokens = Some(1_000);
        let budget = measure_budget(&run_input, &counter);
        assert_eq!(budget.last_message_tokens, 10);
        assert_eq!(budget.prev_context_tokens, 1_010);
    }

    /// Issue 29: with the host's `totalTokens` and nothing due, only the last message (and the
    /// system prompt) is counted, not the whole history; a due condense measures it all.
    #[test]
    fn host_total_tokens_spare_counting_the_history_unless_something_is_due() {
        let texts_counted = std::cell::Cell::new(0usize);
        let counting = |text: &str| {
            texts_counted.set(texts_counted.get() + 1);
            counter(text)
        };
        let mut run_input = input(Trigger::Automatic, conversation(40, 40), 100_000);
        run_input.total_tokens = Some(1_000);
        let budget = measure_budget(&run_input, &counting);
        assert!(!budget.should_condense && !budget.over_budget);
        assert_eq!(budget.model_facing_tokens, None);
        assert!(
            texts_counted.get() <= 3,
            "{} texts counted",
            texts_counted.get()
        );

        texts_counted.set(0);
        run_input.total_tokens = Some(99_000);
        let budget = measure_budget(&run_input, &counting);
        assert!(budget.should_condense);
        assert!(budget.model_facing_tokens.is_some());
        assert!(
            texts_counted.get() >= 40,
            "{} texts counted",
            texts_counted.get()
        );
    }

    #[test]
    fn guards_have_the_exact_error_strings() {
        let single = conversation(1, 10);
        assert_eq!(
            check_condense_guards(&single),
            Err("Not enough messages to condense context")
        );
        let summary = json!({"role": "user", "content": "s", "isSummary": true, "condenseId": "S"});
        let after_summary = history(json!([text("user", "a", 1), summary.clone()]));
        assert_eq!(
            check_condense_guards(&after_summary),
            Err("Context was condensed recently; skipping this attempt")
        );
        let one_more = history(json!([
            text("user", "a", 1),
            summary.clone(),
            text("assistant", "b", 3)
        ]));
        assert_eq!(
            check_condense_guards(&one_more),
            Err(ERROR_CONDENSED_RECENTLY)
        );
        let two_more = history(json!([
            text("user", "a", 1),
            summary,
            text("assistant", "b", 3),
            text("user", "c", 4)
        ]));
        assert_eq!(check_condense_guards(&two_more), Ok(()));
    }

    #[test]
    fn condense_request_has_prompt_tools_as_text_synthetic_results_and_instructions() {
        let messages = history(json!([
            {"role": "user", "content": [{"type": "text", "text": "task"}, {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}], "ts": 1},
            {"role": "assistant", "content": [{"type": "text", "text": "reading"}, {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.ts"}}], "ts": 2, "reasoning_content": "x"},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "file body"}], "ts": 3},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t2", "name": "attempt_completion", "input": {}}], "ts": 4}
        ]));
        let request = build_condense_request(
            &messages,
            Some("   "),
            &summarizer(100_000),
            &counter,
            &clock,
        )
        .unwrap();
        assert!(
            request.system_prompt.starts_with(
                "You are a helpful AI assistant tasked with summarizing conversations."
            )
        );
        assert!(
            request
                .system_prompt
                .contains("CRITICAL: This is a summarization-only request")
        );
        assert!(
            request
                .system_prompt
                .contains("CRITICAL: This summarization request is a SYSTEM OPERATION")
        );
        assert!(!request.custom_prompt_used);
        let rendered = serde_json::to_value(&request.messages).unwrap();
        assert_eq!(rendered.as_array().unwrap().len(), 6);
        assert_eq!(
            rendered[0],
            json!({"role": "user", "content": [{"type": "text", "text": "task"}, {"type": "text", "text": "[Referenced image in conversation]"}]})
        );
        assert_eq!(
            rendered[1]["content"][1],
            json!({"type": "text", "text": "[Tool Use: read_file]\npath: a.ts"})
        );
        assert_eq!(
            rendered[2]["content"][0],
            json!({"type": "text", "text": "[Tool Result]\nfile body"})
        );
        assert_eq!(
            rendered[4],
            json!({"role": "user", "content": [{"type": "text", "text": "[Tool Result]\nContext condensation triggered. Tool execution deferred."}]})
        );
        let instructions = rendered[5]["content"].as_str().unwrap();
        assert!(
            instructions
                .starts_with("Your task is to create a detailed summary of the conversation")
        );
        let mut last = 0;
        for section in [
            "1. Primary Request and Intent",
            "2. Key Technical Concepts",
            "3. Files and Code Sections",
            "4. Errors and fixes",
            "5. Problem Solving",
            "6. All user messages",
            "7. Pending Tasks",
            "8. Current Work",
            "9. Optional Next Step",
            "<analysis>",
            "<summary>",
            "<system-reminder>",
            "## Compact Instructions",
            "# Summary instructions",
        ] {
            let at = instructions[last..]
                .find(section)
                .unwrap_or_else(|| panic!("{section} missing or out of order"));
            last += at;
        }
        assert_eq!(request.degradation, RequestDegradation::default());
    }

    #[test]
    fn custom_condense_prompt_is_used_verbatim_when_not_blank() {
        let request = build_condense_request(
            &conversation(3, 10),
            Some("  Summarize briefly.\n"),
            &summarizer(100_000),
            &counter,
            &clock,
        )
        .unwrap();
        assert!(request.custom_prompt_used);
        assert_eq!(
            request.messages.last().unwrap().fields["content"],
            json!("Summarize briefly.")
        );
    }

    #[test]
    fn images_stay_when_the_summarizer_supports_them() {
        let messages = history(json!([
            {"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AAAA"}}], "ts": 1},
            text("assistant", "ok", 2)
        ]));
        let mut info = summarizer(100_000);
        info.supports_images = true;
        let request = build_condense_request(&messages, None, &info, &counter, &clock).unwrap();
        assert_eq!(request.messages[0].fields["content"][0]["type"], "image");
    }

    #[test]
    fn oversized_condense_request_degrades_the_largest_tool_results_first() {
        let big = "line of output\n".repeat(20_000);
        let small = "y".repeat(2_000);
        let messages = history(json!([
            text("user", "task", 1),
            {"role": "assistant", "content": [{"type": "tool_use", "id": "a", "name": "x", "input": {}}, {"type": "tool_use", "id": "b", "name": "y", "input": {}}], "ts": 2},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "a", "content": big}, {"type": "tool_result", "tool_use_id": "b", "content": [{"type": "text", "text": small}]}], "ts": 3},
            text("assistant", "done", 4)
        ]));
        let request =
            build_condense_request(&messages, None, &summarizer(60_000), &counter, &clock).unwrap();
        assert!(request.request_tokens <= request.token_limit);
        assert_eq!(request.degradation.tool_results_shrunk, 1);
        assert_eq!(request.degradation.messages_omitted, 0);
        let results = request.messages[2].fields["content"].as_array().unwrap();
        let first = results[0]["text"].as_str().unwrap();
        assert!(
            first.contains("[Tool result truncated: "),
            "{}",
            &first[first.len() - 100..]
        );
        assert_eq!(
            results[1]["text"].as_str().unwrap(),
            format!("[Tool Result]\n{small}")
        );
    }

    #[test]
    fn condense_request_leaves_out_the_middle_when_shrinking_tool_results_is_not_enough() {
        let messages = conversation(200, 800);
        let request =
            build_condense_request(&messages, None, &summarizer(20_000), &counter, &clock).unwrap();
        assert!(request.request_tokens <= request.token_limit);
        assert!(request.degradation.messages_omitted > 0);
        assert!(
            request.messages[0].fields["content"]
                .as_str()
                .unwrap()
                .contains("<task>")
        );
        assert_eq!(
            request.messages[request.messages.len() - 2].fields["content"],
            messages.last().unwrap().fields["content"]
        );
    }

    #[test]
    fn automatic_condense_builds_the_summary_message_and_tags_older_messages() {
        let messages = conversation(6, 400);
        let original = messages.clone();
        let outcome = run(input(Trigger::Automatic, messages, 500), |_| {
            answer("  the summary  ", 0.25)
        });
        assert_eq!(outcome.action, ContextAction::Condensed);
        assert!(outcome.changed);
        assert_eq!(outcome.summary, "the summary");
        assert_eq!(outcome.cost, 0.25);
        let id = outcome.condense_id.clone().unwrap();
        assert_eq!(id, "id-1");
        assert_eq!(outcome.messages.len(), 7);
        for (before, after) in original.iter().zip(&outcome.messages) {
            let mut expected = before.clone();
            expected.set_condense_parent(&id);
            assert_eq!(after, &expected);
        }
        let summary = serde_json::to_value(outcome.messages.last().unwrap()).unwrap();
        assert_eq!(
            summary,
            json!({
                "role": "user",
                "content": [
                    {"type": "text", "text": "## Conversation Summary\nthe summary"},
                    {"type": "text", "text": "<system-reminder>\n## Active Workflows\nThe following directives must be maintained across all future condensings:\n<command name=\"x\">do x</command>\n</system-reminder>"},
                    {"type": "text", "text": "<system-reminder>folded a.ts</system-reminder>"},
                    {"type": "text", "text": "<environment_details>cwd</environment_details>"}
                ],
                "ts": 1006,
                "isSummary": true,
                "condenseId": "id-1"
            })
        );
        let events = report(&outcome);
        assert_eq!(
            events,
            vec![ContextEvent::CondenseContext(ContextCondenseEvent {
                condense_id: id,
                cost: 0.25,
                prev_context_tokens: outcome.prev_context_tokens,
                new_context_tokens: outcome.new_context_tokens.unwrap(),
                summary: "the summary".into(),
                verification: None,
            })]
        );
        assert!(outcome.new_context_tokens.unwrap() < outcome.prev_context_tokens);
    }

    #[test]
    fn manual_condense_has_no_environment_details_but_keeps_folded_context() {
        let outcome = run(
            input(Trigger::Manual, conversation(6, 400), 100_000),
            |_| answer("s", 0.0),
        );
        let content = &outcome.messages.last().unwrap().fields["content"];
        assert_eq!(content.as_array().unwrap().len(), 3);
        assert!(!content.to_string().contains("environment_details"));
        assert!(content.to_string().contains("folded a.ts"));
    }

    #[test]
    fn emergency_condense_honours_the_custom_prompt_and_reports_its_condense_id() {
        let mut run_input = input(Trigger::Emergency, conversation(6, 400), 500);
        run_input.custom_condensing_prompt = Some("My prompt".into());
        let mut seen = None;
        let outcome = run(run_input, |request| {
            seen = Some(request.messages.last().unwrap().fields["content"].clone());
            answer("s", 0.1)
        });
        assert_eq!(seen, Some(json!("My prompt")));
        let events = report(&outcome);
        let [ContextEvent::CondenseContext(event)] = events.as_slice() else {
            panic!("{events:?}")
        };
        assert_eq!(event.condense_id, "id-1");
        assert!(
            outcome.messages.last().unwrap().fields["content"]
                .to_string()
                .contains("folded a.ts")
        );
    }

    #[test]
    fn rewind_removes_emergency_summary() {
        let messages = conversation(6, 400);
        let original = messages.clone();
        let outcome = run(input(Trigger::Emergency, messages, 500), |_| {
            answer("s", 0.1)
        });
        let events = report(&outcome);
        let [ContextEvent::CondenseContext(event)] = events.as_slice() else {
            panic!()
        };
        let removed = RemovedContextIds {
            condense_ids: vec![event.condense_id.clone()],
            ..Default::default()
        };
        // The UI event came after the last message; cut past everything stored.
        let (rewound, _) = rewind_api_history(outcome.messages, 10_000.0, &removed, false);
        assert_eq!(rewound.messages, original);
    }

    #[test]
    fn host_error_keeps_the_history_and_formats_error_details() {
        let messages = conversation(6, 40);
        let original = messages.clone();
        let outcome = run(input(Trigger::Manual, messages, 100_000), |_| {
            SummarizeReply::Failed {
                error: Box::new(HostError {
                    message: "500 \"Internal server error\"".into(),
                    status: Some(json!(500)),
                    code: Some(json!("server_error")),
                    response: Some(json!({"ok": false})),
                    body: None,
                }),
                cost: 0.01,
            }
        });
        assert!(!outcome.changed);
        assert_eq!(outcome.messages, original);
        assert_eq!(
            outcome.error.as_deref(),
            Some("Condensing API call failed: 500 \"Internal server error\"")
        );
        assert_eq!(
            outcome.error_details.as_deref(),
            Some(
                "Error: 500 \"Internal server error\"\n\nHTTP Status: 500\nError Code: server_error\n\nAPI Response:\n{\n  \"ok\": false\n}"
            )
        );
        assert_eq!(outcome.cost, 0.01);
        assert_eq!(
            report(&outcome),
            vec![ContextEvent::CondenseContextError(
                "Condensing API call failed: 500 \"Internal server error\"".into()
            )]
        );
    }

    #[test]
    fn empty_summary_fails_and_keeps_the_cost() {
        let messages = conversation(6, 40);
        let outcome = run(input(Trigger::Manual, messages.clone(), 100_000), |_| {
            answer("  \n", 0.02)
        });
        assert_eq!(outcome.error.as_deref(), Some("Failed to condense context"));
        assert_eq!(outcome.cost, 0.02);
        assert_eq!(outcome.messages, messages);
    }

    #[test]
    fn a_summary_that_does_not_shrink_the_context_is_refused() {
        let messages = conversation(3, 8);
        let outcome = run(input(Trigger::Manual, messages.clone(), 100_000), |_| {
            answer(&"long ".repeat(500), 0.0)
        });
        assert_eq!(outcome.error.as_deref(), Some(ERROR_CONTEXT_GREW));
        assert_eq!(outcome.messages, messages);
        assert!(!outcome.changed);
    }

    #[test]
    fn timeout_keeps_the_history() {
        let messages = conversation(6, 40);
        let outcome = run(input(Trigger::Manual, messages.clone(), 100_000), |_| {
            SummarizeReply::TimedOut { after_ms: 50 }
        });
        assert_eq!(outcome.messages, messages);
        assert_eq!(
            outcome.error.as_deref(),
            Some("Condensing API call failed: the host did not answer within 50 ms")
        );
    }

    #[test]
    fn nothing_happens_below_the_threshold() {
        let messages = conversation(6, 40);
        let outcome = run(
            input(Trigger::Automatic, messages.clone(), 1_000_000),
            |_| unreachable!(),
        );
        assert_eq!(outcome.action, ContextAction::None);
        assert!(!outcome.changed && outcome.error.is_none());
        assert_eq!(outcome.messages, messages);
        assert!(report(&outcome).is_empty());
    }

    fn truncation_only(messages: Vec<ApiMessage>, window: u64) -> ManageInput {
        let mut run_input = input(Trigger::Automatic, messages, window);
        run_input.settings.auto_condense_context = false;
        run_input
    }

    #[test]
    fn sliding_window_hides_an_even_number_after_the_first_message() {
        // 11 visible → raw 5 → 4 hidden; marker before the first kept message.
        let messages = conversation(11, 400);
        let outcome = run(truncation_only(messages.clone(), 1_000), |_| unreachable!());
        assert_eq!(outcome.action, ContextAction::Truncated);
        assert_eq!(outcome.messages_removed, Some(4));
        let id = outcome.truncation_id.clone().unwrap();
        assert_eq!(outcome.messages.len(), 12);
        for index in 1..=4 {
            assert_eq!(
                outcome.messages[index].truncation_parent(),
                Some(id.as_str())
            );
        }
        let marker = serde_json::to_value(&outcome.messages[5]).unwrap();
        assert_eq!(
            marker,
            json!({"role": "user", "content": "[Sliding window truncation: 4 messages hidden to reduce context]", "ts": 1004, "isTruncationMarker": true, "truncationId": id})
        );
        assert_eq!(outcome.messages[0], messages[0]);
        assert_eq!(&outcome.messages[6..], &messages[5..]);
        let events = report(&outcome);
        let [ContextEvent::SlidingWindowTruncation(event)] = events.as_slice() else {
            panic!()
        };
        assert_eq!(event.messages_removed, 4);
        assert!(event.new_context_tokens < event.prev_context_tokens);
    }

    #[test]
    fn truncation_after_a_condense_shrinks_the_effective_history() {
        // Differs from the original (spec §12.2): hidden and condensed messages are not counted
        // as visible, so the marker lands after the summary and the model sees less.
        let mut messages = conversation(9, 400);
        for message in &mut messages {
            message.set_condense_parent("S");
        }
        messages.extend(history(json!([
            {"role": "user", "content": "## Conversation Summary\nsum", "isSummary": true, "condenseId": "S", "ts": 3000},
        ])));
        for turn in 0..6 {
            let role = if turn % 2 == 0 { "assistant" } else { "user" };
            messages.extend(history(json!([text(role, &"z".repeat(400), 3001 + turn)])));
        }
        let outcome = run(truncation_only(messages.clone(), 700), |_| unreachable!());
        assert_eq!(outcome.messages_removed, Some(2));
        let effective = effective_api_history(&outcome.messages);
        assert_eq!(effective.messages.len(), 6);
        assert!(effective.messages[0].is_summary());
        assert!(effective.messages[1].is_truncation_marker());
    }

    #[test]
    fn zero_progress_shrinks_the_tool_result_in_place_and_fits() {
        let huge = "0123456789abcdef\n".repeat(250_000);
        let messages = history(json!([
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "execute_command", "input": {"command": "dump"}}], "ts": 1},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": huge, "is_error": false}], "ts": 2}
        ]));
        let outcome = run(
            truncation_only(messages.clone(), 200_000),
            |_| unreachable!(),
        );
        assert_eq!(outcome.error, None);
        assert_eq!(outcome.action, ContextAction::Truncated);
        assert_eq!(outcome.messages_removed, Some(0));
        assert_eq!(outcome.tool_results_shrunk, 1);
        assert_eq!(outcome.messages.len(), 2);
        assert_eq!(outcome.messages[0], messages[0]);
        let block = &outcome.messages[1].fields["content"][0];
        assert_eq!(block["tool_use_id"], "t1");
        assert_eq!(block["is_error"], false);
        let shrunk = block["content"].as_str().unwrap();
        assert!(huge.starts_with(shrunk.split("\n[Tool result truncated").next().unwrap()));
        assert!(shrunk.ends_with("characters removed to fit the context budget]"));
        assert!(outcome.new_context_tokens.unwrap() <= outcome.budget.allowed_tokens);
        let events = report(&outcome);
        let [ContextEvent::SlidingWindowTruncation(event)] = events.as_slice() else {
            panic!()
        };
        assert_eq!(event.messages_removed, 0);
    }

    #[test]
    fn impossible_budget_returns_the_controlled_error_with_the_numbers() {
        let messages = history(json!([
            text("user", &"q".repeat(40_000), 1),
            text("assistant", "a", 2)
        ]));
        let outcome = run(
            truncation_only(messages.clone(), 10_000),
            |_| unreachable!(),
        );
        assert!(!outcome.changed);
        assert_eq!(outcome.messages, messages);
        assert_eq!(outcome.truncation_id, None);
        assert_eq!(outcome.error.as_deref(), Some(format!(
            "Context window recovery failed: the conversation ({} tokens) exceeds the available budget (8000 tokens) and no messages can be removed or tool results shrunk further. Reduce the size of individual tool outputs or start a new task.",
            outcome.prev_context_tokens
        ).as_str()));
        assert_eq!(
            outcome.error_details.as_deref(),
            Some(
                "Fallback truncation removed 0 messages and no eligible textual tool_result could be shrunk below its floor."
            )
        );
        assert_eq!(
            report(&outcome),
            vec![ContextEvent::CondenseContextError(
                outcome.error.clone().unwrap()
            )]
        );
    }

    #[test]
    fn failed_automatic_condense_falls_back_to_truncation_and_reports_both() {
        let outcome = run(
            input(Trigger::Automatic, conversation(11, 400), 1_000),
            |_| SummarizeReply::TimedOut { after_ms: 10 },
        );
        let events = report(&outcome);
        assert_eq!(events.len(), 2);
        assert!(matches!(events[0], ContextEvent::CondenseContextError(_)));
        assert!(matches!(
            events[1],
            ContextEvent::SlidingWindowTruncation(_)
        ));
    }

    #[test]
    fn shrink_keeps_utf16_floor_and_never_splits_characters() {
        let text = "é😀".repeat(5_000);
        let mut messages: Vec<std::borrow::Cow<'_, ApiMessage>> = history(json!([
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": [{"type": "text", "text": text, "extra": 1}, {"type": "image", "source": {}}]}]}
        ])).into_iter().map(std::borrow::Cow::Owned).collect();
        let edited = shrink_largest_texts(
            &mut messages,
            &|_| true,
            1_000_000,
            ShrinkScope::ToolResults,
            &counter,
        );
        assert_eq!(edited.len(), 1);
        let item = &messages[0].fields["content"][0]["content"][0];
        assert_eq!(item["extra"], 1);
        let shrunk = item["text"].as_str().unwrap();
        let kept = shrunk.split('\n').next().unwrap();
        let kept_units = kept.encode_utf16().count();
        assert!(
            (TOOL_RESULT_SHRINK_FLOOR_CHARS..=TOOL_RESULT_SHRINK_FLOOR_CHARS + 1)
                .contains(&kept_units),
            "{kept_units}"
        );
        // Shrinking again only updates the count in the single notice.
        let edited = shrink_largest_texts(
            &mut messages,
            &|_| true,
            1_000_000,
            ShrinkScope::ToolResults,
            &counter,
        );
        assert!(edited.is_empty());
    }

    #[test]
    fn context_window_errors_are_classified_like_the_original() {
        for (error, expected) in [
            (json!({"name": "LengthFinishReasonError"}), true),
            (
                json!({"status": 400, "message": "This model's maximum context length is 8192 tokens"}),
                true,
            ),
            (
                json!({"code": "400", "message": "Context window exceeded"}),
                true,
            ),
            (
                json!({"error": {"status": 400, "message": "input tokens exceed the limit"}}),
                true,
            ),
            (
                json!({"response": {"status": 400}, "message": "Too many tokens"}),
                true,
            ),
            (
                json!({"status": 500, "message": "context length exceeded"}),
                false,
            ),
            (json!({"status": 400, "message": "bad request"}), false),
            (
                json!({"error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}}),
                true,
            ),
            (
                json!({"error": {"type": "invalid_request_error", "message": "max_tokens_to_sample too high"}}),
                true,
            ),
            (
                json!({"error": {"type": "invalid_request_error", "message": "invalid tool"}}),
                false,
            ),
            (
                json!({"error": {"type": "invalid_request_error", "message": "context is\ntoo long"}}),
                false,
            ),
            (
                json!({"status": 400, "error": {"type": "error", "error": {"type": "invalid_request_error", "message": "prompt is too long: 210000 tokens > 200000 maximum"}}}),
                true,
            ),
            (
                json!({"status": 400.0, "message": "context window exceeded"}),
                true,
            ),
            (
                json!({"status": 400, "message": "subcontextlengthy"}),
                false,
            ),
            (json!({"message": "context length exceeded"}), false),
            (json!("context length exceeded"), false),
            (json!(null), false),
            (json!([{"status": 400}]), false),
        ] {
            assert_eq!(
                is_context_window_exceeded_error(&error),
                expected,
                "{error}"
            );
        }
    }
}
