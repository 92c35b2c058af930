//! Property tests of the conversation core: byte-exact round trips, `changed` telling the truth,
//! and no panic on any JSON a host could send.

use proptest::prelude::*;
use roo_context_core::conversation::{
    ApiMessage, Estimate, IMAGE_PLACEHOLDER_TEXT, RemovedContextIds, RewindOptions, RewindTarget,
    Role, cleanup_after_truncation, diagnose_history, effective_api_history,
    extract_command_blocks, history_token_breakdown, inject_synthetic_tool_results,
    merge_consecutive_api_messages, messages_since_last_summary, parse_history,
    replace_image_blocks, rewind, rewind_api_history, transform_messages_for_condensing,
};
use serde_json::{Map, Value, json};

/// Test names carry the `conversation::` prefix so `cargo test conversation` selects them.
mod conversation {
    use super::*;

    const IDS: &[&str] = &["A", "B", "C"];
    const TOOL_IDS: &[&str] = &["t1", "t2", "t3", "t4"];

    fn render<M: AsRef<ApiMessage>>(messages: &[M]) -> String {
        let values: Vec<&ApiMessage> = messages.iter().map(AsRef::as_ref).collect();
        serde_json::to_string(&values).unwrap()
    }

    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            (-1e6f64..1e6).prop_map(|n| json!(n)),
            "[a-z <>/\\n\"é😀]{0,12}".prop_map(Value::String),
        ]
    }

    fn any_json() -> impl Strategy<Value = Value> {
        scalar().prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::vec(("[a-z_]{1,6}", inner), 0..4)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    fn text_value() -> impl Strategy<Value = Value> {
        "[a-z <>/\\n]{0,20}".prop_map(Value::String)
    }

    /// A well-formed content block of a known or unknown type, with some extra fields.
    fn block() -> impl Strategy<Value = Value> {
        let tool_id = prop::sample::select(TOOL_IDS);
        let known = prop_oneof![
        text_value().prop_map(|text| json!({"type": "text", "text": text})),
        prop::option::of("[A-Za-z0-9+/]{0,40}").prop_map(|data| match data {
            Some(data) => json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}),
            None => json!({"type": "image", "source": {"type": "url", "url": "https://x"}}),
        }),
        (tool_id.clone(), "[a-z_]{1,8}", any_json())
            .prop_map(|(id, name, input)| json!({"type": "tool_use", "id": id, "name": name, "input": input})),
        (
            tool_id,
            prop_oneof![
                text_value(),
                prop::collection::vec(text_value().prop_map(|t| json!({"type": "text", "text": t})), 0..3)
                    .prop_map(Value::Array),
            ],
            any::<bool>()
        )
            .prop_map(|(id, content, is_error)| {
                json!({"type": "tool_result", "tool_use_id": id, "content": content, "is_error": is_error})
            }),
        any_json().prop_map(|details| json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAA", "reasoning_details": details})),
    ];
        (
            known,
            prop::collection::vec(("[a-z_]{1,6}", scalar()), 0..2),
        )
            .prop_map(|(mut block, extras)| {
                let object = block.as_object_mut().unwrap();
                for (key, value) in extras {
                    object.entry(key).or_insert(value);
                }
                block
            })
    }

    /// A valid message: a role, content, and any mix of tags, timestamps and unknown fields, with
    /// its keys in a random order.
    fn message() -> impl Strategy<Value = Value> {
        let content = prop_oneof![
            text_value(),
            prop::collection::vec(block(), 0..4).prop_map(Value::Array),
        ];
        let id = || prop::sample::select(IDS).prop_map(|id| json!(id));
        let ts = prop_oneof![
            (0u64..60).prop_map(|n| json!(n * 10)),
            (0.0f64..600.0).prop_map(|n| json!(n)),
        ];
        let tags = (
            prop::option::of(ts),
            prop::option::of(id()),
            prop::option::of(id()),
            prop::option::of(id()),
            prop::option::of(id()),
            any::<bool>(),
            prop::collection::vec(("[a-z_]{1,8}", any_json()), 0..3),
        );
        (
            prop::sample::select(&["user", "assistant"][..]),
            content,
            tags,
        )
            .prop_flat_map(
                |(
                    role,
                    content,
                    (ts, summary, condense_parent, marker, truncation_parent, strict, extras),
                )| {
                    let mut entries: Vec<(String, Value)> =
                        vec![("role".into(), json!(role)), ("content".into(), content)];
                    let mut push = |key: &str, value: Option<Value>| {
                        if let Some(value) = value {
                            entries.push((key.into(), value));
                        }
                    };
                    push("ts", ts);
                    if let Some(id) = summary {
                        push(
                            "isSummary",
                            Some(if strict { json!(true) } else { json!(1) }),
                        );
                        push("condenseId", Some(id));
                    }
                    push("condenseParent", condense_parent);
                    if let Some(id) = marker {
                        push("isTruncationMarker", Some(json!(true)));
                        push(
                            "truncationId",
                            Some(json!(format!("T{}", id.as_str().unwrap()))),
                        );
                    }
                    push(
                        "truncationParent",
                        truncation_parent.map(|id| json!(format!("T{}", id.as_str().unwrap()))),
                    );
                    entries.extend(extras);
                    Just(entries).prop_shuffle()
                },
            )
            .prop_map(|entries| {
                let mut object = Map::new();
                for (key, value) in entries {
                    object.entry(key).or_insert(value);
                }
                Value::Object(object)
            })
    }

    fn valid_history() -> impl Strategy<Value = Vec<Value>> {
        prop::collection::vec(message(), 0..12)
    }

    /// Anything a host could send: objects with known keys holding values of any type.
    fn odd_history() -> impl Strategy<Value = Vec<Value>> {
        let key = prop::sample::select(
            &[
                "role",
                "content",
                "ts",
                "isSummary",
                "condenseId",
                "condenseParent",
                "isTruncationMarker",
                "truncationId",
                "truncationParent",
                "type",
                "text",
                "id",
                "tool_use_id",
                "source",
                "data",
                "input",
                "is_error",
            ][..],
        );
        let odd_value = prop_oneof![
            any_json(),
            prop::sample::select(
                &[
                    "user",
                    "assistant",
                    "A",
                    "TA",
                    "tool_use",
                    "tool_result",
                    "image",
                    "text"
                ][..]
            )
            .prop_map(|s| json!(s)),
            prop::collection::vec(block(), 0..3).prop_map(Value::Array),
        ];
        let odd_object = prop::collection::vec((key, odd_value), 0..8).prop_map(|entries| {
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect(),
            )
        });
        prop::collection::vec(prop_oneof![odd_object, message()], 0..10)
    }

    fn parse(values: &[Value]) -> Vec<ApiMessage> {
        parse_history(Value::Array(values.to_vec()))
            .unwrap()
            .messages
    }

    fn clock() -> u64 {
        12_345
    }

    /// `changed` is false exactly when the output is byte-for-byte the input.
    fn assert_changed_is_truthful<M: AsRef<ApiMessage>>(
        what: &str,
        input: &[ApiMessage],
        output: &[M],
        changed: bool,
    ) -> Result<(), TestCaseError> {
        let same = render(input) == render(output);
        prop_assert_eq!(
            changed,
            !same,
            "{}: changed={} but same={}",
            what,
            changed,
            same
        );
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        #[test]
        fn parsing_and_serializing_a_valid_history_is_byte_exact(values in valid_history()) {
            let text = serde_json::to_string(&values).unwrap();
            let parsed = parse_history(serde_json::from_str(&text).unwrap()).unwrap();
            prop_assert_eq!(serde_json::to_string(&parsed.messages).unwrap(), text);
        }

        #[test]
        fn every_transform_reports_change_exactly_when_the_json_differs(
            values in valid_history(),
            cutoff in 0.0f64..700.0,
            removed_condense in prop::collection::vec(prop::sample::select(IDS), 0..2),
            removed_truncation in prop::collection::vec(prop::sample::select(&["TA", "TB", "TC"][..]), 0..2),
        ) {
            let messages = parse(&values);

            let effective = effective_api_history(&messages);
            assert_changed_is_truthful("effective", &messages, &effective.messages, effective.changed)?;

            let merged = merge_consecutive_api_messages(&messages, &[Role::User]);
            assert_changed_is_truthful("merge", &messages, &merged.messages, merged.changed)?;

            let injected = inject_synthetic_tool_results(&messages, &clock);
            assert_changed_is_truthful("synthetic", &messages, &injected.messages, injected.changed)?;

            let transformed = transform_messages_for_condensing(&messages);
            assert_changed_is_truthful("tool text", &messages, &transformed.messages, transformed.changed)?;

            let replaced = replace_image_blocks(&messages, IMAGE_PLACEHOLDER_TEXT);
            assert_changed_is_truthful("images", &messages, &replaced.messages, replaced.changed)?;

            let cleaned = cleanup_after_truncation(messages.clone());
            assert_changed_is_truthful("cleanup", &messages, &cleaned.messages, cleaned.changed)?;

            let removed = RemovedContextIds {
                condense_ids: removed_condense.iter().map(|id| id.to_string()).collect(),
                truncation_ids: removed_truncation.iter().map(|id| id.to_string()).collect(),
                summaries_without_id: Vec::new(),
            };
            for skip_cleanup in [false, true] {
                let (rewound, _) = rewind_api_history(messages.clone(), cutoff, &removed, skip_cleanup);
                assert_changed_is_truthful("rewind", &messages, &rewound.messages, rewound.changed)?;
            }
        }

        #[test]
        fn effective_history_is_an_idempotent_subsequence(values in valid_history()) {
            let messages = parse(&values);
            let effective = effective_api_history(&messages);
            prop_assert!(effective.source_indices.windows(2).all(|pair| pair[0] < pair[1]));
            prop_assert_eq!(effective.source_indices.len(), effective.messages.len());
            // Spec-exact quirk: a summary hidden by a later marker inside its own suffix is dropped,
            // and the next pass then has no summary to start from; idempotence holds otherwise.
            let had_summary = messages.iter().any(ApiMessage::is_summary_strictly_true);
            let kept_summary = effective.messages.iter().any(|m| m.is_summary_strictly_true());
            if kept_summary || !had_summary {
                let again = effective_api_history(&effective.messages);
                prop_assert!(!again.changed, "the effective history of an effective history changed");
            }
        }

        #[test]
        fn a_rewind_to_the_oldest_timestamp_keeps_only_untimed_messages(values in valid_history()) {
            let messages = parse(&values);
            let oldest = messages
                .iter()
                .filter(|message| message.has_truthy_ts())
                .filter_map(ApiMessage::ts)
                .fold(f64::INFINITY, f64::min);
            let (rewound, _) =
                rewind_api_history(messages.clone(), oldest, &RemovedContextIds::default(), false);
            prop_assert!(rewound.messages.iter().all(|message| !message.has_truthy_ts()));
        }

        #[test]
        fn nothing_panics_on_odd_histories(
            values in odd_history(),
            ui in prop::collection::vec(any_json(), 0..4),
            cutoff in any::<f64>(),
            index in 0usize..6,
        ) {
            let messages = parse(&values);
            let _ = diagnose_history(&messages);
            let effective = effective_api_history(&messages);
            let _ = effective_api_history(&effective.messages);
            let _ = messages_since_last_summary(&messages);
            let _ = merge_consecutive_api_messages(&messages, &[Role::User, Role::Assistant]);
            let _ = inject_synthetic_tool_results(&messages, &clock);
            let _ = transform_messages_for_condensing(&messages);
            let _ = replace_image_blocks(&messages, IMAGE_PLACEHOLDER_TEXT);
            let _ = cleanup_after_truncation(messages.clone());
            let _ = history_token_breakdown(&messages, &Estimate(|text: &str| text.len()));
            for message in &messages {
                let _ = extract_command_blocks(message);
            }
            let removed = RemovedContextIds::from_ui_events(&ui);
            let _ = rewind_api_history(messages.clone(), cutoff, &removed, false);
            let _ = rewind(&ui, messages.clone(), RewindTarget::Index(index), RewindOptions::default(), &clock);
            let _ = rewind(&ui, messages, RewindTarget::Timestamp(cutoff), RewindOptions::default(), &clock);
        }
    }
}
