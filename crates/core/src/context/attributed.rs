//! Lines of tool output that say which file they come from (issue 31: no blocked byte in any
//! output). A command can read blocked files without naming them (`grep -rn KEY .` walks the
//! whole tree), and a search result carries lines of every file it matched; before an output is
//! stored or shown, every line attributed to a file is judged by the caller's access rule and a
//! blocked file's lines are withheld.
//!
//! The formats recognised, in one pass over the lines (linear in the output; terminal colour
//! escapes are ignored, as `grep --color=always` wraps names in them):
//! - grep and ripgrep with line numbers: `path:12:text`, and their context lines `path-12-text`;
//! - grep without line numbers over several files: `path:text`, when `path` has no spaces and
//!   contains a `/` or starts with `.` (a bare `key:value` is not taken for a file);
//! - `Binary file path matches` (grep), `path: binary file matches` (ripgrep), `grep -Z`'s
//!   `path\0…`, and `git grep`'s `rev:path:12:…` (every tail after a `:` is judged too);
//! - unified diffs (`git diff`, `git log -p`, `git show`, `diff -ru`): a `diff …`, `--- x` or
//!   `+++ y` header owns the lines that follow while they look like a diff's;
//! - in a search's output only (`sections`), Roo's `search_files` format: a `# path` header owns
//!   every line up to the next header.
//!
//! What this cannot see: bytes printed with no path beside them (`cat .env`), which the command
//! vetting judges before the command runs (`roo/shell/vet`), and ripgrep's `--heading` form. A
//! candidate that is not really a path (`note:12:…` in a log) is judged like a path; it is
//! withheld only when the rule blocks that name, which fails closed.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

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

/// A line without its terminal escape sequences (`grep --color=always` wraps the path in them).
fn without_escapes(line: &str) -> Cow<'_, str> {
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

/// The lines a header owns until the output leaves its format.
#[derive(Default)]
enum Section {
    #[default]
    None,
    /// Roo's `search_files`: `# path` up to the next header.
    Search(String),
    /// A unified diff (`diff --git a/x b/x`, `diff -r x y`, `--- x` / `+++ y`): while lines look
    /// like a diff's.
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
}

