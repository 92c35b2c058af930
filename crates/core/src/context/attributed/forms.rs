//! The line forms tools print: each function here reads one line (already without its terminal
//! escapes) and says what it is. The walk in `mod.rs` owns the order of events; nothing here
//! keeps state.

use std::borrow::Cow;

/// At most this many candidate names are read from one line. A real path boundary is one of the
/// first few separators; a line with more is judged by its first ones.
const MAX_CANDIDATES_PER_LINE: usize = 32;

/// A line without its terminal escape sequences (`grep --color=always` wraps the path in them).
pub(super) fn without_escapes(line: &str) -> Cow<'_, str> {
    if !line.contains('\x1b') {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        // CSI (`ESC [ … final`), OSC (`ESC ] … BEL` or `ESC \`), or a two-byte escape.
        match chars.next() {
            Some('[') => {
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                let mut previous = ' ';
                for c in chars.by_ref() {
                    if c == '\x07' || (previous == '\x1b' && c == '\\') {
                        break;
                    }
                    previous = c;
                }
            }
            _ => {}
        }
    }
    Cow::Owned(out)
}

/// A line without the commit graph `git log --graph` draws in front of it (`| `, `* `, `| | `,
/// `|/`). Only a line that starts with `|` or `*` has one: a diff's own lines start with ` `,
/// `+`, `-` or `\`.
pub(super) fn without_graph(line: &str) -> &str {
    if !line.starts_with(['|', '*']) {
        return line;
    }
    let bytes = line.as_bytes();
    let mut at = 0;
    while at < bytes.len() && matches!(bytes[at], b'|' | b'*' | b'/' | b'\\' | b'_') {
        match bytes.get(at + 1) {
            None => at += 1,
            Some(b' ' | b'|' | b'/' | b'\\' | b'_') => at += 2,
            Some(_) => break,
        }
    }
    &line[at.min(bytes.len())..]
}

/// A combined diff's hunk header (`@@@ -1,4 -1,4 +1,4 @@@`, of a merge): the number of marker
/// columns its lines start with (one per parent).
pub(super) fn combined_hunk_columns(line: &str) -> Option<usize> {
    let ats = line.bytes().take_while(|&b| b == b'@').count();
    (ats >= 3 && line.as_bytes().get(ats) == Some(&b' ')).then(|| ats - 1)
}

/// Whether a line is one of a combined hunk's: every marker column is ` `, `+` or `-`.
pub(super) fn combined_content(line: &str, columns: usize) -> bool {
    line.len() >= columns
        && line.as_bytes()[..columns]
            .iter()
            .all(|b| b" +-".contains(b))
}

/// The old and new line counts of a hunk header `@@ -a[,b] +c[,d] @@` (a count left out is 1);
/// a header that does not parse counts as endless, so the file keeps its lines (fails closed).
pub(super) fn hunk_counts(line: &str) -> Option<(u64, u64)> {
    let rest = line.strip_prefix("@@")?;
    let count = |range: Option<&str>| -> Option<u64> {
        let range = range?;
        match range.split_once(',') {
            Some((_, n)) => n.parse().ok(),
            None => range.parse::<u64>().ok().map(|_| 1),
        }
    };
    let mut words = rest.split_whitespace();
    let old = count(words.next().and_then(|w| w.strip_prefix('-')));
    let new = count(words.next().and_then(|w| w.strip_prefix('+')));
    Some(match (old, new) {
        (Some(old), Some(new)) => (old, new),
        _ => (u64::MAX, u64::MAX),
    })
}

/// Counts `line` against the hunk in progress; whether it was one of its content lines. While
/// lines remain, every line is content: word diffs (`--word-diff`, `--color-words`) print the
/// file's lines with no `+`/`-`/` ` marker. A line that starts the next file, commit or hunk
/// means the hunk was cut short (a truncated output), unless the file is `blocked`: its own line
/// may read like that, and the doubt withholds.
pub(super) fn hunk_content(hunk: &mut (u64, u64), line: &str, blocked: bool) -> bool {
    if *hunk == (0, 0) {
        return false;
    }
    let header = line.starts_with("diff ") || line.starts_with("commit ") || line.starts_with("@@");
    if header && !blocked {
        *hunk = (0, 0);
        return false;
    }
    let (old, new) = hunk;
    match line.as_bytes().first() {
        Some(b'-') => *old = old.saturating_sub(1),
        Some(b'+') => *new = new.saturating_sub(1),
        // No newline at end of file; `--word-diff=porcelain`'s end of a line.
        Some(b'\\' | b'~') => {}
        _ => {
            *old = old.saturating_sub(1);
            *new = new.saturating_sub(1);
        }
    }
    true
}

