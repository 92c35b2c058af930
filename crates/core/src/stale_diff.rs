//! The user's edits shown to the model as bounded diffs instead of "re-read this file": the
//! unified diff of what the agent last saw against what is on disk now, the fallback to the
//! original's `# Recently Modified Files` line (byte for byte) with the reason, the per-file and
//! per-turn bounds, and the ready-to-append text. Pure: the server reads the files (through the
//! read gate) and stores the baselines; the only clock read is the diff's deadline.

use std::time::{Duration, Instant};

use similar::algorithms::IdentifyDistinct;
use similar::{Algorithm, DiffTag};

use crate::tracker::ChangeKind;

/// The original's section header (`getEnvironmentDetails`), each file then follows as `\n<path>`.
pub const RECENTLY_MODIFIED_HEADER: &str = "\n\n# Recently Modified Files\nThese files have been modified since you last accessed them (file was just edited so you may need to re-read it before editing):";

/// The header of the diff section. Short on purpose (it is paid on every notice): it says only
/// what the sidecar knows, that the change was not the agent's own write (not "by the user").
pub const CHANGES_HEADER: &str = "\n\n# Changes Since You Last Read\nNot your own edits; each diff is against the version you last saw. Keep these changes unless the user asks otherwise.";

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
    /// Unchanged lines around each change.
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
            context_lines: 3,
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

/// A unified diff of `old` → `new` (no file headers, `context` lines around each change) and
/// its counts; `None` when the deadline passed (the diff may then not be minimal). Equal texts
/// give an empty diff.
pub fn unified_diff(
    old: &str,
    new: &str,
    context: usize,
    deadline: Option<Instant>,
) -> Option<(String, DiffStat)> {
    let old_lines = lines(old);
    let new_lines = lines(new);
    // Lines interned to integers first (as similar's TextDiff does): Myers then compares ids,
    // not strings, which is what keeps a 1 MiB file within a few milliseconds.
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
    if deadline.is_some_and(|d| Instant::now() > d) {
        return None;
    }
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
    Some((out, stat))
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

/// The diff section's block of one file.
fn diff_block(path: &str, diff: &str, stat: DiffStat) -> String {
    let fence = fence_for(diff);
    let path = notice_path(path);
    format!(
        "\n## {path} (+{} -{})\n{fence}diff\n{diff}{fence}",
        stat.added, stat.removed
    )
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
        let block = diff_block(path, &diff, stat);
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
