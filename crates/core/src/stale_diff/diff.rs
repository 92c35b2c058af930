//! The diff engine of the user's-diff notice: a unified diff of two texts (the common line ends
//! trimmed first, Myers on interned lines within a deadline) and its inverse, `apply_unified_diff`,
//! which the tests use to prove a diff reproduces the new text exactly.

use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;
use similar::{Algorithm, DiffOp, DiffTag};

/// Counts of one diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DiffStat {
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// Hunks.
    pub hunks: usize,
}

/// Lines with their `\n` (a `\r\n` line keeps its `\r`, a lone `\r` is no line end), so the
/// diff reproduces the bytes exactly and no line of the printed diff can run into the next.
fn lines(text: &str) -> Vec<&str> {
    text.split_inclusive('\n').collect()
}

/// Bytes compared at once before the byte-by-byte tail: slice equality is one `memcmp`.
const COMPARE_CHUNK: usize = 256;

/// Length of the common byte prefix of `a` and `b`.
fn common_prefix_bytes(a: &[u8], b: &[u8]) -> usize {
    let len = a.len().min(b.len());
    let mut at = 0;
    while at + COMPARE_CHUNK <= len && a[at..at + COMPARE_CHUNK] == b[at..at + COMPARE_CHUNK] {
        at += COMPARE_CHUNK;
    }
    at + a[at..len]
        .iter()
        .zip(&b[at..len])
        .take_while(|(x, y)| x == y)
        .count()
}

/// Length of the common byte suffix of `a` and `b`, at most `limit` (at most the shorter).
fn common_suffix_bytes(a: &[u8], b: &[u8], limit: usize) -> usize {
    let (a_len, b_len) = (a.len(), b.len());
    let mut at = 0;
    while at + COMPARE_CHUNK <= limit
        && a[a_len - at - COMPARE_CHUNK..a_len - at] == b[b_len - at - COMPARE_CHUNK..b_len - at]
    {
        at += COMPARE_CHUNK;
    }
    at + a[..a_len - at]
        .iter()
        .rev()
        .zip(b[..b_len - at].iter().rev())
        .take(limit - at)
        .take_while(|(x, y)| x == y)
        .count()
}

/// The unchanged whole lines at both ends of two different texts, in bytes: `(prefix, suffix)`. Found with `memcmp`
/// before any line is split or hashed, so an edit in one place of a big file costs one pass
/// over its bytes. Both ends are snapped to line starts of both texts, and they never overlap.
fn common_line_ends(old: &[u8], new: &[u8]) -> (usize, usize) {
    let prefix_bytes = common_prefix_bytes(old, new);
    // The texts differ (the caller returned early on equal ones), so the line holding the
    // first difference, or a last line without `\n`, is not part of the prefix.
    let prefix = memchr::memrchr(b'\n', &old[..prefix_bytes]).map_or(0, |at| at + 1);
    let limit = old.len().min(new.len()) - prefix;
    let suffix_bytes = common_suffix_bytes(old, new, limit);
    let (old_start, new_start) = (old.len() - suffix_bytes, new.len() - suffix_bytes);
    let starts_a_line = |text: &[u8], at: usize| at == 0 || text[at - 1] == b'\n';
    let suffix = if starts_a_line(old, old_start) && starts_a_line(new, new_start) {
        suffix_bytes
    } else {
        // The first line of the common bytes is only the end of a changed line.
        memchr::memchr(b'\n', &old[old_start..]).map_or(0, |at| suffix_bytes - at - 1)
    };
    (prefix, suffix)
}

/// The last `count` lines of `text` (which ends with a `\n` or is empty).
fn last_lines(text: &str, count: usize) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut start = bytes.len();
    for _ in 0..count {
        if start == 0 {
            break;
        }
        start = memchr::memrchr(b'\n', &bytes[..start - 1]).map_or(0, |at| at + 1);
    }
    lines(&text[start..])
}

/// One side of the diffed window: the last context lines of the common prefix, the changed
/// middle, and the first context lines of the common suffix.
struct Window<'a> {
    lines: Vec<&'a str>,
    /// Where the middle starts and ends in `lines`.
    middle: std::ops::Range<usize>,
}