/// Whether a line can continue a unified diff's section.
pub(super) fn is_diff_line(line: &str) -> bool {
    const HEADS: &[&str] = &[
        "+",
        "-",
        " ",
        "~",
        "@@",
        "\\",
        "index ",
        "new file",
        "deleted file",
        "similarity",
        "rename ",
        "old mode",
        "new mode",
        "copy ",
        "dissimilarity",
        "Binary files",
        "GIT binary patch",
        "literal ",
        "delta ",
    ];
    HEADS.iter().any(|head| line.starts_with(head))
}

fn strip_side(path: &str) -> String {
    let path = path.trim().trim_matches('"');
    // `a/`/`b/` (git's default prefixes) and `c/`, `i/`, `o/`, `w/` (`diff.mnemonicPrefix`).
    ["a/", "b/", "c/", "i/", "o/", "w/"]
        .iter()
        .find_map(|prefix| path.strip_prefix(prefix))
        .unwrap_or(path)
        .to_owned()
}

/// A git diff's file header (`diff --git a/x b/x`, `diff --cc x`, `diff --combined x`): its paths.
pub(super) fn git_diff_header(line: &str) -> Option<Vec<String>> {
    if let Some(rest) = line.strip_prefix("diff --git ") {
        let split = [" b/", " w/", " i/", " o/", " c/"]
            .iter()
            .filter_map(|side| rest.rfind(side))
            .max()
            .unwrap_or(rest.len() / 2);
        let (old, new) = (strip_side(&rest[..split]), strip_side(&rest[split..]));
        let mut paths = custom_prefix_names(&old, &new);
        paths.extend([old, new]);
        return Some(paths);
    }
    let rest = line
        .strip_prefix("diff --cc ")
        .or_else(|| line.strip_prefix("diff --combined "))?;
    Some(vec![strip_side(rest)])
}

/// The names a file may have under custom prefixes (`--src-prefix=old_ --dst-prefix=new_`,
/// `diff.srcPrefix`): the sides differ only before a common tail, which holds the name behind
/// the rest of the prefix; every tail of it that starts before its first `/` is judged (at most
/// 16), so `old_secrets/k.txt` is judged as `secrets/k.txt` too.
fn custom_prefix_names(old: &str, new: &str) -> Vec<String> {
    if old == new {
        return Vec::new();
    }
    let common = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    // Equal bytes may end inside a character (`é` and `©` share their last byte).
    let mut start = old.len() - common;
    while !old.is_char_boundary(start) {
        start += 1;
    }
    let tail = &old[start..];
    let until = tail.find('/').unwrap_or(tail.len());
    tail.char_indices()
        .filter(|&(at, _)| at <= until)
        .take(16)
        .map(|(at, _)| tail[at..].to_owned())
        .filter(|name| !name.is_empty() && name != "/")
        .collect()
}

/// diffutils' `diff [options] a b` line (from `diff -r`, in any output format): its two paths,
/// and whether its options choose a format that marks every content line. Quoted names
/// (`"a/my dir/.env"`) are kept whole.
pub(super) fn diffutils_header(line: &str) -> Option<(Vec<String>, bool)> {
    let rest = line.strip_prefix("diff ")?;
    let mut words = Vec::new();
    let mut marked = true;
    let mut chars = rest.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        if c.is_whitespace() {
            continue;
        }
        let word = if c == '"' {
            let mut end = rest.len();
            for (at, c) in chars.by_ref() {
                if c == '"' {
                    end = at + 1;
                    break;
                }
            }
            &rest[start..end]
        } else {
            let mut end = rest.len();
            while let Some(&(at, c)) = chars.peek() {
                if c.is_whitespace() {
                    end = at;
                    break;
                }
                chars.next();
            }
            &rest[start..end]
        };
        if !word.starts_with('-') {
            words.push(word);
        } else if !marks_content_lines(word) {
            marked = false;
        }
    }
    let paths = words.iter().rev().take(2).map(|w| strip_side(w)).collect();
    Some((paths, marked))
}

/// Whether a diffutils option leaves content lines marked: side by side (`-y`), ed (`-e`), RCS
/// (`-n`), `--ifdef` (`-D`) and the custom line and group formats print them as they are. A
/// cluster holding one of those letters counts as unmarked, which can only withhold more.
fn marks_content_lines(option: &str) -> bool {
    const UNMARKED_LONG: &[&str] = &[
        "--side-by-side",
        "--ed",
        "--rcs",
        "--ifdef",
        "--line-format",
        "--old-line-format",
        "--new-line-format",
        "--unchanged-line-format",
        "--old-group-format",
        "--new-group-format",
        "--changed-group-format",
        "--unchanged-group-format",
        "--forward-ed",
    ];
    match option.strip_prefix("--") {
        Some(_) => !UNMARKED_LONG.iter().any(|long| option.starts_with(long)),
        None => !option.contains(['y', 'e', 'n', 'D', 'f']),
    }
}

