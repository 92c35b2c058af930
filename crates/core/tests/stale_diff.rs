//! The user's-diff notice: golden texts (the original's line byte for byte, the diff section),
//! every fallback the pure builder decides, the bounds, and a property test that applying the
//! diff to the baseline gives the new text exactly (CRLF, lone CR, missing final newline).

use std::time::Duration;

use proptest::prelude::*;
use roo_context_core::stale_diff::*;
use roo_context_core::tracker::ChangeKind;

/// The default bounds with no deadline that a loaded machine could reach (tests never depend
/// on wall-clock time; the timeout has its own case with a zero deadline).
fn patient() -> DiffLimits {
    DiffLimits {
        timeout: Duration::from_secs(3600),
        ..DiffLimits::default()
    }
}

fn numbered(n: usize) -> String {
    (1..=n)
        .map(|i| format!("export const value{i} = compute({i}, \"item-{i}\");\n"))
        .collect()
}

fn edit_lines(text: &str, at: &[usize], with: &str) -> String {
    text.split_inclusive('\n')
        .enumerate()
        .map(|(i, l)| {
            if at.contains(&i) {
                format!("{with} {i}\n")
            } else {
                l.to_owned()
            }
        })
        .collect()
}

#[test]
fn a_three_line_edit_gives_one_hunk_and_the_golden_text() {
    let old = numbered(40);
    let new = edit_lines(&old, &[20, 21, 22], "// the user rewrote line");
    let mut builder = NoticeBuilder::new(patient());
    let added = builder.add(
        "src/values.ts",
        ChangeKind::Modified,
        Side::Text(&old),
        Side::Text(&new),
    );
    assert_eq!(added, Added::Diff);
    let notice = builder.finish();
    let file = &notice.files[0];
    assert_eq!(
        file.stat,
        Some(DiffStat {
            added: 3,
            removed: 3,
            hunks: 1
        })
    );
    assert_eq!(
        apply_unified_diff(&old, file.diff.as_deref().unwrap()).as_deref(),
        Some(new.as_str())
    );
    expect_test::expect_file!["golden/stale_diff/three_line_edit.txt"].assert_eq(&notice.text);
}

#[test]
fn fallbacks_keep_the_original_section_byte_for_byte() {
    let old = numbered(10);
    let new = edit_lines(&old, &[4], "// changed");
    let mut builder = NoticeBuilder::new(patient());
    builder.add(
        "a.ts",
        ChangeKind::Modified,
        Side::Missing(Fallback::NoBaseline),
        Side::Text(&new),
    );
    builder.add(
        "b.ts",
        ChangeKind::Deleted,
        Side::Text(&old),
        Side::Missing(Fallback::Unreadable),
    );
    builder.add(
        "c.ts",
        ChangeKind::Modified,
        Side::Text(&old),
        Side::Text(&new),
    );
    let notice = builder.finish();
    let reasons: Vec<_> = notice.files.iter().map(|f| f.fallback).collect();
    assert_eq!(
        reasons,
        [Some(Fallback::NoBaseline), Some(Fallback::Deleted), None]
    );
    // What the original's getEnvironmentDetails appends for a.ts and b.ts, exactly.
    let original = "\n\n# Recently Modified Files\nThese files have been modified since you last accessed them (file was just edited so you may need to re-read it before editing):\na.ts\nb.ts";
    assert!(notice.text.starts_with(original), "{}", notice.text);
    expect_file_text("golden/stale_diff/mixed.txt", &notice.text);
}

fn expect_file_text(path: &str, text: &str) {
    // expect_file! needs a literal; keep the two goldens named here.
    match path {
        "golden/stale_diff/mixed.txt" => {
            expect_test::expect_file!["golden/stale_diff/mixed.txt"].assert_eq(text)
        }
        _ => unreachable!(),
    }
}

#[test]
fn only_fallbacks_give_only_the_original_section() {
    let mut builder = NoticeBuilder::new(patient());
    builder.fall_back("src/a.ts", ChangeKind::Modified, Fallback::Blocked);
    builder.fall_back("src/b.ts", ChangeKind::Modified, Fallback::Binary);
    assert_eq!(
        builder.finish().text,
        format!("{RECENTLY_MODIFIED_HEADER}\nsrc/a.ts\nsrc/b.ts")
    );
}

