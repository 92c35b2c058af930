//! Property tests of context management over random histories and budgets: every reported
//! success lowers the model-facing token count and fits the budget, repeated runs terminate, and
//! the stored history is only tagged or appended to (tool results shrunk in place excepted, and
//! then only to a prefix of themselves plus the notice, keeping `tool_use_id`).

use proptest::prelude::*;
use roo_context_core::context::*;
use roo_context_core::conversation::{ApiMessage, SequentialIds, effective_api_history};
use serde_json::{Map, Value, json};

mod context {
    use super::*;

    fn counter(text: &str) -> usize {
        text.len().div_ceil(4)
    }

    fn clock() -> u64 {
        1_000_000
    }

    /// A message of a random shape: text, tool use, tool result (string or array), image, with
    /// optional summary / marker tags, so hidden, condensed and orphaned messages all occur.
    fn message() -> impl Strategy<Value = Value> {
        let body = prop_oneof![
            (1usize..3000).prop_map(|n| json!("t".repeat(n))),
            (1usize..3000, 0usize..3).prop_map(|(n, id)| json!([{"type": "tool_use", "id": format!("u{id}"), "name": "read_file", "input": {"path": "x".repeat(n % 50)}}])),
            (1usize..20000, 0usize..3, any::<bool>()).prop_map(|(n, id, array)| {
                let text = "r ".repeat(n / 2 + 1);
                if array {
                    json!([{"type": "tool_result", "tool_use_id": format!("u{id}"), "content": [{"type": "text", "text": text}, {"type": "image", "source": {"data": "AAAA"}}]}])
                } else {
                    json!([{"type": "tool_result", "tool_use_id": format!("u{id}"), "content": text, "is_error": false}])
                }
            }),
            Just(json!([{"type": "image", "source": {"type": "base64", "data": "QUJD"}}, {"type": "reasoning", "text": "keep"}])),
        ];
        (body, any::<bool>(), 0u8..20, prop::option::of(0u64..5000)).prop_map(
            |(content, user, tag, ts)| {
                let mut fields = Map::new();
                fields.insert(
                    "role".into(),
                    json!(if user { "user" } else { "assistant" }),
                );
                fields.insert("content".into(), content);
                if let Some(ts) = ts {
                    fields.insert("ts".into(), json!(ts));
                }
                fields.insert("providerField".into(), json!({"n": 1.5}));
                match tag {
                    0 => {
                        fields.insert("isSummary".into(), json!(true));
                        fields.insert("condenseId".into(), json!("S1"));
                    }
                    1 => {
                        fields.insert("condenseParent".into(), json!("S1"));
                    }
                    2 => {
                        fields.insert("truncationParent".into(), json!("T0"));
                    }
                    _ => {}
                }
                Value::Object(fields)
            },
        )
    }

    fn history() -> impl Strategy<Value = Vec<ApiMessage>> {
        prop::collection::vec(message(), 1..24).prop_map(|values| {
            values
                .into_iter()
                .map(|value| serde_json::from_value(value).unwrap())
                .collect()
        })
    }

    fn trigger() -> impl Strategy<Value = Trigger> {
        prop_oneof![
            Just(Trigger::Manual),
            Just(Trigger::Automatic),
            Just(Trigger::Emergency)
        ]
    }

    fn input(
        trigger: Trigger,
        messages: Vec<ApiMessage>,
        window: u64,
        auto: bool,
        total: Option<u64>,
    ) -> ManageInput {
        ManageInput {
            trigger,
            messages,
            system_prompt: "system prompt".into(),
            tools_json: None,
            context_window: window,
            max_tokens: Some((window / 10) as i64),
            total_tokens: total,
            settings: ThresholdSettings {
                auto_condense_context: auto,
                auto_condense_context_percent: 60.0,
                ..ThresholdSettings::default()
            },
            custom_condensing_prompt: None,
            environment_details: Some("env".into()),
            folded_file_sections: vec![],
            summarizer: SummarizerInfo {
                context_window: window,
                max_tokens: Some((window / 10) as i64),
                supports_images: false,
            },
            verify: None,
            last_request: None,
            guard: None,
        }
    }

    /// A host that answers with a summary of a size chosen by the test (or fails).
    #[derive(Clone, Copy, Debug)]
    enum Host {
        Summary(usize),
        Fails,
        Empty,
    }

    fn host() -> impl Strategy<Value = Host> {
        prop_oneof![
            3 => (1usize..4000).prop_map(Host::Summary),
            1 => Just(Host::Fails),
            1 => Just(Host::Empty),
        ]
    }

    fn run(input: ManageInput, host: Host, ids: &mut SequentialIds) -> ManageOutcome {
        match begin_manage(input, &counter, ids, &clock) {
            ManageStep::Done(outcome) => *outcome,
            ManageStep::Summarize(pending) => {
                assert!(pending.request.request_tokens <= pending.request.token_limit);
                let reply = match host {
                    Host::Summary(n) => SummarizeReply::Answer(SummarizerAnswer {
                        text: "s".repeat(n),
                        cost: 0.5,
                        output_tokens: None,
                    }),
                    Host::Empty => SummarizeReply::Answer(SummarizerAnswer::default()),
                    Host::Fails => SummarizeReply::Failed {
                        error: Box::new(HostError {
                            message: "boom".into(),
                            ..HostError::default()
                        }),
                        cost: 0.0,
                    },
                };
                finish_manage(*pending, reply, &counter, ids, &clock)
            }
        }
    }

    fn tokens(messages: &[ApiMessage]) -> u64 {
        model_facing_tokens(messages, counter("system prompt") as u64, &counter)
    }

