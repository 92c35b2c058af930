//! Lines of tool output that say which file they come from (issue 31: no blocked byte in any
//! output). A command can read blocked files without naming them (`grep -rn KEY .` walks the
//! whole tree), and a search result carries lines of every file it matched; before an output is
//! stored or shown, every line attributed to a file is judged by the caller's access rule and a
//! blocked file's lines are withheld.
//!
//! One pass over the lines, linear in the output. Terminal colour escapes and `git log --graph`'s
//! lanes are ignored (their width is read from each commit's line, and a lane that ended is
//! drawn as spaces). The forms read (each is a fixture in `tests/withhold_attacks*.rs`, captured
//! from the real tool; four red-team rounds):
//! - a name before the text: grep and ripgrep `path:12:text`, context lines `path-12-text`,
//!   `git grep -p`'s `path=12=…`, `grep -T`'s padded `path:  12:`; every such split is judged, as a
//!   name can hold one (`config-2024-01/.env-2-…`). Without line numbers, `path:text`,
//!   `path-text`, `path=text` and `path text` when the prefix looks like a file (it holds a `/`,
//!   or a `.` and no space), so `key: value` stays. `git blame -f`'s `sha path (…)`;
//! - `Binary file path matches`, `path: binary file matches`, `grep -Z`'s `path\0…`, `git grep`'s
//!   `rev:path:…` (every tail after a `:` is judged too), `Files a and b differ`, `rg --json`,
//!   `grep -z` records (a whole file up to its NUL), Windows' `secrets\k.txt`;
//! - a name above the lines: `--heading` (rg, git grep) owns the numbered lines under it, and a
//!   blocked one every line to an empty one when they carry no number; banners of `head`/`tail`
//!   (`==> path <==`), `more`, `pr`, `unzip -c` and `git blame --porcelain` own the lines to the
//!   next banner; Roo's `search_files` `# path` sections (only in a search's output, `sections`);
//! - diffs: git's (`git diff`, `log -p`, `show`, combined `@@@` hunks of merges, binary patches
//!   of two blocks, word diffs, `--check`, custom prefixes), whose header owns the lines while
//!   they look like a diff's and every line its hunks count;
//!   diffutils' `diff -r` in every format, whose `diff …` line owns every line up to the next
//!   file's; `git range-diff`'s `## path ##`.
//!
//! A line is judged by the names it carries even inside a section (a second command's output
//! follows a diff), and inside an allowed file's section any other section's header (a banner,
//! `diff --git`, `commit`, a blocked name over lines) is the next command's. The note names the
//! blocked section's file, else the shortest blocked candidate, never one that runs into the
//! line's text. Where a format cannot tell a blocked file's own line from a header (word
//! diffs, side by side, banners, headings without numbers), the blocked file keeps the line and
//! the section runs on: the doubt withholds, at the price of the allowed lines after it.
//!
//! What this cannot see: bytes printed with no name beside them (`cat .env`, `diff a b` of two
//! files without `-r`, `sed -s F`), a name glued to the previous output's unterminated last line,
//! a name holding a newline, `--line-prefix`, `grep -z` records whose NULs were replaced, and a
//! blocked file's bare-word line (`sk-live-abc`) under a heading without numbers (a listing of
//! names looks the same); the command vetting judges those commands before they run
//! (`roo/shell/vet`). Listings (`ls`, `find`, `git ls-files`, `--name-only`) keep every allowed
//! name. A candidate that is not really a path (`note:12:…` in a log) is
//! judged like a path; it is withheld only when the rule blocks that name, which fails closed.

mod forms;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use forms::{
    MORE_BANNER, Source, check_report_path, combined_content, combined_hunk_columns,
    diffutils_header, ends_diffutils_section, file_announcement, file_banner, git_diff_header,
    hunk_content, hunk_counts, is_bare_word, is_diff_line, is_numbered_line, is_range_diff_header,
    judged_names, looks_like_path, may_be_heading, named_sources, note, opens_section, page_header,
    range_diff_file, side_header, without_escapes, without_graph,
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
    /// `--heading` (rg, git grep): a file's name over its lines: numbered ones, or (when the name
    /// is blocked and the lines carry no number) every line to the next empty one.
    Heading { path: String, numbered: bool },
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
        /// Inside `GIT binary patch` data: a `literal`/`delta` block runs to an empty line, and a
        /// second block (the reverse patch) may follow it.
        binary: bool,
        /// The marker columns of the current combined hunk (`@@@`, one per parent); 0 in a plain
        /// hunk, whose lines are counted instead.
        columns: usize,
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
    /// `head`/`tail` over several files (`==> path <==`), `unzip -c` (`  inflating: path`),
    /// `git blame --porcelain` (`filename path`), `pr` (`date time  path  Page 1`): every line to
    /// the next banner.
    Banner(String),
    /// `more` over several files: the name between two lines of colons, then every line to the
    /// next banner.
    More { path: Option<String>, closed: bool },
}