#[test]
fn equal_content_is_not_reported_at_all() {
    let text = numbered(5);
    let mut builder = NoticeBuilder::new(patient());
    let added = builder.add(
        "a",
        ChangeKind::Modified,
        Side::Text(&text),
        Side::Text(&text),
    );
    assert_eq!(added, Added::Unchanged);
    let notice = builder.finish();
    assert!(notice.files.is_empty() && notice.text.is_empty());
}

#[test]
fn each_bound_gives_its_reason() {
    let old = numbered(400);
    let one = |limits: DiffLimits, new: &str| {
        let mut builder = NoticeBuilder::new(limits);
        builder.add("f", ChangeKind::Modified, Side::Text(&old), Side::Text(new))
    };
    // More changed lines than allowed.
    let many: Vec<usize> = (0..100).map(|i| i * 3).collect();
    let rewritten = edit_lines(&old, &many, "x");
    assert_eq!(
        one(patient(), &rewritten),
        Added::Fallback(Fallback::TooManyChanges)
    );
    // A diff over the per-file bound.
    let ten = edit_lines(&old, &[10, 50, 90, 130, 170, 210, 250, 290, 330, 370], "y");
    assert_eq!(
        one(
            DiffLimits {
                max_chars_per_file: 200,
                ..patient()
            },
            &ten
        ),
        Added::Fallback(Fallback::DiffTooLong)
    );
    // No time at all.
    assert_eq!(
        one(
            DiffLimits {
                timeout: Duration::ZERO,
                ..patient()
            },
            &ten
        ),
        Added::Fallback(Fallback::Timeout)
    );
    // A small file rewritten whole still gets its diff (cheaper than a re-read round trip)...
    let mut builder = NoticeBuilder::new(patient());
    assert_eq!(
        builder.add(
            "s",
            ChangeKind::Modified,
            Side::Text("a\n"),
            Side::Text("b\n")
        ),
        Added::Diff
    );
    // ...a big file rewritten whole does not.
    let other: String = (0..400).map(|i| format!("other line {i}\n")).collect();
    let mut builder = NoticeBuilder::new(DiffLimits {
        max_changed_lines: 10_000,
        max_chars_per_file: 1_000_000,
        max_chars_total: 10_000_000,
        ..patient()
    });
    assert_eq!(
        builder.add(
            "big",
            ChangeKind::Modified,
            Side::Text(&old),
            Side::Text(&other)
        ),
        Added::Fallback(Fallback::TooManyChanges)
    );
}

#[test]
fn the_turn_budget_is_never_exceeded_and_the_first_files_win() {
    let old = numbered(50);
    let limits = DiffLimits {
        max_chars_total: 1500,
        ..patient()
    };
    let mut builder = NoticeBuilder::new(limits);
    let mut results = Vec::new();
    for i in 0..20 {
        let new = edit_lines(&old, &[i * 2], "changed");
        results.push(builder.add(
            &format!("f{i}.ts"),
            ChangeKind::Modified,
            Side::Text(&old),
            Side::Text(&new),
        ));
    }
    assert_eq!(results[0], Added::Diff);
    assert_eq!(results[19], Added::Fallback(Fallback::Budget));
    let notice = builder.finish();
    let diff_section = &notice.text[notice.text.find(CHANGES_HEADER).unwrap()..];
    assert!(diff_section.encode_utf16().count() <= 1500);
    // Every file is in the text: a diff block or the original's line.
    for i in 0..20 {
        assert!(notice.text.contains(&format!("f{i}.ts")));
    }
    // Zero budget: every file falls back, nothing is diffed.
    let mut builder = NoticeBuilder::new(DiffLimits {
        max_chars_total: 0,
        ..patient()
    });
    assert!(!builder.budget_left());
    let new = edit_lines(&old, &[1], "z");
    assert_eq!(
        builder.add(
            "a",
            ChangeKind::Modified,
            Side::Text(&old),
            Side::Text(&new)
        ),
        Added::Fallback(Fallback::Budget)
    );
}

