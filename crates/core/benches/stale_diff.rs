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
    // Time: 1 MiB, a 10-line change spread over the file.
    let (big, big_new) = one_mib_pair();
    let mut diff_ms = Vec::new();
    let mut compare_ms = Vec::new();
    for _ in 0..200 {
        let start = Instant::now();
        let (diff, _) = unified_diff(&big, &big_new, 3, None).unwrap();
        diff_ms.push(start.elapsed().as_secs_f64() * 1e3);
        std::hint::black_box(diff);
        let start = Instant::now();
        std::hint::black_box(big.as_bytes() == big_new.as_bytes());
        std::hint::black_box(big.lines().count() + big_new.lines().count());
        compare_ms.push(start.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "1 MiB file, 10 changed lines: diff p50 {:.2} ms, p99 {:.2} ms; line count of both sides p99 {:.2} ms (ratio {:.1}x)",
        percentile(diff_ms.clone(), 0.5),
        percentile(diff_ms.clone(), 0.99),
        percentile(compare_ms.clone(), 0.99),
        percentile(diff_ms, 0.99) / percentile(compare_ms, 0.99)
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
