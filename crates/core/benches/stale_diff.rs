//! The user's-diff notice (issue 19, part 2): tokens of a notice for a 3-line edit against a
//! full re-read of the file, the per-turn cap, and the diff time of a 1 MiB file with a 10-line
//! change (p99 over 200 runs, printed before divan's table, next to a plain byte comparison of
//! the same two texts measured in the same run). Run:
//! `cargo bench -p roo-context-core --bench stale_diff`.

use std::time::Instant;

use divan::Bencher;
use roo_context_core::stale_diff::{DiffLimits, NoticeBuilder, Side, unified_diff};
use roo_context_core::tracker::ChangeKind;
use roo_context_tokens::count_exact;

fn main() {
    report();
    divan::main();
}

/// A TypeScript-like file of `lines` lines.
fn source(lines: usize) -> String {
    (0..lines)
        .map(|i| match i % 5 {
            0 => format!("export function handler{i}(input: Request): Response {{\n"),
            1 => format!("  const value = input.params.get(\"key{i}\") ?? DEFAULT_{i};\n"),
            2 => format!("  if (value.length > {i}) {{ return reject(value, {i}); }}\n"),
            3 => format!(
                "  return respond(transform(value), {{ status: {} }});\n",
                200 + i % 3
            ),
            _ => "}\n".to_owned(),
        })
        .collect()
}

/// `text` with lines `at` rewritten.
fn edited(text: &str, at: &[usize]) -> String {
    text.split_inclusive('\n')
        .enumerate()
        .map(|(i, line)| {
            if at.contains(&i) {
                format!("  // changed by the user: line {i} now calls validate(value)\n")
            } else {
                line.to_owned()
            }
        })
        .collect()
}

fn notice_text(old: &str, new: &str, limits: DiffLimits) -> String {
    let mut builder = NoticeBuilder::new(limits);
    builder.add(
        "src/handlers.ts",
        ChangeKind::Modified,
        Side::Text(old),
        Side::Text(new),
    );
    builder.finish().text
}

fn percentile(mut samples: Vec<f64>, p: f64) -> f64 {
    samples.sort_by(|a, b| a.total_cmp(b));
    samples[((samples.len() as f64 - 1.0) * p).round() as usize]
}