impl Section {
    /// Whether `line` is content of the current section (a file's bytes, never a header).
    /// `blocked`: the section's file is blocked. Where the format cannot tell a header from the
    /// file's own line that reads like one (a word diff, side by side, `head`'s banners, a
    /// range-diff's file headers), a blocked file keeps the line: the doubt withholds.
    fn owns_as_content(&mut self, line: &str, blocked: bool) -> bool {
        match self {
            Section::Diff { binary: true, .. } => !line.is_empty(),
            Section::Diff { columns, .. } if *columns > 0 => {
                let content = combined_content(line, *columns);
                if !content {
                    *columns = 0;
                }
                content
            }
            Section::Diff { hunk, .. } => hunk_content(hunk, line, blocked),
            Section::Diffutils { marked, .. } => {
                (blocked && !*marked) || !ends_diffutils_section(line)
            }
            Section::Heading { numbered: true, .. } => {
                // A custom `--context-separator` (even an empty one) reads as prose: a blocked
                // file keeps every line that is not the next file's name.
                is_numbered_line(line) || line == "--" || (blocked && !looks_like_path(line))
            }
            // Without numbers an empty line may be the file's own (a context line): a blocked
            // name keeps every line up to the next section's header.
            Section::Heading {
                numbered: false, ..
            } => !opens_section(line),
            Section::CheckReport(_) => line.starts_with('+'),
            Section::RangeDiff(_) => {
                line.starts_with("    ") && (blocked || range_diff_file(line).is_none())
            }
            Section::Banner(_) => {
                blocked
                    || (file_banner(line).is_none()
                        && file_announcement(line).is_none()
                        && page_header(line).is_none())
            }
            Section::More {
                path: path @ None, ..
            } => {
                *path = Some(line.to_owned());
                true
            }
            Section::More {
                closed: closed @ false,
                ..
            } => {
                *closed = line == MORE_BANNER;
                true
            }
            Section::More { .. } => blocked || line != MORE_BANNER,
            Section::None | Section::Search(_) => false,
        }
    }

