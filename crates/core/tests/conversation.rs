//! Data-driven tests of the conversation core: one `check` helper per feature, snapshots inline.
//!
//! Histories are written one JSON message per line; outputs are rendered the same way, so a
//! snapshot shows exactly the JSON the host would get back.
//! One file on purpose: the cases of one core with the shared `check` helpers.

use expect_test::{Expect, expect};
use roo_context_core::conversation::{
    ApiMessage, Estimate, IMAGE_PLACEHOLDER_TEXT, RemovedContextIds, RewindOptions, RewindTarget,
    Role, cleanup_after_truncation, effective_api_history, extract_command_blocks,
    history_token_breakdown, inject_synthetic_tool_results, merge_consecutive_api_messages,
    messages_since_last_summary, parse_history, replace_image_blocks, rewind, rewind_api_history,
    tool_result_to_text, tool_use_to_text, transform_messages_for_condensing,
};
use serde_json::Value;

/// Test names carry the `conversation::` prefix so `cargo test conversation` selects them.
mod conversation {
    use super::*;

    /// One message per non-blank line.
    fn history(jsonl: &str) -> Vec<ApiMessage> {
        jsonl
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
            .collect()
    }

    fn events(jsonl: &str) -> Vec<Value> {
        jsonl
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|line| serde_json::from_str(line).unwrap())
            .collect()
    }

    fn render<M: AsRef<ApiMessage>>(messages: &[M]) -> String {
        messages
            .iter()
            .map(|message| serde_json::to_string(message.as_ref()).unwrap() + "\n")
            .collect()
    }

    fn fixed_clock() -> u64 {
        9_000
    }

    // ---------------------------------------------------------------- effective history

    fn check_effective(input: &str, expect: Expect) {
        let messages = history(input);
        let effective = effective_api_history(&messages);
        let actual = format!(
            "changed: {} sources: {:?}\n{}",
            effective.changed,
            effective.source_indices,
            render(&effective.messages)
        );
        expect.assert_eq(&actual);
    }

    #[test]
    fn effective_history_of_empty_input_is_empty() {
        check_effective(
            "",
            expect![[r#"
        changed: false sources: []
    "#]],
        );
    }

    #[test]
    fn effective_history_without_tags_is_the_input() {
        check_effective(
            r#"
{"role":"user","content":"task","ts":1,"extra":{"k":[1,2.5]}}
{"role":"assistant","content":[{"type":"reasoning","id":"r1","encrypted_content":"xx"},{"type":"text","text":"ok"}],"ts":2}
"#,
            expect![[r#"
            changed: false sources: [0, 1]
            {"role":"user","content":"task","ts":1,"extra":{"k":[1,2.5]}}
            {"role":"assistant","content":[{"type":"reasoning","id":"r1","encrypted_content":"xx"},{"type":"text","text":"ok"}],"ts":2}
        "#]],
        );
    }

    #[test]
    fn effective_history_starts_fresh_at_the_last_summary() {
        check_effective(
            r#"
{"role":"user","content":"m1","ts":1,"condenseParent":"A"}
{"role":"assistant","content":"m2","ts":2,"condenseParent":"A"}
{"role":"user","content":[{"type":"text","text":"S1"}],"ts":3,"isSummary":true,"condenseId":"A","condenseParent":"B"}
{"role":"assistant","content":"m4","ts":4,"condenseParent":"B"}
{"role":"user","content":[{"type":"text","text":"S2"}],"ts":5,"isSummary":true,"condenseId":"B"}
{"role":"assistant","content":"m6","ts":6}
"#,
            expect![[r#"
            changed: true sources: [4, 5]
            {"role":"user","content":[{"type":"text","text":"S2"}],"ts":5,"isSummary":true,"condenseId":"B"}
            {"role":"assistant","content":"m6","ts":6}
        "#]],
        );
    }

    #[test]
    fn effective_history_keeps_condensed_messages_after_the_summary() {
        // Spec §3.8 A.1 (rewind-after-condense #1): tags after the last summary do not hide.
        check_effective(
            r#"
{"role":"user","content":"S","isSummary":true,"condenseId":"A"}
{"role":"assistant","content":"after","condenseParent":"A"}
"#,
            expect![[r#"
            changed: false sources: [0, 1]
            {"role":"user","content":"S","isSummary":true,"condenseId":"A"}
            {"role":"assistant","content":"after","condenseParent":"A"}
        "#]],
        );
    }

    #[test]
    fn effective_history_drops_orphan_tool_results_after_a_summary() {
        check_effective(
            r#"
{"role":"assistant","content":[{"type":"tool_use","id":"old","name":"read_file","input":{}}],"condenseParent":"A"}
{"role":"user","content":[{"type":"text","text":"S"}],"isSummary":true,"condenseId":"A"}
{"role":"user","content":[{"type":"tool_result","tool_use_id":"old","content":"x"}]}
{"role":"assistant","content":[{"type":"text","text":"t"},{"type":"tool_use","id":"new","name":"ls","input":{}}]}
{"role":"user","content":[{"type":"tool_result","tool_use_id":"old","content":"x"},{"type":"tool_result","tool_use_id":"new","content":"y"},{"type":"text","text":"note"}],"ts":7}
{"role":"user","content":[{"type":"tool_result","content":"no id"}]}
{"role":"assistant","content":[{"type":"tool_result","tool_use_id":"zzz"}]}
{"role":"user","content":"string content is untouched"}
"#,
            expect![[r#"
            changed: true sources: [1, 3, 4, 6, 7]
            {"role":"user","content":[{"type":"text","text":"S"}],"isSummary":true,"condenseId":"A"}
            {"role":"assistant","content":[{"type":"text","text":"t"},{"type":"tool_use","id":"new","name":"ls","input":{}}]}
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"new","content":"y"},{"type":"text","text":"note"}],"ts":7}
            {"role":"assistant","content":[{"type":"tool_result","tool_use_id":"zzz"}]}
            {"role":"user","content":"string content is untouched"}
        "#]],
        );
    }

    #[test]
    fn effective_history_hides_truncated_messages_only_for_markers_after_the_summary() {
        check_effective(
            r#"
{"role":"user","content":"before","truncationParent":"T0"}
{"role":"user","content":"old marker","isTruncationMarker":true,"truncationId":"T0"}
{"role":"user","content":"S","isSummary":true,"condenseId":"A"}
{"role":"assistant","content":"hidden","truncationParent":"T1"}
{"role":"user","content":"hidden by the dropped marker","truncationParent":"T0"}
{"role":"user","content":"[Sliding window truncation: 1 messages hidden to reduce context]","isTruncationMarker":true,"truncationId":"T1"}
{"role":"assistant","content":"visible"}
"#,
            expect![[r#"
            changed: true sources: [2, 4, 5, 6]
            {"role":"user","content":"S","isSummary":true,"condenseId":"A"}
            {"role":"user","content":"hidden by the dropped marker","truncationParent":"T0"}
            {"role":"user","content":"[Sliding window truncation: 1 messages hidden to reduce context]","isTruncationMarker":true,"truncationId":"T1"}
            {"role":"assistant","content":"visible"}
        "#]],
        );
    }

    #[test]
    fn effective_history_without_summary_ignores_dangling_tags() {
        // Case B: a condenseParent naming no summary is ignored; a live truncation tag hides;
        // orphan tool_results are not filtered.
        check_effective(
            r#"
{"role":"user","content":"first","condenseParent":"gone"}
{"role":"assistant","content":"hidden","truncationParent":"T"}
{"role":"user","content":"marker","isTruncationMarker":true,"truncationId":"T"}
{"role":"user","content":[{"type":"tool_result","tool_use_id":"nobody","content":"kept"}],"truncationParent":"gone"}
"#,
            expect![[r#"
            changed: true sources: [0, 2, 3]
            {"role":"user","content":"first","condenseParent":"gone"}
            {"role":"user","content":"marker","isTruncationMarker":true,"truncationId":"T"}
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"nobody","content":"kept"}],"truncationParent":"gone"}
        "#]],
        );
    }

    #[test]
    fn effective_history_needs_is_summary_strictly_true_for_a_fresh_start() {
        // A truthy but non-boolean isSummary is a summary for case B's id collection only.
        check_effective(
            r#"
{"role":"user","content":"hidden","condenseParent":"A"}
{"role":"user","content":"S","isSummary":1,"condenseId":"A"}
{"role":"assistant","content":"tail"}
"#,
            expect![[r#"
            changed: true sources: [1, 2]
            {"role":"user","content":"S","isSummary":1,"condenseId":"A"}
            {"role":"assistant","content":"tail"}
        "#]],
        );
    }

    #[test]
    fn effective_history_hides_a_summary_tagged_by_a_marker_in_its_own_suffix() {
        // Spec-exact: the original's truncation counts summaries as visible, so it can tag one; the
        // fresh start then begins at a hidden summary and the model sees only what follows.
        check_effective(
            r#"
{"role":"user","content":"S","isSummary":true,"condenseId":"A","truncationParent":"T"}
{"role":"user","content":"marker","isTruncationMarker":true,"truncationId":"T"}
{"role":"assistant","content":"tail"}
"#,
            expect![[r#"
            changed: true sources: [1, 2]
            {"role":"user","content":"marker","isTruncationMarker":true,"truncationId":"T"}
            {"role":"assistant","content":"tail"}
        "#]],
        );
    }

    // ---------------------------------------------------------------- messages since last summary

    fn check_since_last_summary(input: &str, expect: Expect) {
        let messages = history(input);
        expect.assert_eq(&render(messages_since_last_summary(&messages)));
    }

    #[test]
    fn messages_since_last_summary_starts_at_the_last_summary() {
        check_since_last_summary(
            r#"
{"role":"user","content":"a"}
{"role":"user","content":"S1","isSummary":true,"condenseId":"A"}
{"role":"user","content":"S2","isSummary":true,"condenseId":"B"}
{"role":"assistant","content":"b"}
"#,
            expect![[r#"
            {"role":"user","content":"S2","isSummary":true,"condenseId":"B"}
            {"role":"assistant","content":"b"}
        "#]],
        );
        check_since_last_summary(
            r#"
{"role":"user","content":"a"}
{"role":"assistant","content":"b"}
"#,
            expect![[r#"
            {"role":"user","content":"a"}
            {"role":"assistant","content":"b"}
        "#]],
        );
        check_since_last_summary("", expect![[""]]);
    }

    #[test]
    fn messages_since_last_summary_has_the_same_length_on_full_and_effective_history() {
        let messages = history(
            r#"
{"role":"user","content":"a","condenseParent":"A"}
{"role":"user","content":"S","isSummary":true,"condenseId":"A"}
{"role":"assistant","content":"b"}
{"role":"user","content":"c"}
"#,
        );
        let effective = effective_api_history(&messages);
        assert_eq!(
            messages_since_last_summary(&messages).len(),
            messages_since_last_summary(&effective.messages).len()
        );
    }

    // ---------------------------------------------------------------- cleanup after truncation

    fn check_cleanup(input: &str, expect: Expect) {
        let result = cleanup_after_truncation(history(input));
        expect.assert_eq(&format!(
            "changed: {}\n{}",
            result.changed,
            render(&result.messages)
        ));
    }

    #[test]
    fn cleanup_removes_only_dangling_tags_in_place() {
        check_cleanup(
            r#"
{"role":"user","condenseParent":"gone","content":"a","truncationParent":"T","ts":1}
{"role":"user","content":"b","truncationParent":"gone","condenseParent":"A","ts":2}
{"role":"user","content":"S","isSummary":true,"condenseId":"A"}
{"role":"user","content":"m","isTruncationMarker":true,"truncationId":"T"}
{"role":"user","content":"c","condenseParent":null}
"#,
            expect![[r#"
            changed: true
            {"role":"user","content":"a","truncationParent":"T","ts":1}
            {"role":"user","content":"b","condenseParent":"A","ts":2}
            {"role":"user","content":"S","isSummary":true,"condenseId":"A"}
            {"role":"user","content":"m","isTruncationMarker":true,"truncationId":"T"}
            {"role":"user","content":"c","condenseParent":null}
        "#]],
        );
    }

    #[test]
    fn cleanup_of_valid_tags_changes_nothing() {
        check_cleanup(
            r#"
{"role":"user","content":"a","condenseParent":"A"}
{"role":"user","content":"S","isSummary":true,"condenseId":"A"}
"#,
            expect![[r#"
            changed: false
            {"role":"user","content":"a","condenseParent":"A"}
            {"role":"user","content":"S","isSummary":true,"condenseId":"A"}
        "#]],
        );
    }

    // ---------------------------------------------------------------- merge for the API

    fn check_merge(input: &str, roles: &[Role], expect: Expect) {
        let messages = history(input);
        let merged = merge_consecutive_api_messages(&messages, roles);
        expect.assert_eq(&format!(
            "changed: {}\n{}",
            merged.changed,
            render(&merged.messages)
        ));
    }

    #[test]
    fn merge_joins_consecutive_user_messages() {
        check_merge(
            r#"
{"role":"user","content":"a","ts":5,"extra":"first"}
{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}],"ts":9,"extra":"second"}
{"role":"user"}
{"role":"assistant","content":"x"}
{"role":"assistant","content":"y"}
"#,
            &[Role::User],
            expect![[r#"
            changed: true
            {"role":"user","content":[{"type":"text","text":"a"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA"}}],"ts":9,"extra":"first"}
            {"role":"assistant","content":"x"}
            {"role":"assistant","content":"y"}
        "#]],
        );
    }

    #[test]
    fn merge_never_absorbs_summaries_or_touches_markers() {
        check_merge(
            r#"
{"role":"user","content":"a"}
{"role":"user","content":"S","isSummary":true,"condenseId":"A","ts":3}
{"role":"user","content":"after summary","ts":2}
{"role":"user","content":"marker","isTruncationMarker":true,"truncationId":"T"}
{"role":"user","content":"after marker"}
{"role":"user","content":42}
{"role":"user","content":"after odd content"}
"#,
            &[Role::User],
            expect![[r#"
            changed: true
            {"role":"user","content":"a"}
            {"role":"user","content":[{"type":"text","text":"S"},{"type":"text","text":"after summary"}],"isSummary":true,"condenseId":"A","ts":3}
            {"role":"user","content":"marker","isTruncationMarker":true,"truncationId":"T"}
            {"role":"user","content":"after marker"}
            {"role":"user","content":42}
            {"role":"user","content":"after odd content"}
        "#]],
        );
    }

    #[test]
    fn merge_timestamp_falls_back_when_both_are_missing_or_zero() {
        check_merge(
            r#"
{"role":"user","content":"a","ts":0}
{"role":"user","content":"b"}
{"role":"assistant","content":"c"}
{"role":"user","content":"d"}
{"role":"user","content":"e","ts":4}
"#,
            &[Role::User],
            expect![[r#"
            changed: true
            {"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}
            {"role":"assistant","content":"c"}
            {"role":"user","content":[{"type":"text","text":"d"},{"type":"text","text":"e"}],"ts":4}
        "#]],
        );
    }

    #[test]
    fn merge_with_no_roles_changes_nothing() {
        check_merge(
            r#"
{"role":"user","content":"a"}
{"role":"user","content":"b"}
"#,
            &[],
            expect![[r#"
            changed: false
            {"role":"user","content":"a"}
            {"role":"user","content":"b"}
        "#]],
        );
    }

    // ---------------------------------------------------------------- synthetic tool results

    fn check_synthetic(input: &str, expect: Expect) {
        let messages = history(input);
        let result = inject_synthetic_tool_results(&messages, &fixed_clock);
        expect.assert_eq(&format!(
            "changed: {}\n{}",
            result.changed,
            render(&result.messages)
        ));
    }

    #[test]
    fn synthetic_tool_results_answer_orphan_tool_uses_in_first_seen_order() {
        check_synthetic(
            r#"
{"role":"assistant","content":[{"type":"tool_use","id":"b","name":"x","input":{}},{"type":"tool_use","id":"a","name":"y","input":{}}]}
{"role":"user","content":[{"type":"tool_result","tool_use_id":"c"}]}
{"role":"assistant","content":[{"type":"tool_use","id":"c","name":"z","input":{}},{"type":"tool_use","id":"b","name":"x","input":{}}]}
"#,
            expect![[r#"
            changed: true
            {"role":"assistant","content":[{"type":"tool_use","id":"b","name":"x","input":{}},{"type":"tool_use","id":"a","name":"y","input":{}}]}
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"c"}]}
            {"role":"assistant","content":[{"type":"tool_use","id":"c","name":"z","input":{}},{"type":"tool_use","id":"b","name":"x","input":{}}]}
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"b","content":"Context condensation triggered. Tool execution deferred."},{"type":"tool_result","tool_use_id":"a","content":"Context condensation triggered. Tool execution deferred."}],"ts":9000}
        "#]],
        );
    }

    #[test]
    fn synthetic_tool_results_are_not_added_when_every_call_is_answered() {
        check_synthetic(
            r#"
{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"x","input":{}}]}
{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"ok"}]}
"#,
            expect![[r#"
            changed: false
            {"role":"assistant","content":[{"type":"tool_use","id":"a","name":"x","input":{}}]}
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"ok"}]}
        "#]],
        );
    }

    // ---------------------------------------------------------------- tool blocks as text

    fn check_tool_text(block: &str, expect: Expect) {
        let block: Value = serde_json::from_str(block).unwrap();
        let text = match block["type"].as_str() {
            Some("tool_use") => tool_use_to_text(block["name"].as_str(), block.get("input")),
            _ => tool_result_to_text(
                block.get("content").filter(|c| !c.is_null()),
                block["is_error"].as_bool().unwrap_or(false),
            ),
        };
        expect.assert_eq(&text);
    }

    #[test]
    fn tool_use_as_text_lists_input_keys_in_order() {
        check_tool_text(
            r#"{"type":"tool_use","name":"write_file","input":{"path":"a.rs","n":2.0,"ok":true,"none":null,"nested":{"b":[1,{"c":"d"}]},"empty":[]}}"#,
            expect![[r#"
            [Tool Use: write_file]
            path: a.rs
            n: 2
            ok: true
            none: null
            nested: {
              "b": [
                1,
                {
                  "c": "d"
                }
              ]
            }
            empty: []"#]],
        );
        check_tool_text(
            r#"{"type":"tool_use","name":"some_tool","input":{}}"#,
            expect![[r#"
            [Tool Use: some_tool]
        "#]],
        );
        check_tool_text(
            r#"{"type":"tool_use","name":"t","input":"raw"}"#,
            expect![[r#"
            [Tool Use: t]
            raw"#]],
        );
        check_tool_text(
            r#"{"type":"tool_use"}"#,
            expect![[r#"
            [Tool Use: undefined]
            undefined"#]],
        );
    }

    #[test]
    fn tool_result_as_text_flattens_content() {
        check_tool_text(
            r#"{"type":"tool_result","tool_use_id":"a","content":"done"}"#,
            expect![[r#"
            [Tool Result]
            done"#]],
        );
        check_tool_text(
            r#"{"type":"tool_result","is_error":true,"content":[{"type":"text","text":"t"},{"type":"image","source":{}},{"type":"document"},{"type":"text"}]}"#,
            expect![[r#"
            [Tool Result (Error)]
            t
            [Image]
            [document]
            "#]],
        );
        check_tool_text(
            r#"{"type":"tool_result","tool_use_id":"a"}"#,
            expect!["[Tool Result]"],
        );
    }

    #[test]
    fn transform_for_condensing_converts_tool_blocks_and_keeps_the_rest() {
        let messages = history(
            r#"
{"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"tool_use","id":"1","name":"ls","input":{"path":"."}}],"ts":1,"reasoning_content":"r"}
{"role":"user","content":[{"type":"tool_result","tool_use_id":"1","content":"a.txt"}],"ts":2}
{"role":"user","content":"plain"}
"#,
        );
        let transformed = transform_messages_for_condensing(&messages);
        expect![[r#"
        changed: true
        {"role":"assistant","content":[{"type":"text","text":"hi"},{"type":"text","text":"[Tool Use: ls]\npath: ."}],"ts":1,"reasoning_content":"r"}
        {"role":"user","content":[{"type":"text","text":"[Tool Result]\na.txt"}],"ts":2}
        {"role":"user","content":"plain"}
    "#]]
    .assert_eq(&format!(
        "changed: {}\n{}",
        transformed.changed,
        render(&transformed.messages)
    ));
    }

    #[test]
    fn images_are_replaced_for_a_summarizer_without_image_support() {
        let messages = history(
            r#"
{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"AA"}},{"type":"tool_result","tool_use_id":"1","content":[{"type":"image","source":{}}]}]}
{"role":"user","content":"plain"}
"#,
        );
        let replaced = replace_image_blocks(&messages, IMAGE_PLACEHOLDER_TEXT);
        expect![[r#"
        changed: true
        {"role":"user","content":[{"type":"text","text":"[Referenced image in conversation]"},{"type":"tool_result","tool_use_id":"1","content":[{"type":"image","source":{}}]}]}
        {"role":"user","content":"plain"}
    "#]]
    .assert_eq(&format!(
        "changed: {}\n{}",
        replaced.changed,
        render(&replaced.messages)
    ));
    }

    // ---------------------------------------------------------------- command blocks

    fn check_command_blocks(message: &str, expect: Expect) {
        let message: ApiMessage = serde_json::from_str(message).unwrap();
        expect.assert_eq(&extract_command_blocks(&message));
    }

    #[test]
    fn command_blocks_are_found_in_string_and_text_block_content() {
        check_command_blocks(
            r#"{"role":"user","content":"x <command name=\"a\">do\nit</command> y <command>two</command><command>open"}"#,
            expect![[r#"
            <command name="a">do
            it</command>
            <command>two</command>"#]],
        );
        check_command_blocks(
            r#"{"role":"user","content":[{"type":"text","text":"<command>a"},{"type":"image"},{"type":"text","text":"b</command>"}]}"#,
            expect![[r#"
            <command>a
            b</command>"#]],
        );
        check_command_blocks(
            r#"{"role":"user","content":"<commands>plural still matches</command> <command no close"}"#,
            expect!["<commands>plural still matches</command>"],
        );
        check_command_blocks(r#"{"role":"user","content":7}"#, expect![""]);
        check_command_blocks(r#"{"role":"user"}"#, expect![""]);
    }

    // ---------------------------------------------------------------- rewind

    fn check_rewind(
        ui: &str,
        api: &str,
        target: RewindTarget,
        options: RewindOptions,
        expect: Expect,
    ) {
        let outcome = rewind(&events(ui), history(api), target, options, &fixed_clock);
        let actual = match outcome {
            Ok(outcome) => {
                let mut text = format!(
                    "ui kept: {} cutoff: {} ids: {:?}\napi changed: {}\n{}",
                    outcome.ui_messages_kept,
                    outcome.api_cutoff_ts,
                    outcome.removed_ids,
                    outcome.api_history.changed,
                    render(&outcome.api_history.messages)
                );
                for diagnostic in &outcome.diagnostics {
                    text.push_str(&format!("diagnostic {diagnostic}\n"));
                }
                text
            }
            Err(error) => format!("error: {error}\n"),
        };
        expect.assert_eq(&actual);
    }

    /// A task condensed by the emergency path: the summary's ts (last + 1) is before the UI event.
    const CONDENSED_API: &str = r###"
{"role":"user","content":"task","ts":100,"condenseParent":"S1"}
{"role":"assistant","content":"work","ts":200,"condenseParent":"S1"}
{"role":"user","content":[{"type":"text","text":"## Conversation Summary\nDid work."}],"ts":201,"isSummary":true,"condenseId":"S1"}
"###;

    #[test]
    fn rewind_removes_emergency_summary_by_its_condense_id() {
        check_rewind(
            r#"
{"ts":100,"type":"say","say":"text","text":"task"}
{"ts":300,"type":"say","say":"condense_context","contextCondense":{"cost":0,"prevContextTokens":9,"newContextTokens":3,"summary":"Did work.","condenseId":"S1"}}
"#,
            CONDENSED_API,
            RewindTarget::Timestamp(300.0),
            RewindOptions::default(),
            expect![[r#"
            ui kept: 1 cutoff: 300 ids: RemovedContextIds { condense_ids: ["S1"], truncation_ids: [], summaries_without_id: [] }
            api changed: true
            {"role":"user","content":"task","ts":100}
            {"role":"assistant","content":"work","ts":200}
        "#]],
        );
    }

    #[test]
    fn rewind_removes_emergency_summary_whose_event_lacks_a_condense_id() {
        // The original's emergency path emitted condense_context without condenseId, so the summary
        // (ts 201, before the event's ts 300) survived the rewind and kept hiding the task.
        check_rewind(
            r#"
{"ts":100,"type":"say","say":"text","text":"task"}
{"ts":300,"type":"say","say":"condense_context","contextCondense":{"cost":0,"prevContextTokens":9,"newContextTokens":3,"summary":"Did work."}}
"#,
            CONDENSED_API,
            RewindTarget::Timestamp(300.0),
            RewindOptions::default(),
            expect![[r#"
            ui kept: 1 cutoff: 300 ids: RemovedContextIds { condense_ids: [], truncation_ids: [], summaries_without_id: ["Did work."] }
            api changed: true
            {"role":"user","content":"task","ts":100}
            {"role":"assistant","content":"work","ts":200}
            diagnostic #2 summary-matched-by-text: removed by its summary text: the condense_context event had no condenseId
        "#]],
        );
    }

    #[test]
    fn rewind_restores_messages_hidden_by_a_removed_truncation() {
        check_rewind(
            r#"
{"ts":10,"type":"say","say":"text"}
{"ts":50,"type":"say","say":"sliding_window_truncation","contextTruncation":{"truncationId":"T","messagesRemoved":2,"prevContextTokens":9,"newContextTokens":3}}
"#,
            r#"
{"role":"user","content":"first","ts":10}
{"role":"assistant","content":"a","ts":20,"truncationParent":"T"}
{"role":"user","content":"b","ts":30,"truncationParent":"T"}
{"role":"user","content":"[Sliding window truncation: 2 messages hidden to reduce context]","ts":39,"isTruncationMarker":true,"truncationId":"T"}
{"role":"assistant","content":"c","ts":40}
"#,
            RewindTarget::Timestamp(50.0),
            RewindOptions::default(),
            expect![[r#"
            ui kept: 1 cutoff: 50 ids: RemovedContextIds { condense_ids: [], truncation_ids: ["T"], summaries_without_id: [] }
            api changed: true
            {"role":"user","content":"first","ts":10}
            {"role":"assistant","content":"a","ts":20}
            {"role":"user","content":"b","ts":30}
            {"role":"assistant","content":"c","ts":40}
        "#]],
        );
    }

    #[test]
    fn rewind_cutoff_moves_to_the_next_user_message_when_no_api_ts_matches() {
        // The assistant message streamed at 35 (after the clicked UI message at 30) is kept.
        check_rewind(
            r#"
{"ts":10,"type":"say","say":"text"}
{"ts":30,"type":"say","say":"text"}
"#,
            r#"
{"role":"user","content":"a","ts":10}
{"role":"assistant","content":"b","ts":35}
{"role":"user","content":"c","ts":40}
{"content":"no ts is always kept"}
{"role":"assistant","content":"d","ts":50}
"#,
            RewindTarget::Timestamp(30.0),
            RewindOptions {
                include_target_message: true,
                skip_cleanup: false,
            },
            expect![[r#"
            ui kept: 2 cutoff: 30 ids: RemovedContextIds { condense_ids: [], truncation_ids: [], summaries_without_id: [] }
            api changed: true
            {"role":"user","content":"a","ts":10}
            {"role":"assistant","content":"b","ts":35}
            {"content":"no ts is always kept"}
        "#]],
        );
    }

    #[test]
    fn rewind_treats_a_zero_ts_as_no_timestamp_for_the_race_fix() {
        // ts 0 is "no timestamp" (always kept), so it does not count as an older message.
        check_rewind(
            r#"{"ts":30,"type":"say","say":"text"}"#,
            r#"
{"role":"user","content":"a","ts":0}
{"role":"assistant","content":"b","ts":35}
{"role":"user","content":"c","ts":40}
"#,
            RewindTarget::Timestamp(30.0),
            RewindOptions::default(),
            expect![[r#"
            ui kept: 0 cutoff: 30 ids: RemovedContextIds { condense_ids: [], truncation_ids: [], summaries_without_id: [] }
            api changed: true
            {"role":"user","content":"a","ts":0}
        "#]],
        );
    }

    #[test]
    fn rewind_with_an_exact_api_ts_cuts_there() {
        check_rewind(
            r#"{"ts":35,"type":"say","say":"text"}"#,
            r#"
{"role":"user","content":"a","ts":10}
{"role":"assistant","content":"b","ts":35}
{"role":"user","content":"c","ts":40}
"#,
            RewindTarget::Timestamp(35.0),
            RewindOptions::default(),
            expect![[r#"
            ui kept: 0 cutoff: 35 ids: RemovedContextIds { condense_ids: [], truncation_ids: [], summaries_without_id: [] }
            api changed: true
            {"role":"user","content":"a","ts":10}
        "#]],
        );
    }

    #[test]
    fn rewind_that_removes_nothing_reports_no_change() {
        check_rewind(
            r#"{"ts":99,"type":"say","say":"text"}"#,
            r#"
{"role":"user","content":"a","ts":10,"condenseParent":"A"}
{"role":"user","content":"S","ts":11,"isSummary":true,"condenseId":"A"}
"#,
            RewindTarget::Index(5),
            RewindOptions::default(),
            expect![[r#"
            ui kept: 1 cutoff: 9000 ids: RemovedContextIds { condense_ids: [], truncation_ids: [], summaries_without_id: [] }
            api changed: false
            {"role":"user","content":"a","ts":10,"condenseParent":"A"}
            {"role":"user","content":"S","ts":11,"isSummary":true,"condenseId":"A"}
        "#]],
        );
    }

    #[test]
    fn rewind_to_an_unknown_timestamp_is_an_error() {
        check_rewind(
            r#"{"ts":1,"type":"say"}"#,
            "",
            RewindTarget::Timestamp(2.0),
            RewindOptions::default(),
            expect![[r#"
            error: Message with timestamp 2 not found in clineMessages
        "#]],
        );
    }

    #[test]
    fn rewind_with_skip_cleanup_leaves_dangling_tags() {
        let api = history(CONDENSED_API);
        let removed = RemovedContextIds {
            condense_ids: vec!["S1".into()],
            ..RemovedContextIds::default()
        };
        let (result, diagnostics) = rewind_api_history(api, 1000.0, &removed, true);
        assert!(diagnostics.is_empty());
        expect![[r#"
        changed: true
        {"role":"user","content":"task","ts":100,"condenseParent":"S1"}
        {"role":"assistant","content":"work","ts":200,"condenseParent":"S1"}
    "#]]
        .assert_eq(&format!(
            "changed: {}\n{}",
            result.changed,
            render(&result.messages)
        ));
    }

    // ---------------------------------------------------------------- token accounting

    fn check_tokens(input: &str, expect: Expect) {
        let messages = history(input);
        // One token per whitespace-separated word keeps the snapshots readable.
        let words = |text: &str| text.split_whitespace().count();
        let raw = history_token_breakdown(&messages, &words);
        let estimate = history_token_breakdown(&messages, &Estimate(words));
        expect.assert_eq(&format!(
            "raw: {} {:?}\nestimate: {} {:?}\n",
            raw.total, raw.per_message, estimate.total, estimate.per_message
        ));
    }

    #[test]
    fn token_breakdown_counts_what_the_model_sees() {
        check_tokens(
            r#"
{"role":"user","content":"Hello world"}
{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"AAAAAAAAAA"}}]}
{"role":"user","content":[{"type":"image","source":{"type":"url","url":"http://x"}}]}
{"role":"assistant","content":[{"type":"tool_use","id":"1","name":"read_file","input":{"path":"a b"}}]}
{"role":"user","content":[{"type":"tool_result","tool_use_id":"1","is_error":true,"content":[{"type":"text","text":"x y"},{"type":"image"},{"type":"doc"}]}]}
{"role":"assistant","content":[{"type":"reasoning","text":"not counted"},{"type":"text"}]}
{"role":"user","content":""}
{"role":"user"}
"#,
            // `Tool: read_file` / `Arguments: {"path":"a b"}` is 5 words; the tool result lines are
            // `Tool Result (1)`, `[Error]`, `x y`, `[Image content]`, `[Unsupported content block: doc]`.
            expect![[r#"
            raw: 323 [2, 4, 300, 5, 12, 0, 0, 0]
            estimate: 485 [3, 6, 450, 8, 18, 0, 0, 0]
        "#]],
        );
    }

    #[test]
    fn token_estimate_matches_the_spec_known_values() {
        let two_tokens = |_: &str| 2;
        let thousand = "A".repeat(1000);
        let messages = history(&format!(
            r#"
{{"role":"user","content":[{{"type":"text","text":"Hello world"}}]}}
{{"role":"user","content":[{{"type":"image","source":{{"type":"base64","data":"{thousand}"}}}}]}}
{{"role":"user","content":[{{"type":"image","source":{{}}}}]}}
{{"role":"user","content":[{{"type":"text","text":""}}]}}
"#
        ));
        let breakdown = history_token_breakdown(&messages, &Estimate(two_tokens));
        // "Hello world" is 2 raw tokens -> 3; 1000 chars of data -> 32 -> 48; no data -> 300 -> 450.
        // The empty text still costs the stub's 2 tokens: real counters give 0 for "".
        assert_eq!(breakdown.per_message, vec![3, 48, 450, 3]);
        assert_eq!(breakdown.total, 504);
    }

    // ---------------------------------------------------------------- diagnostics

    fn check_diagnostics(input: &str, expect: Expect) {
        let value: Value = serde_json::from_str(input).unwrap();
        let actual = match parse_history(value) {
            Ok(parsed) => {
                let effective = effective_api_history(&parsed.messages);
                let mut text = format!("effective: {:?}\n", effective.source_indices);
                for diagnostic in &parsed.diagnostics {
                    text.push_str(&format!("{diagnostic}\n"));
                }
                text
            }
            Err(error) => format!("error: {error}\n"),
        };
        expect.assert_eq(&actual);
    }

    #[test]
    fn odd_histories_get_best_effort_results_and_diagnostics() {
        check_diagnostics(
            r#"[
{"content":"no role","ts":"yesterday"},
{"role":"system","content":7},
{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x"},{"type":"tool_use","id":"t"},{"type":"tool_use"},"loose string",{"no":"type"}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"nobody"}],"condenseParent":"gone"},
{"role":"user","isSummary":true,"content":"S"},
{"role":"user","isSummary":true,"condenseId":"D","content":"S"},
{"role":"user","isSummary":true,"condenseId":"D","content":"S","truncationParent":5},
{"role":"user","isTruncationMarker":true}
]"#,
            expect![[r#"
            effective: [6, 7]
            #0 missing-role: message has no string role
            #0 invalid-timestamp: ts is a string, not a number; treated as absent
            #1 unknown-role: role "system" is neither user nor assistant
            #1 invalid-content: content is a number, not a string or an array
            #2 invalid-block: content block 3 has no string type
            #2 invalid-block: content block 4 has no string type
            #2 duplicate-tool-use-id: tool_use id "t" is also used in message 2
            #2 tool-use-without-id: tool_use block has no string id
            #3 orphan-tool-result: tool_result for "nobody" answers no earlier tool_use
            #3 dangling-parent: condenseParent "gone" names no summary; the tag is ignored
            #4 summary-without-id: summary has no condenseId; rewind cannot find it by id
            #6 invalid-tag: truncationParent is a number, not a string; ignored
            #6 duplicate-id: condenseId "D" is also used by message 5
            #7 missing-content: message has no content
            #7 marker-without-id: truncation marker has no truncationId
        "#]],
        );
    }

    #[test]
    fn histories_that_are_not_arrays_of_objects_are_rejected() {
        check_diagnostics(
            r#"{"role":"user"}"#,
            expect![[r#"
            error: the history must be an array of messages, found object
        "#]],
        );
        check_diagnostics(
            r#"[{"role":"user","content":"a"}, "b"]"#,
            expect![[r#"
            error: message 1 must be an object, found string
        "#]],
        );
    }

    // ---------------------------------------------------------------- directory fixtures

    /// Each `fixtures/conversation/effective/<case>/history.json` runs through the request pipeline
    /// of spec §7.2 (effective history, since last summary, merge for the API) plus diagnostics and
    /// token accounting; the result is compared with `<case>/snapshot.txt` (`UPDATE_EXPECT=1` writes it).
    #[test]
    fn effective_history_fixtures_match_their_snapshots() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/conversation/effective");
        let mut cases: Vec<_> = std::fs::read_dir(&root)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.join("history.json").is_file())
            .collect();
        cases.sort();
        assert!(!cases.is_empty(), "no fixtures under {}", root.display());
        for case in cases {
            let input = std::fs::read_to_string(case.join("history.json")).unwrap();
            let parsed = parse_history(serde_json::from_str(&input).unwrap()).unwrap();
            let messages = &parsed.messages;
            let effective = effective_api_history(messages);
            let since = messages_since_last_summary(&effective.messages);
            let request = merge_consecutive_api_messages(since, &[Role::User]);
            let words = |text: &str| text.split_whitespace().count();
            let stored_tokens = history_token_breakdown(messages, &Estimate(words));
            let visible_tokens = history_token_breakdown(&request.messages, &Estimate(words));

            let mut snapshot = String::new();
            snapshot.push_str(&format!(
                "effective (changed: {}, sources {:?}):\n{}",
                effective.changed,
                effective.source_indices,
                render(&effective.messages)
            ));
            snapshot.push_str(&format!(
                "\nrequest (merged: {}):\n{}",
                request.changed,
                render(&request.messages)
            ));
            snapshot.push_str(&format!(
                "\ntokens (words x1.5): stored {} {:?}, request {} {:?}\n",
                stored_tokens.total,
                stored_tokens.per_message,
                visible_tokens.total,
                visible_tokens.per_message
            ));
            if let Some(first) = messages.first() {
                snapshot.push_str(&format!(
                    "command blocks of the first message: {:?}\n",
                    extract_command_blocks(first)
                ));
            }
            snapshot.push_str("diagnostics:\n");
            for diagnostic in &parsed.diagnostics {
                snapshot.push_str(&format!("  {diagnostic}\n"));
            }
            expect_test::expect_file![case.join("snapshot.txt")].assert_eq(&snapshot);
        }
    }
}
