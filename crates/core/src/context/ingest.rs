//! Bounded tool output at ingest (issue 31): a tool output over a token cap becomes a preview made
//! of its head, its tail and, in between, the lines that matter (errors, failing tests, runner and
//! compiler summaries), with a note naming the stored id and the paging method. Pure and
//! deterministic; one pass over the lines, memory bounded by the preview (plus one hash per shown
//! line), so a 100 MB output costs time linear in its size and no copy of it.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use crate::conversation::TokenCounter;

/// The default cap: 8,000 tokens, about 6 % of a 128k context window.
pub const DEFAULT_OUTPUT_CAP_TOKENS: usize = 8_000;

/// The smallest cap honoured (below it a preview could not hold its own note).
pub const MIN_OUTPUT_CAP_TOKENS: usize = 200;

/// A shown line longer than this many bytes is cut (at a character boundary) with a marker.
pub const MAX_SHOWN_LINE_BYTES: usize = 400;

/// Outputs of more bytes than this many times the cap are previewed without counting their tokens
/// (no tokenizer gives fewer than one token per 64 bytes of real tool output).
pub const BYTES_PER_TOKEN_UPPER_BOUND: usize = 64;

/// The kind of tool that produced the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputKind {
    /// A shell command.
    Command,
    /// An MCP tool.
    Mcp,
    /// A search (grep, codebase search).
    Search,
    /// A file read.
    FileRead,
    /// Anything else.
    #[default]
    Other,
}

impl OutputKind {
    /// Whether error and summary lines of the middle are kept (a file read's middle is content, so
    /// only its head and tail are shown: a source file that says `error` is not a failure).
    fn keeps_matching_lines(self) -> bool {
        !matches!(self, OutputKind::FileRead)
    }
}

/// What the model sees of one output, and the numbers of what was left out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputPreview {
    /// The model-facing text: the output itself when under the cap, else the preview.
    pub text: String,
    /// Whether `text` is a preview.
    pub truncated: bool,
    /// Bytes of the whole output.
    pub total_bytes: u64,
    /// Lines of the whole output (a last line without a newline counts; an empty output has 0).
    pub total_lines: u64,
    /// Lines not shown in the preview (0 when not truncated).
    pub omitted_lines: u64,
    /// Bytes of the lines not shown (0 when not truncated).
    pub omitted_bytes: u64,
}

/// The lines of `text` (split after `\n`, so a final line without one is a line too).
fn lines(text: &str) -> impl DoubleEndedIterator<Item = &str> {
    text.split_inclusive('\n')
}