    /// Stored messages are only tagged, appended to, or have tool result texts cut to a prefix
    /// plus the notice; every other field is byte-identical.
    fn assert_only_tagged_or_appended(before: &[ApiMessage], after: &[ApiMessage]) {
        let mut originals = before.iter();
        let mut expected = originals.next();
        for message in after {
            let Some(original) = expected else {
                assert!(
                    message.is_summary() || message.is_truncation_marker(),
                    "appended {message:?}"
                );
                continue;
            };
            if message.is_truncation_marker()
                && !original.is_truncation_marker()
                && message.truncation_id() != original.truncation_id()
            {
                continue; // an inserted marker
            }
            if message.is_summary() && message.condense_id() != original.condense_id() {
                continue; // the appended summary (never before an original)
            }
            let strip = |m: &ApiMessage| {
                let mut m = m.clone();
                for key in ["condenseParent", "truncationParent", "content"] {
                    m.remove_field(key);
                }
                serde_json::to_string(&m).unwrap()
            };
            assert_eq!(strip(message), strip(original), "untouched fields changed");
            for key in ["condenseParent", "truncationParent"] {
                if original.fields.get(key).is_some()
                    && message.fields.get(key) != original.fields.get(key)
                {
                    // Re-tagging is allowed only by a truncation of a visible message.
                    assert_eq!(key, "truncationParent");
                }
            }
            let (old, new) = (
                &original.fields.get("content"),
                &message.fields.get("content"),
            );
            if old != new {
                assert_content_is_shrunk(old.unwrap(), new.unwrap());
            }
            expected = originals.next();
        }
        assert!(expected.is_none(), "a stored message disappeared");
    }

    fn assert_content_is_shrunk(old: &Value, new: &Value) {
        match (old, new) {
            (Value::String(old), Value::String(new)) => {
                let (kept, notice) = new
                    .split_once("\n[Tool result truncated: ")
                    .expect("shrunk text has the notice");
                assert!(old.starts_with(kept), "shrunk text is not a prefix");
                assert!(notice.ends_with(" characters removed to fit the context budget]"));
            }
            (Value::Array(old), Value::Array(new)) => {
                assert_eq!(old.len(), new.len());
                for (old, new) in old.iter().zip(new) {
                    if old == new {
                        continue;
                    }
                    assert_eq!(old.get("tool_use_id"), new.get("tool_use_id"));
                    assert_eq!(old.get("type"), new.get("type"));
                    match (
                        old.get("content"),
                        new.get("content"),
                        old.get("text"),
                        new.get("text"),
                    ) {
                        (Some(o), Some(n), _, _) => assert_content_is_shrunk(o, n),
                        (_, _, Some(o), Some(n)) => assert_content_is_shrunk(o, n),
                        _ => panic!("block changed shape: {old} → {new}"),
                    }
                }
            }
            _ => panic!("content changed kind"),
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn every_success_lowers_model_facing_tokens_and_fits(
            messages in history(),
            window in 300u64..30_000,
            auto in any::<bool>(),
            trigger in trigger(),
            host in host(),
            total in prop::option::of(0u64..40_000),
            verify in prop::option::of(0u64..3_000),
        ) {
            let before = tokens(&messages);
            let mut ids = SequentialIds { prefix: "id".into(), issued: 0 };
            let mut run_input = input(trigger, messages.clone(), window, auto, total);
            // With summary verification (any addendum cap), the guarantee is the same.
            run_input.verify = verify.map(|cap| VerifyConfig {
                settings: roo_context_core::context::verify::VerifySettings {
                    max_addendum_tokens: cap,
                    ..Default::default()
                },
                ..VerifyConfig::default()
            });
            let outcome = run(run_input, host, &mut ids);
            if outcome.changed {
                let after = tokens(&outcome.messages);
                prop_assert!(after < before, "{before} → {after}");
                prop_assert!(after <= outcome.budget.allowed_tokens);
                prop_assert_eq!(Some(after), outcome.new_context_tokens);
                assert_only_tagged_or_appended(&messages, &outcome.messages);
                let events = report(&outcome);
                prop_assert!(events.iter().any(|e| !matches!(e, ContextEvent::CondenseContextError(_))));
            } else {
                prop_assert_eq!(&outcome.messages, &messages);
                prop_assert_eq!(outcome.action, ContextAction::None);
                for event in report(&outcome) {
                    prop_assert!(matches!(event, ContextEvent::CondenseContextError(_)));
                }
            }
            for event in report(&outcome) {
                match event {
                    ContextEvent::SlidingWindowTruncation(t) => {
                        prop_assert!(t.messages_removed > 0 || outcome.tool_results_shrunk > 0);
                        prop_assert!(t.new_context_tokens < t.prev_context_tokens || t.new_context_tokens < before);
                    }
                    ContextEvent::CondenseContext(c) => prop_assert!(!c.condense_id.is_empty()),
                    ContextEvent::CondenseContextError(text) => prop_assert!(!text.is_empty()),
                }
            }
        }

        #[test]
        fn repeated_runs_terminate(
            messages in history(),
            window in 300u64..30_000,
            auto in any::<bool>(),
            trigger in trigger(),
            host in host(),
        ) {
            let mut ids = SequentialIds { prefix: "id".into(), issued: 0 };
            let mut current = messages;
            let mut previous = tokens(&current);
            let mut runs = 0;
            loop {
                let outcome = run(input(trigger, current.clone(), window, auto, None), host, &mut ids);
                if !outcome.changed {
                    break;
                }
                let now = tokens(&outcome.messages);
                prop_assert!(now < previous);
                previous = now;
                current = outcome.messages;
                runs += 1;
                prop_assert!(runs < 64, "no fixed point after 64 runs");
            }
            // At the fixed point the effective history is well formed.
            let _ = effective_api_history(&current);
        }
    }
}
