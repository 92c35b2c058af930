//! Lines of tool output that say which file they come from (issue 31: no blocked byte in any
//! output). A command can read blocked files without naming them (`grep -rn KEY .` walks the
//! whole tree), and a search result carries lines of every file it matched; before an output is
//! stored or shown, every line attributed to a file is judged by the caller's access rule and a
//! blocked file's lines are withheld.
//!
//! One pass over the lines, linear in the output. Terminal colour escapes and `git log --graph`'s
//! drawing are ignored. The forms read (each is a fixture in `tests/withhold_attacks.rs`, captured
//! from the real tool):
//! - a name before the line: grep and ripgrep `path:12:text`, context lines `path-12-text`,
//!   `git grep -p`'s `path=12=…`, `grep -T`'s padded `path:  12:`; every such split is judged, as a
//!   name can hold one (`config-2024-01/.env-2-…`). Without line numbers, `path:text` when `path`
//!   looks like a file (it holds a `/`, or a `.` and no space), so `key: value` stays;
//! - `Binary file path matches`, `path: binary file matches`, `grep -Z`'s `path\0…`, `git grep`'s
//!   `rev:path:…` (every tail after a `:` is judged too), `Files a and b differ`, `rg --json`;
//! - a name above the lines: `--heading` (rg, git grep) owns the numbered lines under it; Roo's
//!   `search_files` `# path` sections (only in a search's output, `sections`);
//! - diffs: git's (`git diff`, `log -p`, `show`, `--cc`, word diffs, `--check`), whose header owns
//!   the lines while they look like a diff's and every line its hunks count; diffutils' `diff -r`
//!   in every format (unified, context, normal, side by side), whose `diff …` line owns every line
//!   up to the next file's; `git range-diff`'s `## path ##`.
//!
//! What this cannot see: bytes printed with no name beside them (`cat .env`, `diff a b` of two
//! files without `-r`), which the command vetting judges before the command runs
//! (`roo/shell/vet`). A candidate that is not really a path (`note:12:…` in a log) is judged like
//! a path; it is withheld only when the rule blocks that name, which fails closed.

mod forms;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use forms::{
    Source, check_report_path, diffutils_header, ends_diffutils_section, file_banner,
    git_diff_header, hunk_content, hunk_counts, is_diff_line, is_numbered_line,
    is_range_diff_header, judged_names, may_be_heading, named_sources, note, range_diff_file,
    side_header, without_escapes, without_graph,
};

/// What [`withhold_blocked_lines`] did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Withheld<'a> {
    /// The output with every blocked file's lines replaced by one note per run of lines.
    pub text: Cow<'a, str>,
    /// The blocked paths as the output named them, in order of first appearance.
    pub paths: Vec<String>,
    /// Lines withheld.
    pub lines: u64,
}

/// Names judged so far are remembered up to this many, then the memory starts over: every line
/// may hold a new candidate, and the memory must not grow with the output.
const MAX_REMEMBERED_VERDICTS: usize = 65_536;

/// The lines a header owns until the output leaves its format.
#[derive(Default)]
enum Section {
    #[default]
    None,
    /// Roo's `search_files`: `# path` up to the next header.
    Search(String),
    /// `--heading` (rg, git grep): a file's name over its numbered lines.
    Heading(String),
    /// A git or unified diff (`diff --git a/x b/x`, `--- x` / `+++ y`): while lines look like a
    /// diff's, and every line its hunks count.
    Diff {
        paths: Vec<String>,
        /// Lines of the current hunk still to come (old side, new side), from its `@@` header:
        /// while any remain, a line is the file's content, never a header (a removed `-- x`
        /// line reads `--- x`).
        hunk: (u64, u64),
        /// Still in the file's header (before its first `@@`): a `--- x` or `+++ y` adds to the
        /// same file; after a hunk, a `--- x` starts the next one.
        header: bool,
        /// Inside `GIT binary patch` data, which runs to an empty line.
        binary: bool,
    },
    /// diffutils' `diff [options] a b` (or a context diff's `*** a`): every line up to the next
    /// file's report.
    Diffutils {
        paths: Vec<String>,
        /// Whether its format marks every content line (unified `+`/`-`/` `, context, normal
        /// `<`/`>`), so that no content line can read as the next file's report. Side by side,
        /// ed and `--ifdef` print the file's lines as they are.
        marked: bool,
    },
    /// `git diff --check`'s `path:12: trailing whitespace.`: the `+` lines under it.
    CheckReport(String),
    /// `git range-diff`: the indented lines under a `## path ##`.
    RangeDiff(Option<String>),
    /// `head`/`tail` over several files: every line under `==> path <==`, to the next banner.
    Banner(String),
}