/// `--- x`, `+++ y` (unified) or `*** x` (context format): the file it names; `/dev/null` and a
/// context format's `*** 1,2 ****` range name none.
pub(super) fn side_header(line: &str) -> Option<Vec<String>> {
    let rest = line
        .strip_prefix("--- ")
        .or_else(|| line.strip_prefix("+++ "))
        .or_else(|| line.strip_prefix("*** "))?;
    // `--- path\t2026-12-01 …` (diff -u) or `--- a/path` (git).
    let path = rest.split('\t').next().unwrap_or(rest);
    let range = path.ends_with("****") || path.ends_with("----");
    Some(if path == "/dev/null" || path.is_empty() || range {
        Vec::new()
    } else {
        vec![strip_side(path)]
    })
}

/// A line that ends a diffutils file section: the next file's report, or a line of `diff -r`'s
/// own about the trees.
/// A line with a tab never ends one: diffutils prints names as they are, and the side-by-side
/// format (`diff -y`), whose content lines carry no marker, pads its gutter with tabs; so a
/// blocked file's own `diff x y` line cannot end its section there.
pub(super) fn ends_diffutils_section(line: &str) -> bool {
    if line.contains('\t') {
        return false;
    }
    line.starts_with("diff ")
        || line.starts_with("Only in ")
        || line.starts_with("Common subdirectories: ")
        || (line.starts_with("Files ") && line.ends_with(" differ"))
        || (line.starts_with("Binary files ") && line.ends_with(" differ"))
        || (line.starts_with("File ") && line.contains(" is a "))
}

/// A `git range-diff` pair line: `1:  9001c0f ! 1:  a79fb88 subject` (or `-:  ------- > 2: …`).
pub(super) fn is_range_diff_header(line: &str) -> bool {
    let mut words = line.split_whitespace();
    let numbered = |w: Option<&str>| {
        w.and_then(|w| w.strip_suffix(':'))
            .is_some_and(|n| n == "-" || (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())))
    };
    let commit = |w: Option<&str>| {
        w.is_some_and(|w| w.len() >= 4 && w.bytes().all(|b| b.is_ascii_hexdigit() || b == b'-'))
    };
    numbered(words.next())
        && commit(words.next())
        && matches!(words.next(), Some("!" | "=" | "<" | ">"))
        && numbered(words.next())
        && commit(words.next())
}

/// Inside a range-diff, a file's header `## path ##`: four spaces of range-diff's own, the outer
/// diff's marker, a space. A content line has the inner diff's marker where that space is.
pub(super) fn range_diff_file(line: &str) -> Option<&str> {
    let inner = line.strip_prefix("    ")?.strip_prefix([' ', '+', '-'])?;
    let name = inner.strip_prefix(" ## ")?.strip_suffix(" ##")?;
    Some(
        [" (new)", " (deleted)", " (mode change)"]
            .iter()
            .find_map(|suffix| name.strip_suffix(suffix))
            .unwrap_or(name),
    )
}

/// `==> path <==`: `head` and `tail` over several files print each file's name above its lines.
pub(super) fn file_banner(line: &str) -> Option<&str> {
    line.strip_prefix("==> ")?.strip_suffix(" <==")
}

/// `12:text`, `12-text` or `12=text`: a line of a file under a `--heading` (rg, git grep).
pub(super) fn is_numbered_line(line: &str) -> bool {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && matches!(line.as_bytes().get(digits), Some(b':' | b'-' | b'='))
}

/// Whether a line may be a `--heading` file name: nothing around it, no control characters.
pub(super) fn may_be_heading(line: &str) -> bool {
    !line.is_empty()
        && !line.starts_with(char::is_whitespace)
        && !line.chars().any(char::is_control)
        && (!is_numbered_line(line) || line.contains('/'))
        && line != "--"
}

/// `git diff --check`'s report of a whitespace error: `path:12: trailing whitespace.`; the
/// offending line follows it, behind a `+`.
pub(super) fn check_report_path(line: &str) -> Option<&str> {
    const MESSAGES: &[&str] = &[
        " trailing whitespace.",
        " space before tab in indent.",
        " indent with spaces.",
        " tab in indent.",
        " new blank line at EOF.",
        " leftover conflict marker",
    ];
    MESSAGES
        .iter()
        .any(|message| line.ends_with(message))
        .then(|| numbered_candidates(line).next())
        .flatten()
}

