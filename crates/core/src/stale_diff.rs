//! The user's edits shown to the model as bounded diffs instead of "re-read this file": the
//! unified diff of what the agent last saw against what is on disk now, the fallback to the
//! original's `# Recently Modified Files` line (byte for byte) with the reason, the per-file and
//! per-turn bounds, and the ready-to-append text. Pure: the server reads the files (through the
//! read gate) and stores the baselines; the only clock read is the diff's deadline.
//!
//! ## Decision: The user's-diff notice is short by measurement
//!
//! The design proposed Roo's 3 context lines, a `(+a -r)` stat after each path and a 53-token
//! sentence. The goal (a 3-line edit under 150 o200k tokens) is judged on real code
//! (`stale_diff_corpus` bench, TypeScript and Rust files, seeded random edits): at the 75th
//! percentile a 3-line replacement costs 177 tokens with 3 context lines, 158 with 2, 139 with 1,
//! so the default is 1 (a host can ask for more with `contextLines`); the stat is dropped from the
//! text (the hunk header carries the counts, the result's `diffStat` keeps them); the sentence is
//! 20 tokens and keeps the three facts (not the agent's edits; each diff is against what it last
//! saw, so the lines shown are current; keep them unless the user says otherwise). The fallback
//! lines stay the original's, byte for byte.

use std::time::{Duration, Instant};

use rustc_hash::FxHashMap;
use similar::{Algorithm, DiffOp, DiffTag};

use crate::tracker::ChangeKind;

/// The original's section header (`getEnvironmentDetails`), each file then follows as `\n<path>`.
pub const RECENTLY_MODIFIED_HEADER: &str = "\n\n# Recently Modified Files\nThese files have been modified since you last accessed them (file was just edited so you may need to re-read it before editing):";

/// The header of the diff section. Short on purpose (it is paid on every notice, 28 o200k
/// tokens): it says only what the sidecar knows, that the change was not the agent's own write
/// (not "by the user"), that each diff is against what the agent last saw (so the lines shown
/// are current), and that the change stays unless the user says otherwise. The wordings weighed
/// are in BENCHMARKS.md ("notice").
pub const CHANGES_HEADER: &str = "\n\n# Changes Since You Last Read\nNot your edits; diffed against what you last saw. Keep them unless the user says otherwise.";

/// The largest file with a baseline or a diff (both sides).
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// A diff longer than the file is only worth showing while it is this short (a re-read of a
/// small file costs little either way, a rewrite of a big one is better re-read).
const REWRITE_FLOOR_CHARS: usize = 1000;

/// Why a changed file is reported with the original's line instead of a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fallback {
    /// No baseline: never read in this store, evicted, unreadable or corrupt.
    NoBaseline,
    /// One side is not text (a NUL byte or invalid UTF-8).
    Binary,
    /// One side is over [`MAX_FILE_BYTES`].
    TooLarge,
    /// The access rule blocks the file now (by name or by what it links to).
    Blocked,
    /// The file cannot be read now (a FIFO, device, folder or I/O error).
    Unreadable,
    /// The file is gone.
    Deleted,
    /// The file was moved away.
    Renamed,
    /// More changed lines than allowed, or a diff longer than the file: a rewrite.
    TooManyChanges,
    /// The diff is over the per-file character bound.
    DiffTooLong,
    /// The turn's diff budget is spent (files are taken most recent first).
    Budget,
    /// The diff took longer than allowed.
    Timeout,
}

/// Bounds of one notice. Characters are UTF-16 code units, as the host counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffLimits {
    /// Unchanged lines around each change. The default is 1: on real code (BENCHMARKS.md,
    /// `stale_diff_corpus`) a 3-line replacement costs 177 o200k tokens at the 75th percentile
    /// with 3 lines and 158 with 2, over the 150-token goal, and 139 with 1.
    pub context_lines: usize,
    /// Largest diff of one file.
    pub max_chars_per_file: usize,
    /// Largest diff section of one notice (header included).
    pub max_chars_total: usize,
    /// Most added plus removed lines of one file.
    pub max_changed_lines: usize,
    /// Longest diff computation of one file.
    pub timeout: Duration,
}

impl Default for DiffLimits {
    fn default() -> DiffLimits {
        DiffLimits {
            context_lines: 1,
            max_chars_per_file: 4000,
            max_chars_total: 12000,
            max_changed_lines: 120,
            timeout: Duration::from_millis(50),
        }
    }
}

/// The text of `bytes` when it may be a diff side: at most `max` bytes, no NUL, valid UTF-8.
pub fn text_of(bytes: &[u8], max: u64) -> Result<&str, Fallback> {
    if bytes.len() as u64 > max {
        return Err(Fallback::TooLarge);
    }
    if memchr::memchr(0, bytes).is_some() {
        return Err(Fallback::Binary);
    }
    std::str::from_utf8(bytes).map_err(|_| Fallback::Binary)
}

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

/// One side of a changed file.
#[derive(Debug, Clone, Copy)]
pub enum Side<'a> {
    /// Its text.
    Text(&'a str),
    /// Why there is none.
    Missing(Fallback),
}

/// What one changed file became in a notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileNotice {
    /// The tracked path, as the host gave it.
    pub path: String,
    /// What happened to it.
    pub kind: ChangeKind,
    /// Why it has no diff.
    pub fallback: Option<Fallback>,
    /// The unified diff (when no fallback).
    pub diff: Option<String>,
    /// Counts, whenever a diff was computed.
    pub stat: Option<DiffStat>,
}

/// A finished notice: the files in order and the text to append to the environment details.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    /// Every changed file, with a diff or a fallback.
    pub files: Vec<FileNotice>,
    /// The original's section (fallback files) then the diff section; empty when no file.
    pub text: String,
}