#[test]
fn binary_and_oversized_bytes_are_no_text() {
    assert_eq!(text_of(b"a\0b", 10), Err(Fallback::Binary));
    assert_eq!(text_of(&[0xff, 0xfe], 10), Err(Fallback::Binary));
    assert_eq!(text_of(b"0123456789a", 10), Err(Fallback::TooLarge));
    assert_eq!(text_of(b"ok", 10), Ok("ok"));
}

#[test]
fn a_diff_containing_backticks_gets_a_longer_fence() {
    let mut builder = NoticeBuilder::new(patient());
    builder.add(
        "README.md",
        ChangeKind::Modified,
        Side::Text("# t\n```sh\nmake\n```\n"),
        Side::Text("# t\n```sh\nmake test\n```\n"),
    );
    let text = builder.finish().text;
    assert!(text.contains("\n````diff\n"), "{text}");
    assert!(text.ends_with("````"), "{text}");
}

#[test]
fn crlf_lone_cr_and_missing_final_newline_round_trip() {
    let cases = [
        ("a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n"),
        ("a\r\nb\r\n", "a\nb\n"),
        ("one\rtwo\nthree", "one\rTWO\nthree"),
        ("x\ny", "x\ny\n"),
        ("x\ny\n", "x\ny"),
        ("", "new\n"),
        ("gone\n", ""),
    ];
    for (old, new) in cases {
        let (diff, _) = unified_diff(old, new, 3, None).unwrap();
        assert_eq!(
            apply_unified_diff(old, &diff).as_deref(),
            Some(new),
            "{old:?} -> {new:?}: {diff}"
        );
        // No printed line can run into the next: every line of the diff ends with \n.
        assert!(diff.ends_with('\n'), "{diff:?}");
    }
}

#[test]
fn a_huge_single_line_changed_is_a_rewrite_not_a_megabyte_of_diff() {
    let old = "a".repeat(500_000);
    let new = format!("{old}b");
    let mut builder = NoticeBuilder::new(patient());
    assert_eq!(
        builder.add(
            "min.js",
            ChangeKind::Modified,
            Side::Text(&old),
            Side::Text(&new)
        ),
        Added::Fallback(Fallback::TooManyChanges)
    );
}

/// Replace `remove` lines at `at` with these lines.
type Edit = (usize, usize, Vec<String>);