/// Where a line says its bytes come from.
pub(super) enum Source<'l> {
    /// A name to judge.
    Path(Cow<'l, str>),
    /// A source that cannot be judged (ripgrep's JSON names a non-UTF-8 path by its bytes):
    /// withheld, under this description.
    Unreadable(&'static str),
}

/// The files a line of output names as its source (empty: none), besides its section's.
pub(super) fn named_sources(line: &str) -> Vec<Source<'_>> {
    fn path(p: &str) -> Source<'_> {
        Source::Path(Cow::Borrowed(p))
    }
    if let Some(found) = line
        .strip_prefix("Binary file ")
        .and_then(|rest| rest.strip_suffix(" matches"))
    {
        return vec![path(found)];
    }
    if let Some((found, _)) = line.split_once(": binary file matches") {
        return vec![path(found)];
    }
    if let Some(rest) = line
        .strip_prefix("Binary files ")
        .or_else(|| line.strip_prefix("Files "))
        && let Some((a, b)) = rest
            .strip_suffix(" differ")
            .and_then(|r| r.split_once(" and "))
    {
        return vec![path(a), path(b)];
    }
    if line.starts_with("{\"")
        && let Some(source) = ripgrep_json_source(line)
    {
        return vec![source];
    }
    if let Some(found) = blame_path(line) {
        return vec![path(found)];
    }
    // `grep -Z`: the name ends at the NUL. `grep -z`: records end at NULs, and a record after one
    // starts with its own name (`\0config/.env:KEY=…`): every record's candidates are judged.
    if line.contains('\0') {
        let mut records = line.split('\0');
        let mut sources = vec![path(records.next().unwrap_or_default())];
        for record in records.take(MAX_CANDIDATES_PER_LINE) {
            sources.extend(numbered_candidates(record).map(path));
            sources.extend(unnumbered_candidates(record).map(path));
        }
        sources.retain(|source| !matches!(source, Source::Path(p) if p.is_empty()));
        return sources;
    }
    // A name spelled with spaces is taken only where it looks like a file (`my dir/x.txt`), so
    // prose before a time (`… commit 12: key = 12:31:00`) is not judged line after line.
    let numbered: Vec<&str> = numbered_candidates(line)
        .filter(|name| !name.contains(char::is_whitespace) || looks_like_path(name))
        .collect();
    // A prefix with spaces that runs past the first numbered split runs into the text
    // (`./src/a.ts:1:const value = …`): the numbered name covers that line.
    let first_split = numbered.iter().map(|name| name.len()).min();
    let mut sources: Vec<Source<'_>> = numbered.iter().map(|name| path(name)).collect();
    sources.extend(
        unnumbered_candidates(line)
            .filter(|name| {
                !numbered.contains(name)
                    && (!name.contains(char::is_whitespace)
                        || first_split.is_none_or(|split| name.len() <= split))
            })
            .map(path),
    );
    sources
}

/// `rg --json`: a `begin`, `match`, `context` or `end` message names its file in `data.path`.
fn ripgrep_json_source(line: &str) -> Option<Source<'static>> {
    let message: serde_json::Value = serde_json::from_str(line).ok()?;
    let path = message.get("data")?.get("path")?;
    Some(match path.get("text").and_then(serde_json::Value::as_str) {
        Some(text) => Source::Path(Cow::Owned(text.to_owned())),
        None => Source::Unreadable("a file ripgrep named by its bytes"),
    })
}