    /// Moves to the section a line that is not content opens, keeps the current one, or leaves
    /// it. `heading` is the line before, when it may be a `--heading` file name; `blocked`: the
    /// current section's file is blocked, so a line that no format explains keeps it.
    fn advance(&mut self, line: &str, sections: bool, heading: Option<&str>, blocked: bool) {
        if let Some(header) = line.strip_prefix("# ").filter(|_| sections) {
            *self = Section::Search(header.trim_end().to_owned());
        } else if let Some(path) = file_banner(line)
            .or_else(|| file_announcement(line))
            .or_else(|| page_header(line))
        {
            *self = Section::Banner(path.to_owned());
        } else if line == MORE_BANNER {
            *self = Section::More {
                path: None,
                closed: false,
            };
        } else if let (
            Some(parents),
            Section::Diff {
                hunk,
                header,
                columns,
                ..
            },
        ) = (combined_hunk_columns(line), &mut *self)
        {
            *columns = parents;
            *hunk = (0, 0);
            *header = false;
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
            *self = Section::Heading {
                path: name.to_owned(),
                numbered: true,
            };
        } else if line.starts_with("commit ") {
            // The next commit of `git log -p`: its message is not any file's.
            *self = Section::None;
        } else {
            match self {
                Section::Diff { binary, .. } => {
                    if line == "GIT binary patch"
                        || line.starts_with("literal ")
                        || line.starts_with("delta ")
                    {
                        *binary = true;
                    } else if *binary && line.is_empty() {
                        // The end of one block; the reverse patch's may follow.
                        *binary = false;
                    } else if !blocked && !is_diff_line(line) {
                        // The empty line after binary data, or a line no diff has: it is over.
                        // A blocked file's diff runs on to the next header: a word diff may
                        // print more lines than its hunk counts, and `--output-indicator-*`
                        // marks lines with any character.
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
            columns: 0,
        }
    }

    fn paths(&self) -> &[String] {
        match self {
            Section::None | Section::RangeDiff(None) | Section::More { path: None, .. } => &[],
            Section::Search(path)
            | Section::Heading { path, .. }
            | Section::More {
                path: Some(path), ..
            }
            | Section::CheckReport(path)
            | Section::Banner(path)
            | Section::RangeDiff(Some(path)) => std::slice::from_ref(path),
            Section::Diff { paths, .. } | Section::Diffutils { paths, .. } => paths,
        }
    }
}

/// A line without `git log --graph`'s lanes. A commit line (`* commit …`, `| * commit …`) sets
/// their width; the lines under it lose as many columns while those hold only drawing or spaces
/// (under the last lane git draws spaces, `  diff --git …`). Any other line ends the graph.
fn without_graph_lanes<'l>(line: &'l str, width: &mut usize) -> &'l str {
    let stripped = without_graph(line);
    let drawn = line.len() - stripped.len();
    if drawn > 0 {
        if line[..drawn].contains('*') {
            // A commit's line (`* commit …`, `| * abc1234 subject`): the lanes' width.
            *width = drawn;
        }
        // A lane that ended is drawn as spaces (`|   diff --git …` under `| *`).
        let spaces = stripped
            .bytes()
            .take(width.saturating_sub(drawn))
            .take_while(|&b| b == b' ')
            .count();
        return &stripped[spaces..];
    }
    let lanes = line.len().min(*width);
    if *width > 0
        && line.as_bytes()[..lanes]
            .iter()
            .all(|b| b" |*/\\_".contains(b))
    {
        return &line[lanes..];
    }
    *width = 0;
    line
}

/// The shortest name `line` carries that `judge` blocks (a longer candidate may run into the
/// line's text, which must never reach a note), or the description of a source that cannot be
/// judged.
fn shortest_blocked(line: &str, judge: &mut impl FnMut(&str) -> bool) -> Option<String> {
    named_sources(line)
        .into_iter()
        .filter_map(|source| match source {
            Source::Path(path) => judge(&path).then(|| path.into_owned()),
            Source::Unreadable(description) => Some(description.to_owned()),
        })
        .min_by_key(String::len)
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
        let mut judge_name = |name: &str| match verdicts.get(name) {
            Some(&verdict) => verdict,
            None => {
                let verdict = is_blocked(name);
                verdicts.insert(name.to_owned(), verdict);
                verdict
            }
        };
        // Windows tools (`rg --path-separator '\\'`, PowerShell) print `secrets\k.txt`.
        judged_names(path).any(|name| {
            judge_name(name) || (name.contains('\\') && judge_name(&name.replace('\\', "/")))
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
    // `grep -z` ends every record with a NUL, the last one too (`grep -Z` ends names with one).
    let records = text.ends_with('\0');
    let mut record_owner: Option<String> = None;
    let mut first_line = true;
    // The width of `git log --graph`'s lanes while the output draws them.
    let mut graph_width = 0;
    let mut copied = 0; // bytes of `text` already handled when `out` is in use
    let mut position = 0;
    for line in text.split_inclusive('\n') {
        let start = position;
        position += line.len();
        let clean = without_escapes(line.trim_end_matches(['\n', '\r']));
        let bare = without_graph_lanes(&clean, &mut graph_width);
        let mut section_blocked = section.paths().iter().any(|path| judge(path));
        // A blocked name alone on a line over numbered lines: `--heading` (rg, git grep), wherever
        // the name stood (after `head`'s banner too). Without numbers only over a line that is
        // neither a name nor a bare word (`KEY=value`, prose): a listing (`ls`, `find`,
        // `git ls-files`, `git log --name-only`, `cat .gitignore`) is names over names and bare
        // words, and its lines are not a file's. (A blocked file's bare-word line under a heading
        // without numbers is the price: `rg --heading` numbers its lines unless told not to.)
        let numbered = is_numbered_line(bare);
        if !section_blocked
            && heading_before
            && !bare.is_empty()
            && (numbered || (!is_bare_word(bare) && !looks_like_path(bare)))
            && looks_like_path(&heading)
            && judge(&heading)
        {
            section = Section::Heading {
                path: heading.clone(),
                numbered,
            };
            section_blocked = true;
        }
        // Inside an allowed file's section, another section's header is the next command's.
        let content = if !section_blocked && opens_section(bare) {
            false
        } else {
            section.owns_as_content(bare, section_blocked)
        };
        if !content {
            let before = heading_before.then_some(heading.as_str());
            section.advance(bare, sections, before, section_blocked);
        }
        // A line is judged by the names it carries even inside a section: the output of a second
        // command after a diff or a banner carries its own. The note names the shortest blocked
        // candidate: a longer one may run into the line's content (`secrets/k:TOKEN=X` is
        // blocked too).
        let named_blocked = shortest_blocked(bare, &mut judge);
        // `grep -z`: a record is a whole file and runs over lines to the next NUL; the record
        // that started before this line owns it, and the one that starts on it (the output's
        // first, or after the line's last NUL) owns the next ones.
        let record_blocked = if records {
            let owner = record_owner.take();
            record_owner = if first_line {
                named_blocked.clone()
            } else {
                match bare.rsplit_once('\0') {
                    Some((_, record)) => shortest_blocked(record, &mut judge),
                    None => owner.clone(),
                }
            };
            owner
        } else {
            None
        };
        first_line = false;
        let section_path = section
            .paths()
            .iter()
            .find(|path| judge(path))
            .cloned()
            .or(record_blocked);
        // A heading is a name alone: a line withheld for the file it names first is not one.
        // A heading is a name alone (a name holding `-` may itself be a blocked candidate:
        // `secrets/api-key.txt` holds `secrets/api`).
        heading_before = section_path.is_none()
            && (named_blocked.is_none() || !bare.contains([':', '=', '\0']))
            && may_be_heading(bare);
        if heading_before {
            heading.clear();
            heading.push_str(bare);
        }
        // In a blocked file's section the note names that file: the line's own candidates are
        // its content (`SECRET_FILE=/run/secrets/api-key` holds a blocked-looking prefix).
        let blocked = section_path.or(named_blocked);
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