impl Section {
    /// Whether `line` is content of the current section (a file's bytes, never a header).
    /// `blocked`: the section's file is blocked. Where the format cannot tell a header from the
    /// file's own line that reads like one (a word diff, side by side, `head`'s banners, a
    /// range-diff's file headers), a blocked file keeps the line: the doubt withholds.
    fn owns_as_content(&mut self, line: &str, blocked: bool) -> bool {
        match self {
            Section::Diff { binary: true, .. } => !line.is_empty(),
            Section::Diff { hunk, .. } => hunk_content(hunk, line, blocked),
            Section::Diffutils { marked, .. } => {
                (blocked && !*marked) || !ends_diffutils_section(line)
            }
            Section::Heading(_) => is_numbered_line(line) || line == "--",
            Section::CheckReport(_) => line.starts_with('+'),
            Section::RangeDiff(_) => {
                line.starts_with("    ") && (blocked || range_diff_file(line).is_none())
            }
            Section::Banner(_) => blocked || file_banner(line).is_none(),
            Section::None | Section::Search(_) => false,
        }
    }

    /// Moves to the section a line that is not content opens, keeps the current one, or leaves
    /// it. `heading` is the line before, when it may be a `--heading` file name.
    fn advance(&mut self, line: &str, sections: bool, heading: Option<&str>) {
        if let Some(header) = line.strip_prefix("# ").filter(|_| sections) {
            *self = Section::Search(header.trim_end().to_owned());
        } else if let Some(path) = file_banner(line) {
            *self = Section::Banner(path.to_owned());
        } else if let (Some(counts), Section::Diff { hunk, header, .. }) =
            (hunk_counts(line), &mut *self)
        {
            *hunk = counts;
            *header = false;
        } else if let Some(paths) = git_diff_header(line) {
            *self = Section::diff(paths);
        } else if let Some((paths, marked)) = diffutils_header(line) {
            *self = Section::Diffutils { paths, marked };
        } else if let Some(names) = side_header(line) {
            match self {
                // `--- a/x` after `diff --git`, `+++ b/x` after `--- a/x`: the same file.
                Section::Diff { paths, header, .. } if *header || line.starts_with("+++ ") => {
                    paths.extend(names);
                    *header = true;
                }
                // `diff -c a b`: a context diff of two files has no `diff` line.
                _ if line.starts_with("*** ") => {
                    *self = Section::Diffutils {
                        paths: names,
                        marked: true,
                    }
                }
                _ => *self = Section::diff(names),
            }
        } else if is_range_diff_header(line) {
            *self = Section::RangeDiff(None);
        } else if let (Some(file), Section::RangeDiff(path)) = (range_diff_file(line), &mut *self) {
            *path = Some(file.to_owned());
        } else if let Some(path) = check_report_path(line) {
            *self = Section::CheckReport(path.to_owned());
        } else if let (Some(name), true) = (heading, is_numbered_line(line)) {
            *self = Section::Heading(name.to_owned());
        } else {
            match self {
                Section::Diff { binary, .. } => {
                    if line == "GIT binary patch" {
                        *binary = true;
                    } else if *binary || !is_diff_line(line) {
                        // The empty line after binary data, or a line no diff has: it is over.
                        *self = Section::None;
                    }
                }
                Section::Search(_) => {}
                _ => *self = Section::None,
            }
        }
    }

    fn diff(paths: Vec<String>) -> Section {
        Section::Diff {
            paths,
            hunk: (0, 0),
            header: true,
            binary: false,
        }
    }