/// The old and new line counts of a hunk header `@@ -a[,b] +c[,d] @@` (a count left out is 1);
/// a header that does not parse counts as endless, so the file keeps its lines (fails closed).
fn hunk_counts(line: &str) -> Option<(u64, u64)> {
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

/// Counts `line` against the hunk in progress; whether it was one of its content lines.
fn hunk_content(hunk: &mut (u64, u64), line: &str) -> bool {
    if *hunk == (0, 0) {
        return false;
    }
    let (old, new) = hunk;
    match line.as_bytes().first() {
        Some(b' ') | None => {
            *old = old.saturating_sub(1);
            *new = new.saturating_sub(1);
        }
        Some(b'-') => *old = old.saturating_sub(1),
        Some(b'+') => *new = new.saturating_sub(1),
        Some(b'\\') => {}
        // Not a hunk line: the hunk was cut short.
        _ => {
            *hunk = (0, 0);
            return false;
        }
    }
    true
}

/// Whether a line can continue a diff's section.
fn is_diff_line(line: &str) -> bool {
    const HEADS: &[&str] = &[
        "+",
        "-",
        " ",
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

/// The two paths of a diff header line, if it is one.
fn diff_header(line: &str) -> Option<Vec<String>> {
    let strip = |p: &str| {
        let p = p.trim().trim_matches('"');
        p.strip_prefix("a/")
            .or_else(|| p.strip_prefix("b/"))
            .unwrap_or(p)
            .to_owned()
    };
    if let Some(rest) = line.strip_prefix("diff --git ") {
        let split = rest.rfind(" b/").unwrap_or(rest.len() / 2);
        return Some(vec![strip(&rest[..split]), strip(&rest[split..])]);
    }
    if let Some(rest) = line.strip_prefix("diff ") {
        let words: Vec<&str> = rest
            .split_whitespace()
            .filter(|w| !w.starts_with('-'))
            .collect();
        return Some(words.iter().rev().take(2).map(|w| strip(w)).collect());
    }
    let rest = line
        .strip_prefix("--- ")
        .or_else(|| line.strip_prefix("+++ "))?;
    // `--- path\t2026-12-01 …` (diff -u) or `--- a/path` (git); `/dev/null` names no file.
    let path = rest.split('\t').next().unwrap_or(rest);
    Some(if path == "/dev/null" || path.is_empty() {
        Vec::new()
    } else {
        vec![strip(path)]
    })
}

/// The files a line of output names as its source (empty: none), besides its section's.
fn named_paths(line: &str) -> Vec<&str> {
    if let Some(path) = line
        .strip_prefix("Binary file ")
        .and_then(|rest| rest.strip_suffix(" matches"))
    {
        return vec![path];
    }
    if let Some((path, _)) = line.split_once(": binary file matches") {
        return vec![path];
    }
    if let Some(rest) = line.strip_prefix("Binary files ")
        && let Some((a, b)) = rest
            .strip_suffix(" differ")
            .and_then(|r| r.split_once(" and "))
    {
        return vec![a, b];
    }
    // `grep -Z`: the name ends at the NUL.
    if let Some((path, _)) = line.split_once('\0') {
        return vec![path];
    }
    if let Some(path) = numbered_prefix(line, b':').or_else(|| numbered_prefix(line, b'-')) {
        return vec![path];
    }
    if let Some((path, _)) = line.split_once(':')
        && !path.is_empty()
        && !path.contains(char::is_whitespace)
        && (path.contains('/') || path.starts_with('.'))
    {
        return vec![path];
    }
    Vec::new()
}

/// `path<sep>digits<sep>…`: the `path` of the first such split (paths with `:12:` inside are
/// taken at their first one, a prefix the rule judges too).
fn numbered_prefix(line: &str, separator: u8) -> Option<&str> {
    let bytes = line.as_bytes();
    let mut at = 0;
    while let Some(offset) = bytes[at..].iter().position(|&b| b == separator) {
        let start = at + offset;
        let digits = bytes[start + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if start > 0 && digits > 0 && bytes.get(start + 1 + digits) == Some(&separator) {
            return Some(&line[..start]);
        }
        at = start + 1;
    }
    None
}

/// The names a path is judged under: itself without `./`, and every tail after a `:` (`git grep`
/// prints `HEAD:.env:1:…`, a revision before the file).
fn judged_names(path: &str) -> impl Iterator<Item = &str> {
    let whole = path.strip_prefix("./").unwrap_or(path);
    std::iter::once(whole).chain(
        whole
            .match_indices(':')
            .map(move |(at, _)| &whole[at + 1..])
            .filter(|tail| !tail.is_empty())
            .map(|tail| tail.strip_prefix("./").unwrap_or(tail)),
    )
}

/// The note that stands for `count` withheld lines of `path`.
fn note(path: &str, count: u64) -> String {
    let lines = if count == 1 { "line" } else { "lines" };
    format!(
        "[{count} {lines} of {path} withheld: the file is blocked by the access rule (.rooignore)]\n"
    )
}

/// `text` with the lines of every file `is_blocked` blocks withheld. `is_blocked` is asked once
/// per distinct name. `sections` turns on Roo's `# path` search sections (a heading elsewhere is
/// prose). Returns the text unchanged (borrowed) when nothing is withheld.
pub fn withhold_blocked_lines<'a>(
    text: &'a str,
    sections: bool,
    mut is_blocked: impl FnMut(&str) -> bool,
) -> Withheld<'a> {
    let mut verdicts: HashMap<String, bool> = HashMap::new();
    let mut judge = |path: &str| -> bool {
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
    let mut copied = 0; // bytes of `text` already handled when `out` is in use
    let mut position = 0;
    for line in text.split_inclusive('\n') {
        let start = position;
        position += line.len();
        let clean = without_escapes(line.trim_end_matches(['\n', '\r']));
        let bare: &str = &clean;
        let in_hunk = match &mut section {
            Section::Diff { binary: true, .. } if !bare.is_empty() => true,
            Section::Diff { hunk, .. } => hunk_content(hunk, bare),
            _ => false,
        };
        if in_hunk {
            // A line of the file's content: it stays with the diff's paths.
        } else if let Some(header) = bare.strip_prefix("# ").filter(|_| sections) {
            section = Section::Search(header.trim_end().to_owned());
        } else if let (Some(counts), Section::Diff { hunk, header, .. }) =
            (hunk_counts(bare), &mut section)
        {
            *hunk = counts;
            *header = false;
        } else if let Some(names) = diff_header(bare) {
            match &mut section {
                // `--- a/x` after `diff --git`, `+++ b/x` after `--- a/x`: the same file.
                Section::Diff { paths, header, .. }
                    if !bare.starts_with("diff ") && (*header || bare.starts_with("+++ ")) =>
                {
                    paths.extend(names);
                    *header = true;
                }
                _ => {
                    section = Section::Diff {
                        paths: names,
                        hunk: (0, 0),
                        header: true,
                        binary: false,
                    }
                }
            }
        } else if let Section::Diff { binary, .. } = &mut section {
            if bare == "GIT binary patch" {
                *binary = true;
            } else if *binary || !is_diff_line(bare) {
                // The empty line after binary data, or a line no diff has: the diff is over.
                section = Section::None;
            }
        }
        let named = if in_hunk {
            Vec::new()
        } else {
            named_paths(bare)
        };
        let section_paths: &[String] = match &section {
            Section::None => &[],
            Section::Search(path) => std::slice::from_ref(path),
            Section::Diff { paths, .. } => paths,
        };
        let blocked: Option<String> = named
            .into_iter()
            .find(|path| judge(path))
            .map(str::to_owned)
            .or_else(|| section_paths.iter().find(|path| judge(path)).cloned());
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

#[cfg(test)]
mod tests {
    use expect_test::{Expect, expect};

    use super::*;

    fn check(text: &str, expected: Expect) {
        let withheld = withhold_blocked_lines(text, true, |path| {
            path == ".env" || path.starts_with("secrets/") || path.ends_with(".pem")
        });
        let rendered = format!(
            "{}-- withheld {} lines of {:?}",
            withheld.text, withheld.lines, withheld.paths
        );
        expected.assert_eq(&rendered);
    }

    #[test]
    fn grep_with_line_numbers_and_context_lines() {
        check(
            "src/app.ts:3:const key = load()\n./.env:1:API_KEY=sk-live-123\n./.env-2-OTHER=x\nsrc/app.ts-4-}\n",
            expect![[r#"
                src/app.ts:3:const key = load()
                [2 lines of ./.env withheld: the file is blocked by the access rule (.rooignore)]
                src/app.ts-4-}
                -- withheld 2 lines of ["./.env"]"#]],
        );
    }

    #[test]
    fn grep_without_line_numbers_and_binary_matches() {
        check(
            "./secrets/db.txt:password=hunter2\nkey: value\nBinary file secrets/blob.bin matches\ncert/server.pem: binary file matches (found \"\\0\" byte around offset 0)\nREADME.md:ok\n",
            expect![[r#"
                [1 line of ./secrets/db.txt withheld: the file is blocked by the access rule (.rooignore)]
                key: value
                [1 line of secrets/blob.bin withheld: the file is blocked by the access rule (.rooignore)]
                [1 line of cert/server.pem withheld: the file is blocked by the access rule (.rooignore)]
                README.md:ok
                -- withheld 3 lines of ["./secrets/db.txt", "secrets/blob.bin", "cert/server.pem"]"#]],
        );
    }

    #[test]
    fn a_roo_search_section_of_a_blocked_file_is_withheld_whole() {
        check(
            "Found 3 results.\n\n# src/a.ts\n  1 | token\n----\n\n# secrets/keys.ts\n  4 | const TOKEN = \"abc\"\n  5 | export default TOKEN\n----\n\n# src/b.ts\n  9 | token\n----",
            expect![[r#"
                Found 3 results.

                # src/a.ts
                  1 | token
                ----

                [5 lines of secrets/keys.ts withheld: the file is blocked by the access rule (.rooignore)]
                # src/b.ts
                  9 | token
                ------ withheld 5 lines of ["secrets/keys.ts"]"#]],
        );
    }

    #[test]
    fn nothing_blocked_borrows_the_text_and_each_path_is_judged_once() {
        let text = "src/a.ts:1:x\nsrc/a.ts:2:y\nsrc/b.ts:1:z\nplain line\n";
        let mut asked = Vec::new();
        let withheld = withhold_blocked_lines(text, true, |path| {
            asked.push(path.to_owned());
            false
        });
        assert!(matches!(withheld.text, Cow::Borrowed(t) if t == text));
        assert_eq!(asked, ["src/a.ts", "src/b.ts"]);
        assert_eq!(withheld.lines, 0);
    }

    #[test]
    fn a_heading_outside_a_search_owns_no_lines() {
        let text = "# secrets/notes
plain text
";
        let withheld = withhold_blocked_lines(text, false, |path| path.starts_with("secrets/"));
        assert_eq!(withheld.text, text);
    }

    #[test]
    fn lines_that_only_look_numbered_are_judged_by_their_prefix() {
        // `12:30:00` is judged as `12` and `a-1-b` as `a` (both allowed), so they stay.
        check(
            "12:30:00 started\na-1-b\nsecrets/x-3-y\n",
            expect![[r#"
                12:30:00 started
                a-1-b
                [1 line of secrets/x withheld: the file is blocked by the access rule (.rooignore)]
                -- withheld 1 lines of ["secrets/x"]"#]],
        );
    }
    #[test]
    fn colour_wrapped_grep_and_git_grep_revisions_and_nul_separated_names() {
        check(
            "\x1b[35m./.env\x1b[m\x1b[36m:\x1b[m\x1b[32m1\x1b[m\x1b[36m:\x1b[mAPI_KEY=sk\nHEAD:.env:2:DB=x\nmain:src/a.ts:1:ok\nsecrets/k.txt\0token\nsrc/b.ts:fine\n",
            expect![[r#"
                [1 line of ./.env withheld: the file is blocked by the access rule (.rooignore)]
                [1 line of HEAD:.env withheld: the file is blocked by the access rule (.rooignore)]
                main:src/a.ts:1:ok
                [1 line of secrets/k.txt withheld: the file is blocked by the access rule (.rooignore)]
                src/b.ts:fine
                -- withheld 3 lines of ["./.env", "HEAD:.env", "secrets/k.txt"]"#]],
        );
    }

    #[test]
    fn a_git_diff_of_a_blocked_file_is_withheld_up_to_the_next_file() {
        // The removed `-- note` line reads `--- note`: inside a hunk it is content, not a header
        // that would hand the rest of the hunk to another file.
        check(
            "diff --git a/src/a.ts b/src/a.ts\nindex 1..2 100644\n--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1 +1 @@\n-old\n+new\ndiff --git a/.env b/.env\nindex 3..4 100644\n--- a/.env\n+++ b/.env\n@@ -1,3 +1,2 @@\n--- note\n-KEY=old\n+KEY=new\n API=1\ncommit 0123abc\nAuthor: a <a@b>\n",
            expect![[r#"
                diff --git a/src/a.ts b/src/a.ts
                index 1..2 100644
                --- a/src/a.ts
                +++ b/src/a.ts
                @@ -1 +1 @@
                -old
                +new
                [9 lines of .env withheld: the file is blocked by the access rule (.rooignore)]
                commit 0123abc
                Author: a <a@b>
                -- withheld 9 lines of [".env"]"#]],
        );
    }

    #[test]
    fn diff_r_headers_dev_null_and_binary_files() {
        check(
            "diff -ru secrets/k.txt backup/k.txt\n--- secrets/k.txt\t2026-12-01 10:00:00\n+++ backup/k.txt\t2026-12-02 10:00:00\n@@ -1 +1 @@\n-a\n+b\nOnly in new: extra\n--- /dev/null\n+++ b/src/new.ts\n@@ -0,0 +1 @@\n+export {}\nBinary files a/key.pem and b/key.pem differ\ndone\n",
            expect![[r#"
                [6 lines of secrets/k.txt withheld: the file is blocked by the access rule (.rooignore)]
                Only in new: extra
                --- /dev/null
                +++ b/src/new.ts
                @@ -0,0 +1 @@
                +export {}
                [1 line of a/key.pem withheld: the file is blocked by the access rule (.rooignore)]
                done
                -- withheld 7 lines of ["secrets/k.txt", "a/key.pem"]"#]],
        );
    }
    #[test]
    fn plain_diff_u_of_several_files_and_a_git_binary_patch() {
        check(
            "--- src/a.ts\n+++ src/a.ts\n@@ -1 +1 @@\n-x\n+y\n--- .env\n+++ .env\n@@ -1 +1 @@\n-K=1\n+K=2\ndiff --git a/key.pem b/key.pem\nGIT binary patch\nliteral 12\nTcmZ?wbN2-S{Nxf-K=9\n\ndiff --git a/src/b.ts b/src/b.ts\n",
            expect![[r#"
                --- src/a.ts
                +++ src/a.ts
                @@ -1 +1 @@
                -x
                +y
                [5 lines of .env withheld: the file is blocked by the access rule (.rooignore)]
                [4 lines of key.pem withheld: the file is blocked by the access rule (.rooignore)]

                diff --git a/src/b.ts b/src/b.ts
                -- withheld 9 lines of [".env", "key.pem"]"#]],
        );
    }
}
