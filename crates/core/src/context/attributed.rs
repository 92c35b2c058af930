//! Lines of tool output that say which file they come from (issue 31: no blocked byte in any
//! output). A command can read blocked files without naming them (`grep -rn KEY .` walks the
//! whole tree), and a search result carries lines of every file it matched; before an output is
//! stored or shown, every line attributed to a file is judged by the caller's access rule and a
//! blocked file's lines are withheld.
//!
//! The formats recognised, each line on its own (so the work is one pass, linear in the output):
//! - grep and ripgrep with line numbers: `path:12:text`, and their context lines `path-12-text`;
//! - grep without line numbers over several files: `path:text`, when `path` has no spaces and
//!   contains a `/` or starts with `.` (a bare `key:value` is not taken for a file);
//! - `Binary file path matches` (grep) and `path: binary file matches` (ripgrep);
//! - in a search's output only (`sections`), Roo's `search_files` format: a `# path` header owns
//!   every line up to the next header.
//!
//! What this cannot see: bytes printed with no path beside them (`cat .env`), which the command
//! vetting judges before the command runs (`roo/shell/vet`), and ripgrep's `--heading` form. A
//! candidate that is not really a path (`note:12:…` in a log) is judged like a path; it is
//! withheld only when the rule blocks that name, which fails closed.

use std::borrow::Cow;
use std::collections::HashMap;

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

/// The file a line of output names as its source, if any (`section` is the path of the Roo
/// search header in force).
fn attributed_path<'l>(line: &'l str, section: Option<&'l str>) -> Option<&'l str> {
    if let Some(path) = line
        .strip_prefix("Binary file ")
        .and_then(|rest| rest.strip_suffix(" matches"))
    {
        return Some(path);
    }
    if let Some(path) =
        line.strip_suffix(": binary file matches (found \"\\0\" byte around offset 0)")
    {
        return Some(path);
    }
    if let Some(path) = numbered_prefix(line, b':').or_else(|| numbered_prefix(line, b'-')) {
        return Some(path);
    }
    if let Some((path, _)) = line.split_once(':')
        && !path.is_empty()
        && !path.contains(char::is_whitespace)
        && (path.contains('/') || path.starts_with('.'))
    {
        return Some(path);
    }
    section
}

/// `path` of a line `path<sep>digits<sep>…` (the first such split; paths with `:12:` inside are
/// taken at their first one, which names a prefix the rule judges too).
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

/// The note that stands for `count` withheld lines of `path`.
fn note(path: &str, count: u64) -> String {
    let lines = if count == 1 { "line" } else { "lines" };
    format!(
        "[{count} {lines} of {path} withheld: the file is blocked by the access rule (.rooignore)]\n"
    )
}

/// `text` with the lines of every file `is_blocked` blocks withheld. `is_blocked` is asked once
/// per distinct path. Returns the text unchanged (borrowed) when nothing is withheld.
pub fn withhold_blocked_lines<'a>(
    text: &'a str,
    sections: bool,
    mut is_blocked: impl FnMut(&str) -> bool,
) -> Withheld<'a> {
    let mut verdicts: HashMap<&str, bool> = HashMap::new();
    let mut out: Option<String> = None;
    let mut paths: Vec<String> = Vec::new();
    let mut withheld_lines = 0u64;
    // The run of withheld lines being collapsed: its path and length.
    let mut run: Option<(&str, u64)> = None;
    let mut section: Option<&str> = None;
    let mut copied = 0; // bytes of `text` already handled when `out` is in use
    let mut position = 0;
    for line in text.split_inclusive('\n') {
        let start = position;
        position += line.len();
        let bare = line.trim_end_matches(['\n', '\r']);
        if let Some(header) = bare.strip_prefix("# ").filter(|_| sections) {
            section = Some(header.trim_end());
        }
        let blocked = attributed_path(bare, section).filter(|path| {
            *verdicts
                .entry(path)
                .or_insert_with(|| is_blocked(path.strip_prefix("./").unwrap_or(path)))
        });
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
                            out.push_str(&note(previous, count));
                        }
                        run = Some((path, 1));
                    }
                }
                if !paths.iter().any(|known| known == path) {
                    paths.push(path.to_owned());
                }
                withheld_lines += 1;
                copied = position;
            }
            None => {
                if let (Some(out), Some((previous, count))) = (out.as_mut(), run.take()) {
                    out.push_str(&note(previous, count));
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
        out.push_str(&note(previous, count));
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
}
