//! Tests of the folded file context: section format, order, the character budget's stop and
//! truncate rules, UTF-16 counting, and files that must never appear.

use expect_test::{Expect, expect};
use roo_context_fold::{
    FileDiagnosticKind, FoldContent, FoldInput, FoldOptions, FoldedContext, OutlineCache,
    folded_file_context, folded_file_context_with, utf16_len,
};

fn text(path: &str, content: &str) -> FoldInput {
    FoldInput {
        display_path: path.to_owned(),
        content: FoldContent::Text(content.to_owned()),
    }
}

/// A TypeScript file with `count` functions of 4 lines each.
fn functions(count: usize) -> String {
    (0..count)
        .map(|i| format!("function f{i}() {{\n  const a = {i};\n  return a;\n}}\n"))
        .collect()
}

/// Render the result: counters, then diagnostics, then the content.
fn check(result: &FoldedContext, expected: Expect) {
    let mut rendered = format!(
        "processed={} skipped={} chars={}\n",
        result.files_processed, result.files_skipped, result.character_count
    );
    for diagnostic in &result.diagnostics {
        rendered.push_str(&format!(
            "! {} {:?} included={} {}\n",
            diagnostic.display_path, diagnostic.kind, diagnostic.included, diagnostic.message
        ));
    }
    rendered.push_str("===\n");
    rendered.push_str(&result.content);
    expected.assert_eq(&rendered);
}