fn window<'a>(text: &'a str, prefix: usize, suffix: usize, context: usize) -> Window<'a> {
    let mut lines_of = last_lines(&text[..prefix], context);
    let middle_start = lines_of.len();
    let middle = &text[prefix..text.len() - suffix];
    // One memchr scan over the middle: cheaper than a search started at each line.
    lines_of.reserve(middle.len() / 32);
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', middle.as_bytes()) {
        lines_of.push(&middle[start..=end]);
        start = end + 1;
    }
    if start < middle.len() {
        lines_of.push(&middle[start..]);
    }
    let middle = middle_start..lines_of.len();
    lines_of.extend(
        text[text.len() - suffix..]
            .split_inclusive('\n')
            .take(context),
    );
    Window {
        lines: lines_of,
        middle,
    }
}

/// A hunk range as unified diffs print it: `start,len`, `start` alone for one line, and the
/// line before for an empty range.
fn hunk_range(out: &mut String, start: usize, len: usize) {
    use std::fmt::Write as _;
    let _ = match len {
        1 => write!(out, "{}", start + 1),
        0 => write!(out, "{start},0"),
        _ => write!(out, "{},{len}", start + 1),
    };
}

/// A unified diff of `old` → `new` (no file headers, `context` lines around each change) and
/// its counts; `None` when the deadline passed (the diff may then not be minimal). Equal texts
/// give an empty diff.
pub fn unified_diff(
    old: &str,
    new: &str,
    context: usize,
    deadline: Option<Instant>,
) -> Option<(String, DiffStat)> {
    if old == new {
        return Some((String::new(), DiffStat::default()));
    }
    let (prefix, suffix) = common_line_ends(old.as_bytes(), new.as_bytes());
    let old_window = window(old, prefix, suffix, context);
    let new_window = window(new, prefix, suffix, context);
    // The line number of the windows' first line (the same on both sides: the prefix is shared).
    let first_line =
        memchr::memchr_iter(b'\n', &old.as_bytes()[..prefix]).count() - old_window.middle.start;
    // Lines interned to integers without an allocation per line: Myers then compares ids.
    let mut ids: FxHashMap<&str, u32> = FxHashMap::default();
    ids.reserve(old_window.middle.len() + new_window.middle.len() / 4);
    let old_ids = intern(&mut ids, &old_window.lines[old_window.middle.clone()]);
    let new_ids = intern(&mut ids, &new_window.lines[new_window.middle.clone()]);
    let middle_ops = myers(&old_ids, &new_ids, deadline)?;
    let shift = old_window.middle.start;
    let mut ops = Vec::with_capacity(middle_ops.len() + 2);
    push_op(
        &mut ops,
        DiffOp::Equal {
            old_index: 0,
            new_index: 0,
            len: shift,
        },
    );
    for op in middle_ops {
        push_op(&mut ops, shifted(op, shift));
    }
    let tail = old_window.lines.len() - old_window.middle.end;
    push_op(
        &mut ops,
        DiffOp::Equal {
            old_index: old_window.middle.end,
            new_index: new_window.middle.end,
            len: tail,
        },
    );
    let (old_lines, new_lines) = (&old_window.lines, &new_window.lines);
    let mut stat = DiffStat::default();
    let mut out = String::new();
    for group in similar::group_diff_ops(ops, context) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        stat.hunks += 1;
        out.push_str("@@ -");
        hunk_range(
            &mut out,
            first_line + first.old_range().start,
            last.old_range().end - first.old_range().start,
        );
        out.push_str(" +");
        hunk_range(
            &mut out,
            first_line + first.new_range().start,
            last.new_range().end - first.new_range().start,
        );
        out.push_str(" @@\n");
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
    Some((out, stat))
}

/// How long the exact Myers search may run before the bounded one takes over. The exact
/// search costs time in proportion to the number of changes: for a few edits in a big file
/// it is ~10x faster than similar's default, which first indexes both sides to detect
/// rewrites; for a rewrite it would run to the deadline, so it gets this much and no more.
const EXACT_MYERS_BUDGET: Duration = Duration::from_millis(3);