fn report() {
    // Tokens: a 3-line edit of a 500-line file.
    let old = source(500);
    let new = edited(&old, &[250, 251, 252]);
    let notice = notice_text(&old, &new, DiffLimits::default());
    println!(
        "notice for a 3-line edit of a 500-line file: {} tokens; full re-read: {} tokens ({:.1}%)",
        count_exact(&notice),
        count_exact(&new),
        100.0 * count_exact(&notice) as f64 / count_exact(&new) as f64
    );
    for context_lines in [3, 2, 1] {
        let limits = DiffLimits {
            context_lines,
            ..DiffLimits::default()
        };
        println!(
            "  with {context_lines} context lines: {} tokens",
            count_exact(&notice_text(&old, &new, limits))
        );
    }
    // The per-turn cap, with 200 files each edited in 3 places.
    let limits = DiffLimits::default();
    let mut builder = NoticeBuilder::new(limits);
    let small = source(60);
    let small_new = edited(&small, &[5, 30, 55]);
    for i in 0..200 {
        builder.add(
            &format!("src/f{i}.ts"),
            ChangeKind::Modified,
            Side::Text(&small),
            Side::Text(&small_new),
        );
    }
    let text = builder.finish().text;
    let diff_section = &text[text.find("# Changes Since").map_or(0, |i| i - 2)..];
    println!(
        "200 changed files: diff section {} UTF-16 units (cap {}), whole text {} tokens",
        diff_section.encode_utf16().count(),
        limits.max_chars_total,
        count_exact(&text)
    );
    // Time: 1 MiB, a 10-line change spread over the file; the implementation before the
    // byte-level trimming (copied below) runs in turn with today's, so load hits both alike.
    let (big, big_new) = one_mib_pair();
    let mut after_ms = Vec::new();
    let mut before_ms = Vec::new();
    let mut compare_ms = Vec::new();
    let mut phases = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    for _ in 0..200 {
        let start = Instant::now();
        let (diff, _) = unified_diff(&big, &big_new, 3, None).unwrap();
        after_ms.push(start.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(diff);
        let start = Instant::now();
        let (diff, _) = before::unified_diff(&big, &big_new, 3, None).unwrap();
        before_ms.push(start.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(diff);
        for (phase, ms) in before::phases(&big, &big_new).into_iter().enumerate() {
            phases[phase].push(ms);
        }
        let start = Instant::now();
        std::hint::black_box(big.as_bytes() == big_new.as_bytes());
        std::hint::black_box(big.lines().count() + big_new.lines().count());
        compare_ms.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let p = |samples: &Vec<f64>, q: f64| percentile(samples.clone(), q);
    println!(
        "1 MiB file, 10 changed lines (200 runs each, alternated): diff p50 {:.2} ms, p99 {:.2} ms; \
         before the byte trimming p50 {:.2} ms, p99 {:.2} ms (ratios {:.1}x, {:.1}x); \
         line count of both sides p99 {:.2} ms",
        p(&after_ms, 0.5),
        p(&after_ms, 0.99),
        p(&before_ms, 0.5),
        p(&before_ms, 0.99),
        p(&before_ms, 0.5) / p(&after_ms, 0.5),
        p(&before_ms, 0.99) / p(&after_ms, 0.99),
        p(&compare_ms, 0.99),
    );
    println!(
        "  where the time went before (p50): split lines {:.2} ms, intern (SipHash) {:.2} ms, \
         Myers {:.2} ms, group and format {:.2} ms",
        p(&phases[0], 0.5),
        p(&phases[1], 0.5),
        p(&phases[2], 0.5),
        p(&phases[3], 0.5),
    );
    // The common case: one contiguous 10-line edit in the middle of the same file.
    let lines = big.lines().count();
    let one_place = edited(&big, &(lines / 2..lines / 2 + 10).collect::<Vec<_>>());
    let mut after_ms = Vec::new();
    let mut before_ms = Vec::new();
    for _ in 0..200 {
        let start = Instant::now();
        std::hint::black_box(unified_diff(&big, &one_place, 3, None));
        after_ms.push(start.elapsed().as_secs_f64() * 1e3);
        let start = Instant::now();
        std::hint::black_box(before::unified_diff(&big, &one_place, 3, None));
        before_ms.push(start.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "1 MiB file, 10 adjacent changed lines: diff p50 {:.2} ms, p99 {:.2} ms; before p50 {:.2} ms, p99 {:.2} ms",
        p(&after_ms, 0.5),
        p(&after_ms, 0.99),
        p(&before_ms, 0.5),
        p(&before_ms, 0.99),
    );
}

fn one_mib_pair() -> (String, String) {
    let mut big = source(20_000);
    while big.len() < 1024 * 1024 {
        big.push_str("// padding line to reach one mebibyte of source text\n");
    }
    let lines = big.lines().count();
    let at: Vec<usize> = (0..10).map(|i| i * lines / 10 + 7).collect();
    let new = edited(&big, &at);
    (big, new)
}

#[divan::bench]
fn diff_1mib_10_lines(bencher: Bencher) {
    let (old, new) = one_mib_pair();
    bencher.bench(|| unified_diff(&old, &new, 3, None).map(|d| d.0.len()));
}

#[divan::bench]
fn notice_3_line_edit_500_lines(bencher: Bencher) {
    let old = source(500);
    let new = edited(&old, &[250, 251, 252]);
    bencher.bench(|| notice_text(&old, &new, DiffLimits::default()).len());
}

#[divan::bench]
fn diff_1mib_10_lines_before(bencher: Bencher) {
    let (old, new) = one_mib_pair();
    bencher.bench(|| before::unified_diff(&old, &new, 3, None).map(|d| d.0.len()));
}

/// The diff as it was before the byte-level trimming and the Fx interning (commit c89f940),
/// kept as the same-run baseline of the timing, and split into its phases.
mod before {
    use std::time::Instant;

    use roo_context_core::stale_diff::DiffStat;
    use similar::algorithms::IdentifyDistinct;
    use similar::{Algorithm, DiffTag};

    fn lines(text: &str) -> Vec<&str> {
        text.split_inclusive('\n').collect()
    }

    pub fn unified_diff(
        old: &str,
        new: &str,
        context: usize,
        deadline: Option<Instant>,
    ) -> Option<(String, DiffStat)> {
        let old_lines = lines(old);
        let new_lines = lines(new);
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
            deadline,
        );
        Some(format(&old_lines, &new_lines, ops, context))
    }

    fn format(
        old_lines: &[&str],
        new_lines: &[&str],
        ops: Vec<similar::DiffOp>,
        context: usize,
    ) -> (String, DiffStat) {
        let mut stat = DiffStat::default();
        let mut out = String::new();
        for group in similar::group_diff_ops(ops, context) {
            if group.is_empty() {
                continue;
            }
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
                    DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => {
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

    /// Milliseconds of each phase: split, intern, Myers, group and format.
    pub fn phases(old: &str, new: &str) -> [f64; 4] {
        let ms = |start: Instant| start.elapsed().as_secs_f64() * 1e3;
        let start = Instant::now();
        let old_lines = lines(old);
        let new_lines = lines(new);
        let split = ms(start);
        let start = Instant::now();
        let interned = IdentifyDistinct::<u32>::new(
            &old_lines[..],
            0..old_lines.len(),
            &new_lines[..],
            0..new_lines.len(),
        );
        let intern = ms(start);
        let start = Instant::now();
        let ops = similar::capture_diff_deadline(
            Algorithm::Myers,
            interned.old_lookup(),
            interned.old_range(),
            interned.new_lookup(),
            interned.new_range(),
            None,
        );
        let myers = ms(start);
        let start = Instant::now();
        std::hint::black_box(format(&old_lines, &new_lines, ops, 3));
        [split, intern, myers, ms(start)]
    }
}