/// `path<sep>digits<sep>…` for a separator `:`, `-` or `=` (grep, rg, `git grep -p`), with the
/// padding `grep -T` puts before the digits: the `path` of every such split, since a name may
/// itself hold one (`config-2024-01/.env-2-…`, `.env-2-START=12:30:00`).
pub(super) fn numbered_candidates(line: &str) -> impl Iterator<Item = &str> {
    let bytes = line.as_bytes();
    (1..bytes.len())
        .filter(move |&start| {
            let separator = bytes[start];
            if !matches!(separator, b':' | b'-' | b'=') {
                return false;
            }
            let padding = bytes[start + 1..]
                .iter()
                .take_while(|&&b| b == b' ')
                .count();
            let digits_at = start + 1 + padding;
            let digits = bytes[digits_at..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            digits > 0 && bytes.get(digits_at + digits) == Some(&separator)
        })
        .take(MAX_CANDIDATES_PER_LINE)
        .map(move |start| &line[..start])
}

/// `path:text`, `path-text`, `path=text` (grep, rg and git grep without `-n`: matches, context
/// lines, function lines) and `path text` (a name, then a space): each prefix before one of those
/// separators that [looks like a file name](looks_like_path).
fn unnumbered_candidates(line: &str) -> impl Iterator<Item = &str> {
    let first_space = line.find([' ', '\t']);
    line.match_indices([':', '-', '='])
        .map(|(at, _)| at)
        .take(MAX_CANDIDATES_PER_LINE)
        .chain(first_space)
        .map(move |at| &line[..at])
        .filter(|prefix| looks_like_path(prefix))
}

/// Whether a prefix of a line looks like a file name: it holds a `/`, or a `.` and no space, and a
/// letter or digit; it starts with no space (so `key: value`, `12:30`, `--` and prose before a
/// colon are not taken for files). A name may end in spaces (`secrets/note `).
pub(super) fn looks_like_path(prefix: &str) -> bool {
    !prefix.is_empty()
        && !prefix.starts_with(char::is_whitespace)
        && prefix.chars().any(char::is_alphanumeric)
        && (prefix.contains(['/', '\\']) || (prefix.contains('.') && !prefix.contains(' ')))
}

/// A word of name characters only (`node_modules`, `*.log`, `config-2024-01`): what listings
/// and ignore files hold, not a file's line such as `KEY=value` or prose.
pub(super) fn is_bare_word(line: &str) -> bool {
    line.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"._-/*!#~@+".contains(&b))
}

/// A line that names the file of every line after it: `unzip -c`'s `  inflating: path` over
/// each member's bytes, `git blame --porcelain`'s `filename path` over its tab-led lines.
pub(super) fn file_announcement(line: &str) -> Option<&str> {
    if let Some(path) = line.strip_prefix("filename ") {
        return Some(path);
    }
    let rest = line.trim_start();
    rest.strip_prefix("inflating: ")
        .or_else(|| rest.strip_prefix("extracting: "))
        .map(str::trim)
}

/// `pr`'s page header: `2026-12-06 14:22   path   Page 3`.
pub(super) fn page_header(line: &str) -> Option<&str> {
    let (head, page) = line.rsplit_once(" Page ")?;
    let dated = head.len() > 16
        && head.as_bytes()[..16]
            .iter()
            .enumerate()
            .all(|(at, b)| match at {
                4 | 7 => *b == b'-',
                10 => *b == b' ',
                13 => *b == b':',
                _ => b.is_ascii_digit(),
            });
    (dated && !page.is_empty() && page.bytes().all(|b| b.is_ascii_digit()))
        .then(|| head[16..].trim())
        .filter(|name| !name.is_empty())
}

/// `git blame -f`: `46d483cf path (Author 2026-12-06 … 1) text` (`^` marks a boundary commit).
fn blame_path(line: &str) -> Option<&str> {
    let (commit, rest) = line.split_once(' ')?;
    let commit = commit.strip_prefix('^').unwrap_or(commit);
    if commit.len() < 7 || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    rest.split_once(" (").map(|(path, _)| path.trim_end())
}

/// Whether a line opens a file's section in any format: inside an allowed file's section it is
/// the next command's header, never that file's content (`head a b; git diff`).
pub(super) fn opens_section(line: &str) -> bool {
    file_banner(line).is_some()
        || file_announcement(line).is_some()
        || page_header(line).is_some()
        || line == MORE_BANNER
        || git_diff_header(line).is_some()
        || (line.starts_with("diff ") && !line.contains('\t'))
        || line.starts_with("commit ")
        || is_range_diff_header(line)
}

/// `more`'s banner: a file's name between two lines of 14 colons.
pub(super) const MORE_BANNER: &str = "::::::::::::::";

/// The names a path is judged under: itself without `./`, and every tail after a `:` (`git grep`
/// prints `HEAD:.env:1:…`, a revision before the file).
pub(super) fn judged_names(path: &str) -> impl Iterator<Item = &str> {
    let whole = path.strip_prefix("./").unwrap_or(path);
    std::iter::once(whole).chain(
        whole
            .match_indices(':')
            .take(MAX_CANDIDATES_PER_LINE)
            .map(move |(at, _)| &whole[at + 1..])
            .filter(|tail| !tail.is_empty())
            .map(|tail| tail.strip_prefix("./").unwrap_or(tail)),
    )
}

/// The note that stands for `count` withheld lines of `path`.
pub(super) fn note(path: &str, count: u64) -> String {
    let lines = if count == 1 { "line" } else { "lines" };
    format!(
        "[{count} {lines} of {path} withheld: the file is blocked by the access rule (.rooignore)]\n"
    )
}