#[test]
fn sections_are_wrapped_in_input_order_with_basename_header() {
    let result = folded_file_context(
        &[
            text("src/b.ts", &functions(2)),
            text(
                "/abs/path/a.rs",
                "fn main() {\n    let a = 1;\n    let b = 2;\n}\n",
            ),
        ],
        50_000,
    );
    check(
        &result,
        expect![[r#"
            processed=2 skipped=0 chars=212
            ===
            <system-reminder>
            ## File Context: src/b.ts
            # b.ts
            1--4 | function f0() {
            5--8 | function f1() {

            </system-reminder>
            <system-reminder>
            ## File Context: /abs/path/a.rs
            # a.rs
            1--4 | fn main() {

            </system-reminder>"#]],
    );
    assert_eq!(result.sections.len(), 2);
    assert_eq!(result.content, result.sections.join("\n"));
}

#[test]
fn empty_input_gives_an_empty_result() {
    let result = folded_file_context(&[], 50_000);
    assert_eq!(result, FoldedContext::default());
}

#[test]
fn skipped_unsupported_binary_and_definitionless_files_never_appear() {
    let result = folded_file_context(
        &[
            FoldInput {
                display_path: "secret/keys.ts".to_owned(),
                content: FoldContent::Skipped {
                    reason: "blocked by .rooignore".to_owned(),
                },
            },
            text("notes.txt", "# Title\n\nbody\n\nmore\n"),
            FoldInput {
                display_path: "image.ts".to_owned(),
                content: FoldContent::Bytes(b"\x89PNG\r\n\x1a\n\0\0\0".to_vec()),
            },
            text("tiny.ts", "const a = 1;\n"),
            text("ok.ts", &functions(1)),
        ],
        50_000,
    );
    check(
        &result,
        expect![[r#"
            processed=1 skipped=4 chars=91
            ! secret/keys.ts SkippedByHost included=false blocked by .rooignore
            ! notes.txt UnsupportedLanguage included=false unsupported file type: notes.txt
            ! image.ts Binary included=false binary file (NUL byte in the first 8000 bytes)
            ! tiny.ts NoDefinitions included=false no definitions spanning enough lines
            ===
            <system-reminder>
            ## File Context: ok.ts
            # ok.ts
            1--4 | function f0() {

            </system-reminder>"#]],
    );
    assert!(!result.content.contains("secret"));
    assert!(!result.content.contains("keys.ts"));
}

#[test]
fn invalid_utf8_is_decoded_lossily_and_reported() {
    let mut bytes = b"// caf\xe9\n".to_vec();
    bytes.extend_from_slice(functions(1).as_bytes());
    let result = folded_file_context(
        &[FoldInput {
            display_path: "latin1.ts".to_owned(),
            content: FoldContent::Bytes(bytes),
        }],
        50_000,
    );
    check(
        &result,
        expect![[r#"
            processed=1 skipped=0 chars=99
            ! latin1.ts InvalidUtf8 included=true invalid UTF-8 replaced with U+FFFD
            ===
            <system-reminder>
            ## File Context: latin1.ts
            # latin1.ts
            2--5 | function f0() {

            </system-reminder>"#]],
    );
}

#[test]
fn a_section_over_budget_is_truncated_and_the_rest_skipped() {
    let inputs = [
        text("first.ts", &functions(3)),
        text("second.ts", &functions(40)),
        text("third.ts", &functions(1)),
    ];
    let first_len = utf16_len(&folded_file_context(&inputs[..1], 50_000).content);
    // Leave 300 characters for the second file: enough to truncate (>= 200).
    let result = folded_file_context(&inputs, first_len + 300);
    let second = &result.sections[1];
    // remaining - 100 characters of definitions are kept, then the marker, then the wrapper.
    let expected_kept = 300 - 100;
    let wrapper =
        "<system-reminder>\n## File Context: second.ts\n".len() + "\n</system-reminder>".len();
    assert_eq!(
        utf16_len(second),
        wrapper + expected_kept + "\n... (truncated)".len()
    );
    assert_eq!(result.files_processed, 2);
    assert_eq!(result.files_skipped, 1);
    check(
        &result,
        expect![[r#"
            processed=2 skipped=1 chars=425
            ! second.ts Truncated included=true definitions cut to 200 of 1068 characters to fit the budget
            ! third.ts OverBudget included=false the 444-character budget is used up
            ===
            <system-reminder>
            ## File Context: first.ts
            # first.ts
            1--4 | function f0() {
            5--8 | function f1() {
            9--12 | function f2() {

            </system-reminder>
            <system-reminder>
            ## File Context: second.ts
            # second.ts
            1--4 | function f0() {
            5--8 | function f1() {
            9--12 | function f2() {
            13--16 | function f3() {
            17--20 | function f4() {
            21--24 | function f5() {
            25--28 | function f6() {
            29--32 | function 
            ... (truncated)
            </system-reminder>"#]],
    );
}

#[test]
fn less_than_200_characters_left_skips_this_and_all_following_files() {
    let inputs = [
        text("first.ts", &functions(3)),
        text("second.ts", &functions(40)),
        text("third.ts", &functions(1)),
    ];
    let first_len = utf16_len(&folded_file_context(&inputs[..1], 50_000).content);
    let result = folded_file_context(&inputs, first_len + 199);
    assert_eq!(result.files_processed, 1);
    assert_eq!(result.files_skipped, 2);
    assert_eq!(result.character_count, first_len);
    check(
        &result,
        expect![[r#"
            processed=1 skipped=2 chars=144
            ! second.ts OverBudget included=false the 343-character budget is used up
            ! third.ts OverBudget included=false the 343-character budget is used up
            ===
            <system-reminder>
            ## File Context: first.ts
            # first.ts
            1--4 | function f0() {
            5--8 | function f1() {
            9--12 | function f2() {

            </system-reminder>"#]],
    );
}

#[test]
fn the_budget_counts_utf16_units_and_truncation_never_splits_a_character() {
    // Each emoji is 2 UTF-16 units (4 bytes); the first line repeats them.
    let emoji_line = "😀".repeat(300);
    let source = format!("function f() {{ // {emoji_line}\n  const a = 1;\n  return a;\n}}\n");
    let result = folded_file_context(&[text("e.ts", &source)], 400);
    assert_eq!(result.files_processed, 1);
    let section = &result.sections[0];
    assert!(section.contains("... (truncated)"));
    // 400 - 100 = 300 units of definitions kept: "# e.ts\n" is 7, then "1--4 | function f() { // "
    // is 25, leaving 268 units = 134 emoji.
    let kept_emoji = section.matches('😀').count();
    assert_eq!(kept_emoji, 134);
    assert_eq!(result.character_count, utf16_len(&result.content));
    // The 100 reserved characters cover this short header, so the cap holds here.
    assert!(result.character_count <= 400);
}

#[test]
fn a_cached_second_run_returns_the_same_content_and_sees_changes() {
    let cache = OutlineCache::default();
    let options = FoldOptions::default();
    let inputs = vec![text("a.ts", &functions(2)), text("b.ts", &functions(3))];
    let cold = folded_file_context_with(&inputs, &options, Some(&cache));
    assert_eq!(cache.len(), 2);
    let warm = folded_file_context_with(&inputs, &options, Some(&cache));
    assert_eq!(cold, warm);
    let changed = vec![text("a.ts", &functions(1)), text("b.ts", &functions(3))];
    let after_change = folded_file_context_with(&changed, &options, Some(&cache));
    assert_eq!(after_change.content.matches("function f").count(), 1 + 3);
    cache.invalidate("a.ts");
    assert_eq!(cache.len(), 1);
}

#[test]
fn over_budget_diagnostics_name_every_file_left_out() {
    let inputs = [
        text("one.ts", &functions(2)),
        text("two.ts", &functions(2)),
        FoldInput {
            display_path: "blocked.ts".to_owned(),
            content: FoldContent::Skipped {
                reason: "blocked".to_owned(),
            },
        },
    ];
    let result = folded_file_context(&inputs, 100);
    assert_eq!(result.files_processed, 0);
    assert_eq!(result.files_skipped, 3);
    assert!(result.content.is_empty());
    // Every file is outlined before the budget is spent in priority order, so a file the host
    // skipped keeps its own reason even past the budget.
    let kinds: Vec<FileDiagnosticKind> = result.diagnostics.iter().map(|d| d.kind).collect();
    assert_eq!(
        kinds,
        vec![
            FileDiagnosticKind::SkippedByHost,
            FileDiagnosticKind::OverBudget,
            FileDiagnosticKind::OverBudget
        ]
    );
}

#[test]
fn a_long_path_header_can_push_a_truncated_section_past_the_cap_as_in_the_original() {
    let long_path = format!("{}/file.ts", "deep".repeat(40));
    let result = folded_file_context(&[text(&long_path, &functions(50))], 1_000);
    assert_eq!(result.files_processed, 1);
    assert!(result.sections[0].ends_with("... (truncated)\n</system-reminder>"));
    assert!(result.character_count > 1_000);
}