    fn paths(&self) -> &[String] {
        match self {
            Section::None | Section::RangeDiff(None) => &[],
            Section::Search(path)
            | Section::Heading(path)
            | Section::CheckReport(path)
            | Section::Banner(path)
            | Section::RangeDiff(Some(path)) => std::slice::from_ref(path),
            Section::Diff { paths, .. } | Section::Diffutils { paths, .. } => paths,
        }
    }
}

/// `text` with the lines of every file `is_blocked` blocks withheld. `is_blocked` is asked once
/// per distinct name (while the memory of names holds). `sections` turns on Roo's `# path` search
/// sections (a heading elsewhere is prose). Returns the text unchanged (borrowed) when nothing is
/// withheld.
pub fn withhold_blocked_lines<'a>(
    text: &'a str,
    sections: bool,
    mut is_blocked: impl FnMut(&str) -> bool,
) -> Withheld<'a> {
    let mut verdicts: HashMap<String, bool> = HashMap::new();
    let mut judge = |path: &str| -> bool {
        if verdicts.len() >= MAX_REMEMBERED_VERDICTS {
            verdicts.clear();
        }
        judged_names(path).any(|name| match verdicts.get(name) {
            Some(&verdict) => verdict,
            None => {
                let verdict = is_blocked(name);
                verdicts.insert(name.to_owned(), verdict);
                verdict
            }
        })
    };
    let mut out: Option<String> = None;
    let mut paths: Vec<String> = Vec::new();
    let mut known: HashSet<String> = HashSet::new();
    let mut withheld_lines = 0u64;
    // The run of withheld lines being collapsed: its path and length.
    let mut run: Option<(String, u64)> = None;
    let mut section = Section::None;
    // The line before, while it may be a `--heading` file name (one buffer, not one per line).
    let mut heading = String::new();
    let mut heading_before = false;
    let mut copied = 0; // bytes of `text` already handled when `out` is in use
    let mut position = 0;
    for line in text.split_inclusive('\n') {
        let start = position;
        position += line.len();
        let clean = without_escapes(line.trim_end_matches(['\n', '\r']));
        let bare = without_graph(&clean);
        let section_blocked = section.paths().iter().any(|path| judge(path));
        let content = section.owns_as_content(bare, section_blocked);
        if !content {
            section.advance(bare, sections, heading_before.then_some(heading.as_str()));
        }
        heading_before = matches!(section, Section::None) && may_be_heading(bare);
        if heading_before {
            heading.clear();
            heading.push_str(bare);
        }
        let named = if content {
            Vec::new()
        } else {
            named_sources(bare)
        };
        let blocked: Option<String> = named
            .into_iter()
            .find_map(|source| match source {
                Source::Path(path) => judge(&path).then(|| path.into_owned()),
                Source::Unreadable(description) => Some(description.to_owned()),
            })
            .or_else(|| section.paths().iter().find(|path| judge(path)).cloned());
        match blocked {
            Some(path) => {
                let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
                if run.is_none() {
                    out.push_str(&text[copied..start]);
                }
                match &mut run {
                    Some((current, count)) if *current == path => *count += 1,
                    _ => {
                        if let Some((previous, count)) = run.take() {
                            out.push_str(&note(&previous, count));
                        }
                        run = Some((path.clone(), 1));
                    }
                }
                if known.insert(path.clone()) {
                    paths.push(path);
                }
                withheld_lines += 1;
                copied = position;
            }
            None => {
                if let (Some(out), Some((previous, count))) = (out.as_mut(), run.take()) {
                    out.push_str(&note(&previous, count));
                }
            }
        }
    }
    let Some(mut out) = out else {
        return Withheld {
            text: Cow::Borrowed(text),
            paths,
            lines: 0,
        };
    };
    if let Some((previous, count)) = run.take() {
        out.push_str(&note(&previous, count));
    }
    out.push_str(&text[copied..]);
    Withheld {
        text: Cow::Owned(out),
        paths,
        lines: withheld_lines,
    }
}