fn edit_strategy() -> impl Strategy<Value = (Vec<String>, Vec<Edit>)> {
    let line = prop_oneof![
        "[a-c]{0,3}\n",
        "[a-c]{0,3}\r\n",
        "[a-c]{0,2}\r[a-c]{0,2}\n",
        Just("\n".to_owned()),
    ];
    (
        prop::collection::vec(line.clone(), 0..40),
        prop::collection::vec(
            (0usize..40, 0usize..4, prop::collection::vec(line, 0..4)),
            0..5,
        ),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn applying_the_diff_to_the_baseline_gives_the_new_text(
        (base, edits) in edit_strategy(),
        old_tail in "[a-c]{0,2}",
        new_tail in "[a-c]{0,2}",
        context in 0usize..5,
    ) {
        let mut old_lines = base.clone();
        let mut new_lines = base;
        for (at, remove, insert) in edits {
            let at = at.min(new_lines.len());
            let end = (at + remove).min(new_lines.len());
            new_lines.splice(at..end, insert);
        }
        old_lines.push(old_tail);
        new_lines.push(new_tail);
        let old: String = old_lines.concat();
        let new: String = new_lines.concat();
        let (diff, stat) = unified_diff(&old, &new, context, None).unwrap();
        prop_assert_eq!(apply_unified_diff(&old, &diff), Some(new.clone()));
        prop_assert_eq!(diff.is_empty(), old == new);
        prop_assert_eq!(stat.hunks, diff.lines().filter(|l| l.starts_with("@@ ")).count());
        assert_hunk_headers_agree(&diff);
    }
}

#[test]
fn ten_thousand_changed_files_stay_within_the_cap_and_each_is_named_once() {
    let old = numbered(30);
    let new = edit_lines(&old, &[15], "edited");
    let limits = patient();
    let mut builder = NoticeBuilder::new(limits);
    let mut diffs = 0;
    for i in 0..10_000 {
        let path = format!("src/f{i}.ts");
        // What a caller does: once the budget is spent, files are not even read.
        let added = if builder.budget_left() {
            builder.add(
                &path,
                ChangeKind::Modified,
                Side::Text(&old),
                Side::Text(&new),
            )
        } else {
            builder.fall_back(&path, ChangeKind::Modified, Fallback::Budget)
        };
        diffs += usize::from(added == Added::Diff);
    }
    let notice = builder.finish();
    assert_eq!(notice.files.len(), 10_000);
    assert!(diffs > 0 && diffs < 100, "{diffs}");
    let at = notice.text.find(CHANGES_HEADER).unwrap();
    assert!(notice.text[at..].encode_utf16().count() <= limits.max_chars_total);
    let listed = notice.text[..at]
        .lines()
        .filter(|l| l.starts_with("src/f"))
        .count();
    assert_eq!(listed + diffs, 10_000, "every file exactly once");
}

/// The diff as it was made before the byte-level trimming (commit c89f940): every line
/// interned by similar, Myers over the whole files. The trimmed diff may place a change
/// differently among identical lines, never with more changed lines.
fn reference_unified_diff(old: &str, new: &str, context: usize) -> (String, DiffStat) {
    use similar::algorithms::IdentifyDistinct;
    use similar::{Algorithm, DiffTag};
    let old_lines: Vec<&str> = old.split_inclusive('\n').collect();
    let new_lines: Vec<&str> = new.split_inclusive('\n').collect();
    let interned = IdentifyDistinct::<u32>::new(
        &old_lines[..],
        0..old_lines.len(),
        &new_lines[..],
        0..new_lines.len(),
    );
    let ops = similar::capture_diff_deadline(
        Algorithm::Myers,
        interned.old_lookup(),
        interned.old_range(),
        interned.new_lookup(),
        interned.new_range(),
        None,
    );
    let mut stat = DiffStat::default();
    let mut out = String::new();
    for group in similar::group_diff_ops(ops, context) {
        stat.hunks += 1;
        out.push_str(&similar::udiff::UnifiedHunkHeader::new(&group).to_string());
        out.push('\n');
        for op in &group {
            let (tag, old_range, new_range) = op.as_tag_tuple();
            let mut emit = |prefix: char, line: &str| {
                out.push(prefix);
                out.push_str(line);
                if !line.ends_with('\n') {
                    out.push_str("\n\\ No newline at end of file\n");
                }
            };
            match tag {
                DiffTag::Equal => old_lines[old_range].iter().for_each(|l| emit(' ', l)),
                _ => {
                    stat.removed += old_range.len();
                    stat.added += new_range.len();
                    old_lines[old_range].iter().for_each(|l| emit('-', l));
                    new_lines[new_range].iter().for_each(|l| emit('+', l));
                }
            }
        }
    }
    (out, stat)
}

/// Every hunk header agrees with its body: old and new lengths, and the new start follows
/// from the old start and the lines added and removed before it.
fn assert_hunk_headers_agree(diff: &str) {
    let parse = |range: &str| -> (isize, isize) {
        match range.split_once(',') {
            Some((s, l)) => (s.parse().unwrap(), l.parse().unwrap()),
            None => (range.parse().unwrap(), 1),
        }
    };
    // Each hunk: its header's old and new ranges, then the lines counted for each side.
    type Range = (isize, isize);
    let mut hunks: Vec<(Range, Range, isize, isize)> = Vec::new();
    for line in diff.lines() {
        if let Some(header) = line.strip_prefix("@@ -") {
            let ranges = header.strip_suffix(" @@").expect("a header");
            let (old_range, new_range) = ranges.split_once(" +").expect("two ranges");
            hunks.push((parse(old_range), parse(new_range), 0, 0));
            continue;
        }
        let hunk = hunks.last_mut().expect("a line before any header");
        match line.as_bytes().first() {
            Some(b' ') => (hunk.2, hunk.3) = (hunk.2 + 1, hunk.3 + 1),
            Some(b'-') => hunk.2 += 1,
            Some(b'+') => hunk.3 += 1,
            _ => {}
        }
    }
    let mut shift: isize = 0;
    for ((old_start, old_len), (new_start, new_len), seen_old, seen_new) in hunks {
        assert_eq!((seen_old, seen_new), (old_len, new_len), "{diff}");
        // An empty range names the line before it.
        let first_old = if old_len == 0 {
            old_start + 1
        } else {
            old_start
        };
        let first_new = if new_len == 0 {
            new_start + 1
        } else {
            new_start
        };
        assert_eq!(first_new, first_old + shift, "{diff}");
        shift += new_len - old_len;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn the_trimmed_diff_changes_as_few_lines_as_the_whole_file_diff(
        (base, edits) in edit_strategy(),
        old_tail in "[a-c]{0,2}",
        new_tail in "[a-c]{0,2}",
        context in 0usize..5,
    ) {
        let mut new_lines = base.clone();
        for (at, remove, insert) in edits {
            let at = at.min(new_lines.len());
            let end = (at + remove).min(new_lines.len());
            new_lines.splice(at..end, insert);
        }
        let old = format!("{}{old_tail}", base.concat());
        let new = format!("{}{new_tail}", new_lines.concat());
        let (diff, stat) = unified_diff(&old, &new, context, None).unwrap();
        let (_, reference) = reference_unified_diff(&old, &new, context);
        prop_assert!(
            stat.added + stat.removed <= reference.added + reference.removed,
            "{:?} against {:?}", stat, reference
        );
        assert_hunk_headers_agree(&diff);
    }
}

/// Attacks on the byte-level trimming: line ends that differ only in a `\r`, a final line
/// with and without its `\n`, empty sides, one huge line, many tiny lines, identical lines.
#[test]
fn edge_texts_give_a_diff_that_applies_and_is_no_longer_than_the_whole_file_diff() {
    let tiny: String = (0..100_000).map(|i| format!("{}\n", i % 7)).collect();
    let mut tiny_edited = tiny.clone();
    tiny_edited.replace_range(100_000..100_002, "x\n");
    let same = "same line\n".repeat(5000);
    let mut same_edited = same.clone();
    same_edited.insert_str(25_000, "other\n");
    let long = "q".repeat(1024 * 1024 - 1);
    let cases: Vec<(String, String)> = vec![
        ("a\nb\nc\n".into(), "a\r\nb\nc\n".into()),
        ("a\r\nb\r\nc\r\n".into(), "a\r\nb\nc\r\n".into()),
        ("a\nb\r\n".into(), "a\nb\n".into()),
        ("a\nb".into(), "a\nb\n".into()),
        ("a\nb\n".into(), "a\nb".into()),
        ("a\nb".into(), "a\nbc".into()),
        ("a\nbc".into(), "a\nb".into()),
        ("x\nb\n".into(), "y\nb\n".into()),
        ("b\nb\n".into(), "b\n".into()),
        ("\n".into(), "\n\n".into()),
        ("".into(), "".into()),
        ("".into(), "a".into()),
        ("a".into(), "".into()),
        ("ab\n".into(), "ab\nb\n".into()),
        ("a\nc\n".into(), "a\nbc\n".into()),
        ("a\r".into(), "a\r\n".into()),
        // Texts that differ inside a multi-byte character: the trimming compares bytes but
        // must cut at line starts only.
        ("a\u{e9}\nz\n".into(), "a\u{e8}\nz\n".into()),
        ("\u{1f600}\n".into(), "\u{1f601}\n".into()),
        ("x\n\u{1f600}".into(), "x\n\u{1f600}\u{1f600}".into()),
        (long.clone(), format!("{long}\n")),
        (long.clone(), long.replacen('q', "r", 1)),
        (tiny.clone(), tiny_edited),
        (same.clone(), same_edited),
        (same.clone(), format!("{same}same line\n")),
        (format!("x{same}"), same.clone()),
    ];
    for (old, new) in &cases {
        for context in [0, 1, 3] {
            let (diff, stat) = unified_diff(old, new, context, None).unwrap();
            let shown = |t: &str| format!("{:?}", &t[..t.len().min(40)]);
            let (_, reference) = reference_unified_diff(old, new, context);
            assert!(
                stat.added + stat.removed <= reference.added + reference.removed,
                "{} -> {}: {stat:?} against {reference:?}",
                shown(old),
                shown(new)
            );
            assert_eq!(
                apply_unified_diff(old, &diff).as_deref(),
                Some(new.as_str()),
                "{} -> {}",
                shown(old),
                shown(new)
            );
            assert_hunk_headers_agree(&diff);
        }
    }
}

/// The lines inside the block that CommonMark would take as the closing fence of `fence`
/// (up to 3 spaces, at least as many backticks, nothing else).
fn lines_closing(block: &str, fence: &str) -> Vec<String> {
    block
        .lines()
        .filter(|line| {
            let unindented = line.trim_start_matches(' ');
            line.len() - unindented.len() <= 3
                && unindented.trim_end().len() >= fence.len()
                && unindented.trim_end().bytes().all(|b| b == b'`')
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_line_of_backticks_in_the_file_cannot_close_the_fence() {
    for run in [3, 4, 7] {
        let ticks = "`".repeat(run);
        let old = format!("intro\n{ticks}\ncode\n{ticks}\nend\n");
        let new = format!("intro\n{ticks}\ncode changed\n{ticks}\nend\n");
        let mut builder = NoticeBuilder::new(patient());
        builder.add(
            "doc.md",
            ChangeKind::Modified,
            Side::Text(&old),
            Side::Text(&new),
        );
        let text = builder.finish().text;
        let (_, block) = text.split_once("## doc.md\n").expect("a diff block");
        let fence: String = block.chars().take_while(|&c| c == '`').collect();
        assert!(fence.len() > run, "{text}");
        assert!(block.starts_with(&format!("{fence}diff\n")), "{text}");
        let inside = &block[fence.len() + "diff\n".len()..block.len() - fence.len()];
        assert!(block.ends_with(&format!("\n{fence}")), "{text}");
        assert_eq!(
            lines_closing(inside, &fence),
            Vec::<String>::new(),
            "{text}"
        );
        // The same lines would close the fence a shorter fence would have opened.
        assert!(!lines_closing(inside, "```").is_empty(), "{text}");
    }
}

#[test]
fn the_notice_names_the_file_without_counts() {
    let old = numbered(10);
    let new = edit_lines(&old, &[4], "// changed");
    let mut builder = NoticeBuilder::new(patient());
    builder.add(
        "src/a.ts",
        ChangeKind::Modified,
        Side::Text(&old),
        Side::Text(&new),
    );
    let notice = builder.finish();
    assert!(
        notice.text.contains("\n## src/a.ts\n```diff\n@@ -"),
        "{}",
        notice.text
    );
    assert_eq!(
        notice.files[0].stat,
        Some(DiffStat {
            added: 1,
            removed: 1,
            hunks: 1
        })
    );
}

#[test]
fn a_rewritten_big_file_is_a_rewrite_whichever_myers_search_finishes() {
    // The exact search gives up after its budget on a rewrite; the bounded one then answers.
    let old: String = (0..20_000).map(|i| format!("old line {i}\n")).collect();
    let new: String = (0..20_000).map(|i| format!("new line {i}\n")).collect();
    let mut builder = NoticeBuilder::new(patient());
    assert_eq!(
        builder.add(
            "big.ts",
            ChangeKind::Modified,
            Side::Text(&old),
            Side::Text(&new)
        ),
        Added::Fallback(Fallback::TooManyChanges)
    );
    let (diff, stat) = unified_diff(&old, &new, 1, None).unwrap();
    assert_eq!((stat.added, stat.removed), (20_000, 20_000));
    assert_eq!(
        apply_unified_diff(&old, &diff).as_deref(),
        Some(new.as_str())
    );
}