/// A line as shown: without its line ending, cut to [`MAX_SHOWN_LINE_BYTES`].
fn shown(line: &str) -> String {
    let bare = line
        .strip_suffix('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .unwrap_or(line);
    if bare.len() <= MAX_SHOWN_LINE_BYTES {
        return bare.to_string();
    }
    let mut cut = MAX_SHOWN_LINE_BYTES;
    while !bare.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{} [... {} more bytes]", &bare[..cut], bare.len() - cut)
}

/// Whether a line reports an error, a failure or a summary of a test runner or compiler.
pub fn is_line_that_matters(line: &str) -> bool {
    const NEEDLES: &[&str] = &[
        "error",
        "Error",
        "ERROR",
        "FAILED",
        "FAIL ",
        "FAIL:",
        "panicked",
        "Traceback",
        "Exception",
        "warning:",
        "✗",
        "✘",
        "not ok",
        "test result:",
        "Tests:",
        "Test Suites:",
        "could not compile",
    ];
    if NEEDLES.iter().any(|needle| line.contains(needle)) {
        return true;
    }
    // `12 passed`, `3 failed` (pytest, jest, mocha, cargo nextest summaries).
    [" passed", " failed", " passing", " failing"]
        .iter()
        .any(|word| {
            line.match_indices(word).any(|(at, _)| {
                line[..at]
                    .trim_end_matches(' ')
                    .ends_with(|c: char| c.is_ascii_digit())
            })
        })
}

fn hash_of(line: &str) -> u64 {
    let mut hasher = DefaultHasher::new();
    line.hash(&mut hasher);
    hasher.finish()
}

/// The note ending a preview: what was left out and how to page it.
fn note(output_id: &str, read_method: &str, preview: &OutputPreview, shown_lines: u64) -> String {
    format!(
        "[Output truncated: showing {shown_lines} of {total} lines; {omitted} lines ({bytes} bytes) omitted. \
         The full output is stored as outputId \"{output_id}\": page it with {read_method} \
         {{\"outputId\": \"{output_id}\", \"startLine\": N, \"endLine\": M}} or {{\"outputId\": \"{output_id}\", \"pattern\": \"regex\"}}.]",
        total = preview.total_lines,
        omitted = preview.omitted_lines,
        bytes = preview.omitted_bytes,
    )
}

/// The model-facing form of a tool output under `cap_tokens` (at least
/// [`MIN_OUTPUT_CAP_TOKENS`]): the text unchanged when it fits, else a preview whose note names
/// `output_id` and `read_method`. Shown middle lines carry their 1-based line number.
pub fn preview_output(
    text: &str,
    kind: OutputKind,
    cap_tokens: usize,
    output_id: &str,
    read_method: &str,
    counter: &dyn TokenCounter,
) -> OutputPreview {
    let cap = cap_tokens.max(MIN_OUTPUT_CAP_TOKENS);
    let total_bytes = text.len() as u64;
    let total_lines = lines(text).count() as u64;
    let unchanged = OutputPreview {
        text: text.to_string(),
        truncated: false,
        total_bytes,
        total_lines,
        omitted_lines: 0,
        omitted_bytes: 0,
    };
    if text.len() <= cap
        || (text.len() <= cap.saturating_mul(BYTES_PER_TOKEN_UPPER_BOUND)
            && counter.count_text(text) <= cap)
    {
        return unchanged;
    }
    // The note's own size is reserved first; the rest is shared head 1/4, tail 1/4, middle 1/2.
    let note_reserve = counter.count_text(&note(
        output_id,
        read_method,
        &OutputPreview {
            omitted_lines: u64::MAX,
            omitted_bytes: u64::MAX,
            total_lines: u64::MAX,
            ..unchanged.clone()
        },
        u64::MAX,
    )) + 40;
    drop(unchanged);
    let budget = cap.saturating_sub(note_reserve);
    let head_budget = budget / 4;
    let tail_budget = budget / 4;

    let mut seen: HashSet<u64> = HashSet::new();
    let line_cost = |line: &str| counter.count_text(line) + 1;

    // Lines from `lines` while `budget` lasts: the shown lines and the bytes they cover.
    let mut take = |lines: &mut dyn Iterator<Item = &str>, budget: usize| {
        let (mut taken, mut bytes, mut spent) = (Vec::new(), 0usize, 0usize);
        for line in lines {
            let shown_line = shown(line);
            let cost = line_cost(&shown_line);
            if spent + cost > budget {
                break;
            }
            spent += cost;
            bytes += line.len();
            seen.insert(hash_of(&shown_line));
            taken.push(shown_line);
        }
        (taken, bytes)
    };
    let (head, head_bytes) = take(&mut lines(text), head_budget);
    // The tail is walked from the end, never into the head.
    let (mut tail, tail_bytes) = take(&mut lines(&text[head_bytes..]).rev(), tail_budget);
    tail.reverse();
    let (head_lines, tail_lines) = (head.len() as u64, tail.len() as u64);

    // Middle: the lines that matter, deduplicated, in order, while the rest of the budget lasts.
    let middle_budget = budget.saturating_sub(
        head.iter()
            .chain(&tail)
            .map(|l| line_cost(l))
            .sum::<usize>(),
    );
    let middle_text = &text[head_bytes..text.len() - tail_bytes];
    let mut middle: Vec<String> = Vec::new();
    let mut middle_lines_shown = 0u64;
    let mut middle_bytes_shown = 0usize;
    let mut gap = 0u64;
    let mut spent = 0usize;
    if kind.keeps_matching_lines() {
        for (index, line) in lines(middle_text).enumerate() {
            let number = head_lines + index as u64 + 1;
            if spent < middle_budget && is_line_that_matters(line) {
                let shown_line = shown(line);
                if seen.insert(hash_of(&shown_line)) {
                    let entry = format!("{number}: {shown_line}");
                    let cost = line_cost(&entry) + if gap > 0 { 12 } else { 0 };
                    if spent + cost <= middle_budget {
                        spent += cost;
                        if gap > 0 {
                            middle.push(format!("[... {gap} lines omitted ...]"));
                        }
                        gap = 0;
                        middle.push(entry);
                        middle_lines_shown += 1;
                        middle_bytes_shown += line.len();
                        continue;
                    }
                    spent = middle_budget;
                }
            }
            gap += 1;
        }
    } else {
        gap = lines(middle_text).count() as u64;
    }
    if gap > 0 {
        middle.push(format!("[... {gap} lines omitted ...]"));
    }

    let shown_lines = head_lines + tail_lines + middle_lines_shown;
    let mut preview = OutputPreview {
        text: String::new(),
        truncated: true,
        total_bytes,
        total_lines,
        omitted_lines: total_lines - shown_lines,
        omitted_bytes: (middle_text.len() - middle_bytes_shown) as u64,
    };
    let mut out = String::new();
    for line in head.iter().chain(&middle).chain(&tail) {
        out.push_str(line);
        out.push('\n');
    }
    out.push_str(&note(output_id, read_method, &preview, shown_lines));
    preview.text = out;
    preview
}

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    /// One token per 4 bytes, rounded up: close enough to o200k for English.
    struct QuarterBytes;
    impl TokenCounter for QuarterBytes {
        fn count_text(&self, text: &str) -> usize {
            text.len().div_ceil(4)
        }
    }

    fn check(text: &str, kind: OutputKind, cap: usize, expect: Expect) {
        let preview = preview_output(text, kind, cap, "abc123", "roo/output/read", &QuarterBytes);
        if preview.truncated {
            assert!(QuarterBytes.count_text(&preview.text) <= cap.max(MIN_OUTPUT_CAP_TOKENS));
        }
        expect.assert_eq(&format!(
            "truncated={} lines={} bytes={} omittedLines={} omittedBytes={}\n{}",
            preview.truncated,
            preview.total_lines,
            preview.total_bytes,
            preview.omitted_lines,
            preview.omitted_bytes,
            preview.text
        ));
    }

    fn cargo_log(passing: usize) -> String {
        let mut log =
            String::from("   Compiling demo v0.1.0\n    Finished test\n     Running unittests\n");
        log.push_str(&format!("running {} tests\n", passing + 2));
        for i in 0..passing {
            log.push_str(&format!("test module::case_{i} ... ok\n"));
            if i == passing / 2 {
                log.push_str("test module::broken ... FAILED\n");
                log.push_str("thread 'module::broken' panicked at src/lib.rs:10:5:\n");
                log.push_str("test module::broken ... FAILED\n");
            }
        }
        log.push_str("failures:\n    module::broken\n");
        log.push_str(&format!(
            "test result: FAILED. {passing} passed; 1 failed; 0 ignored\n"
        ));
        log.push_str("error: test failed, to rerun pass `--lib`");
        log
    }

    #[test]
    fn output_under_the_cap_is_unchanged() {
        let text = "one\ntwo\r\nthree";
        let preview = preview_output(text, OutputKind::Command, 8_000, "id", "m", &QuarterBytes);
        assert!(!preview.truncated);
        assert_eq!(preview.text, text);
        assert_eq!((preview.total_lines, preview.total_bytes), (3, 14));
        assert_eq!((preview.omitted_lines, preview.omitted_bytes), (0, 0));
    }

    #[test]
    fn empty_output_has_no_lines() {
        check(
            "",
            OutputKind::Other,
            DEFAULT_OUTPUT_CAP_TOKENS,
            expect![[r#"
                truncated=false lines=0 bytes=0 omittedLines=0 omittedBytes=0
            "#]],
        );
    }

    #[test]
    fn failing_test_log_keeps_head_tail_failures_and_summary_in_order_once() {
        check(
            &cargo_log(2_000),
            OutputKind::Command,
            600,
            expect![[r#"
            truncated=true lines=2011 bytes=59214 omittedLines=1981 omittedBytes=58353
               Compiling demo v0.1.0
                Finished test
                 Running unittests
            running 2002 tests
            test module::case_0 ... ok
            test module::case_1 ... ok
            test module::case_2 ... ok
            test module::case_3 ... ok
            test module::case_4 ... ok
            test module::case_5 ... ok
            test module::case_6 ... ok
            test module::case_7 ... ok
            test module::case_8 ... ok
            test module::case_9 ... ok
            test module::case_10 ... ok
            [... 990 lines omitted ...]
            1006: test module::broken ... FAILED
            1007: thread 'module::broken' panicked at src/lib.rs:10:5:
            [... 991 lines omitted ...]
            test module::case_1991 ... ok
            test module::case_1992 ... ok
            test module::case_1993 ... ok
            test module::case_1994 ... ok
            test module::case_1995 ... ok
            test module::case_1996 ... ok
            test module::case_1997 ... ok
            test module::case_1998 ... ok
            test module::case_1999 ... ok
            failures:
                module::broken
            test result: FAILED. 2000 passed; 1 failed; 0 ignored
            error: test failed, to rerun pass `--lib`
            [Output truncated: showing 30 of 2011 lines; 1981 lines (58353 bytes) omitted. The full output is stored as outputId "abc123": page it with roo/output/read {"outputId": "abc123", "startLine": N, "endLine": M} or {"outputId": "abc123", "pattern": "regex"}.]"#]],
        );
    }

    #[test]
    fn file_read_shows_head_and_tail_only() {
        let text: String = (0..500)
            .map(|i| format!("let error_{i} = {i};\n"))
            .collect();
        check(
            &text,
            OutputKind::FileRead,
            MIN_OUTPUT_CAP_TOKENS,
            expect![[r#"
                truncated=true lines=500 bytes=10280 omittedLines=494 omittedBytes=10166
                let error_0 = 0;
                let error_1 = 1;
                let error_2 = 2;
                [... 494 lines omitted ...]
                let error_497 = 497;
                let error_498 = 498;
                let error_499 = 499;
                [Output truncated: showing 6 of 500 lines; 494 lines (10166 bytes) omitted. The full output is stored as outputId "abc123": page it with roo/output/read {"outputId": "abc123", "startLine": N, "endLine": M} or {"outputId": "abc123", "pattern": "regex"}.]"#]],
        );
    }

    #[test]
    fn one_huge_line_is_cut_within_the_cap() {
        let text = "x".repeat(100_000);
        check(
            &text,
            OutputKind::Mcp,
            600,
            expect![[r#"
            truncated=true lines=1 bytes=100000 omittedLines=0 omittedBytes=0
            xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx [... 99600 more bytes]
            [Output truncated: showing 1 of 1 lines; 0 lines (0 bytes) omitted. The full output is stored as outputId "abc123": page it with roo/output/read {"outputId": "abc123", "startLine": N, "endLine": M} or {"outputId": "abc123", "pattern": "regex"}.]"#]],
        );
    }

    #[test]
    fn lines_that_matter_are_recognised() {
        for line in [
            "error[E0308]: mismatched types",
            "Error: boom",
            "FAIL src/a.test.ts",
            "thread 'x' panicked at",
            "Traceback (most recent call last):",
            "warning: unused variable",
            "not ok 3 - adds",
            "test result: ok. 3 passed",
            "Tests:       1 failed, 2 passed, 3 total",
            "=== 4 passed in 0.1s ===",
            "error: could not compile `demo`",
            "  ✗ renders",
        ] {
            assert!(is_line_that_matters(line), "{line}");
        }
        for line in ["test a ... ok", "compiling", "the test passed", "all good"] {
            assert!(!is_line_that_matters(line), "{line}");
        }
    }

    #[test]
    fn many_matching_lines_stay_under_the_cap_and_are_counted_as_omitted() {
        let text: String = (0..20_000)
            .map(|i| format!("error: number {i}\n"))
            .collect();
        let preview = preview_output(
            &text,
            OutputKind::Command,
            1_000,
            "id",
            "roo/output/read",
            &QuarterBytes,
        );
        assert!(preview.truncated);
        assert!(QuarterBytes.count_text(&preview.text) <= 1_000);
        assert_eq!(preview.total_lines, 20_000);
        let shown = preview
            .text
            .lines()
            .filter(|l| l.contains("error: number"))
            .count() as u64;
        assert_eq!(preview.omitted_lines, 20_000 - shown);
    }

    #[test]
    fn a_repeated_error_line_is_shown_once_with_its_first_line_number() {
        let mut text = String::new();
        for i in 0..3_000 {
            text.push_str(&format!("step {i} ok\n"));
            if i % 1_000 == 500 {
                text.push_str("error: disk full\n");
            }
        }
        let preview = preview_output(&text, OutputKind::Command, 600, "id", "m", &QuarterBytes);
        assert!(preview.truncated);
        assert_eq!(preview.text.matches("error: disk full").count(), 1);
        assert!(
            preview.text.contains("\n502: error: disk full\n"),
            "{}",
            preview.text
        );
    }

    #[test]
    fn preview_is_deterministic() {
        let text = cargo_log(3_000);
        let a = preview_output(&text, OutputKind::Command, 500, "id", "m", &QuarterBytes);
        let b = preview_output(&text, OutputKind::Command, 500, "id", "m", &QuarterBytes);
        assert_eq!(a, b);
    }
}