/// The ops turning `old` into `new`: the exact (raw) Myers search first, within
/// [`EXACT_MYERS_BUDGET`], then similar's bounded Myers (which may not be minimal); `None`
/// when `deadline` passed.
fn myers(old: &[u32], new: &[u32], deadline: Option<Instant>) -> Option<Vec<DiffOp>> {
    use similar::algorithms::{Capture, Compact, Replace, myers};
    let budget = Instant::now().checked_add(EXACT_MYERS_BUDGET);
    let exact_deadline = match (deadline, budget) {
        (Some(d), Some(b)) => Some(d.min(b)),
        (d, b) => d.or(b),
    };
    let mut hook = Compact::new(Replace::new(Capture::new()), old, new);
    let finished = myers::diff_deadline_raw(
        &mut hook,
        old,
        0..old.len(),
        new,
        0..new.len(),
        exact_deadline,
    );
    // The search gives up silently at its deadline: only a search that ended in time is exact.
    if finished.is_ok() && exact_deadline.is_none_or(|d| Instant::now() <= d) {
        return Some(hook.into_inner().into_inner().into_ops());
    }
    let ops = similar::capture_diff_slices_deadline(Algorithm::Myers, old, new, deadline);
    if deadline.is_some_and(|d| Instant::now() > d) {
        return None;
    }
    Some(ops)
}

/// The id of each line, a new id for each line not seen before.
fn intern<'a>(ids: &mut FxHashMap<&'a str, u32>, lines: &[&'a str]) -> Vec<u32> {
    lines
        .iter()
        .map(|line| {
            let next = ids.len() as u32;
            *ids.entry(line).or_insert(next)
        })
        .collect()
}

/// Appends `op`, merging it into the previous equal run (so an equal run at an edge of the
/// middle cannot become a hunk of its own) and dropping empty runs.
fn push_op(ops: &mut Vec<DiffOp>, op: DiffOp) {
    if let DiffOp::Equal { len, .. } = op {
        if len == 0 {
            return;
        }
        if let Some(DiffOp::Equal { len: previous, .. }) = ops.last_mut() {
            *previous += len;
            return;
        }
    }
    ops.push(op);
}

/// `op` with both sides moved `by` lines down.
fn shifted(op: DiffOp, by: usize) -> DiffOp {
    match op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => DiffOp::Equal {
            old_index: old_index + by,
            new_index: new_index + by,
            len,
        },
        DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        } => DiffOp::Delete {
            old_index: old_index + by,
            old_len,
            new_index: new_index + by,
        },
        DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        } => DiffOp::Insert {
            old_index: old_index + by,
            new_index: new_index + by,
            new_len,
        },
        DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => DiffOp::Replace {
            old_index: old_index + by,
            old_len,
            new_index: new_index + by,
            new_len,
        },
    }
}

/// Applies a diff made by [`unified_diff`] to `old`; `None` when it does not apply. The check
/// that a diff reproduces the file on disk (tests, and hosts that want to patch their copy).
pub fn apply_unified_diff(old: &str, diff: &str) -> Option<String> {
    let old_lines = lines(old);
    let mut out = String::with_capacity(old.len());
    let mut next_old = 0usize;
    let diff_lines = lines(diff);
    let mut i = 0;
    while i < diff_lines.len() {
        let header = diff_lines[i].strip_prefix("@@ -")?;
        let old_spec = header.split(' ').next()?;
        let (start, len) = match old_spec.split_once(',') {
            Some((s, l)) => (s.parse::<usize>().ok()?, l.parse::<usize>().ok()?),
            None => (old_spec.parse::<usize>().ok()?, 1),
        };
        // An empty range names the line before it.
        let first = if len == 0 {
            start
        } else {
            start.checked_sub(1)?
        };
        if first < next_old || first > old_lines.len() {
            return None;
        }
        old_lines[next_old..first]
            .iter()
            .for_each(|l| out.push_str(l));
        next_old = first;
        i += 1;
        while i < diff_lines.len() && !diff_lines[i].starts_with("@@ ") {
            let line = diff_lines[i];
            let no_newline = diff_lines
                .get(i + 1)
                .is_some_and(|n| n.starts_with("\\ No newline at end of file"));
            let body = &line[1..];
            let body = if no_newline {
                body.strip_suffix('\n')?
            } else {
                body
            };
            match line.as_bytes()[0] {
                b' ' | b'-' => {
                    if old_lines.get(next_old) != Some(&body) {
                        return None;
                    }
                    if line.starts_with(' ') {
                        out.push_str(body);
                    }
                    next_old += 1;
                }
                b'+' => out.push_str(body),
                _ => return None,
            }
            i += if no_newline { 2 } else { 1 };
        }
    }
    old_lines[next_old..].iter().for_each(|l| out.push_str(l));
    Some(out)
}