/// Whether [`NoticeBuilder::add`] showed a diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Added {
    /// A diff: the current content is what the model will have seen once the notice arrives.
    Diff,
    /// The original's line.
    Fallback(Fallback),
    /// The file holds what the agent last saw: nothing to say.
    Unchanged,
}

fn utf16_len(text: &str) -> usize {
    text.encode_utf16().count()
}

/// A code fence longer than any backtick run in `text`.
fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}

/// A file name as printed on one line of the notice: control characters and Unicode line
/// separators escaped (`\n`, `\u{85}`), so a name with a line break (legal on Unix) cannot
/// forge a heading, a section or a file line. Every other name is printed byte for byte, as the
/// original prints it.
pub fn notice_path(path: &str) -> std::borrow::Cow<'_, str> {
    let breaks = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    if !path.chars().any(breaks) {
        return std::borrow::Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len() + 8);
    for c in path.chars() {
        if breaks(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The diff section's block of one file. No `(+a -r)` after the path: the hunk headers carry
/// the counts (and the result's `diffStat` keeps them for hosts).
fn diff_block(path: &str, diff: &str) -> String {
    let fence = fence_for(diff);
    let path = notice_path(path);
    format!("\n## {path}\n{fence}diff\n{diff}{fence}")
}

/// Builds one notice, file by file, most recent first, within [`DiffLimits`].
#[derive(Debug)]
pub struct NoticeBuilder {
    limits: DiffLimits,
    used: usize,
    files: Vec<FileNotice>,
    blocks: Vec<String>,
}

impl NoticeBuilder {
    /// An empty notice.
    pub fn new(limits: DiffLimits) -> NoticeBuilder {
        NoticeBuilder {
            limits,
            used: 0,
            files: Vec::new(),
            blocks: Vec::new(),
        }
    }

    fn header_cost(&self) -> usize {
        if self.blocks.is_empty() {
            utf16_len(CHANGES_HEADER)
        } else {
            0
        }
    }

    /// Whether another diff could still fit; when not, the caller need not read the files.
    pub fn budget_left(&self) -> bool {
        self.used + self.header_cost() < self.limits.max_chars_total
    }

    /// Adds a file with the original's line.
    pub fn fall_back(&mut self, path: &str, kind: ChangeKind, reason: Fallback) -> Added {
        self.push(path, kind, Some(reason), None, None);
        Added::Fallback(reason)
    }

    fn push(
        &mut self,
        path: &str,
        kind: ChangeKind,
        fallback: Option<Fallback>,
        diff: Option<String>,
        stat: Option<DiffStat>,
    ) {
        self.files.push(FileNotice {
            path: path.to_owned(),
            kind,
            fallback,
            diff,
            stat,
        });
    }

    /// Adds a changed file given what the agent last saw and what is there now.
    pub fn add(
        &mut self,
        path: &str,
        kind: ChangeKind,
        baseline: Side<'_>,
        current: Side<'_>,
    ) -> Added {
        let fixed = match (&kind, current, baseline) {
            (ChangeKind::Deleted, _, _) => Some(Fallback::Deleted),
            (ChangeKind::Renamed { .. }, _, _) => Some(Fallback::Renamed),
            (_, Side::Missing(reason), _) | (_, _, Side::Missing(reason)) => Some(reason),
            _ => None,
        };
        if let Some(reason) = fixed {
            return self.fall_back(path, kind, reason);
        }
        let (Side::Text(old), Side::Text(new)) = (baseline, current) else {
            unreachable!("both sides are text past the fallbacks above")
        };
        if old == new {
            return Added::Unchanged;
        }
        if !self.budget_left() {
            return self.fall_back(path, kind, Fallback::Budget);
        }
        let deadline = Instant::now().checked_add(self.limits.timeout);
        let Some((diff, stat)) =
            unified_diff(old, new, self.limits.context_lines.min(10_000), deadline)
        else {
            return self.fall_back(path, kind, Fallback::Timeout);
        };
        let diff_chars = utf16_len(&diff);
        let reason = if stat.added + stat.removed > self.limits.max_changed_lines
            || (diff_chars > utf16_len(new) && diff_chars > REWRITE_FLOOR_CHARS)
        {
            Some(Fallback::TooManyChanges)
        } else if diff_chars > self.limits.max_chars_per_file {
            Some(Fallback::DiffTooLong)
        } else {
            None
        };
        if let Some(reason) = reason {
            self.push(path, kind, Some(reason), None, Some(stat));
            return Added::Fallback(reason);
        }
        let block = diff_block(path, &diff);
        let cost = self.header_cost() + utf16_len(&block);
        if self.used + cost > self.limits.max_chars_total {
            self.push(path, kind, Some(Fallback::Budget), None, Some(stat));
            return Added::Fallback(Fallback::Budget);
        }
        self.used += cost;
        self.blocks.push(block);
        self.push(path, kind, None, Some(diff), Some(stat));
        Added::Diff
    }

    /// The notice: the original's section for the files that fell back (its exact bytes),
    /// then the diff section.
    pub fn finish(self) -> Notice {
        let mut text = String::new();
        let fallbacks: Vec<&FileNotice> =
            self.files.iter().filter(|f| f.fallback.is_some()).collect();
        if !fallbacks.is_empty() {
            text.push_str(RECENTLY_MODIFIED_HEADER);
            for file in fallbacks {
                text.push('\n');
                text.push_str(&notice_path(&file.path));
            }
        }
        if !self.blocks.is_empty() {
            text.push_str(CHANGES_HEADER);
            for block in &self.blocks {
                text.push_str(block);
            }
        }
        Notice {
            files: self.files,
            text,
        }
    }
}
