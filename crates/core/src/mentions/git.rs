//! The texts of `@git-changes` and commit-hash mentions, built from raw `git` output the caller
//! collected (the core runs no processes). Formats and the 500-line cut follow the original.
//! Git output passes the access rule too: every status line, stat line and per-file diff section
//! naming a blocked path, or a path that cannot be parsed for sure, is left out (fail closed).
//!
//! ## Decision: Git output obeys the rule
//!
//! `@git-changes` and `@<commit>` run git with fixed prefixes, no renames and no external diff,
//! then keep only status lines, stat lines and per-file diff sections whose paths the access rule
//! allows; a header that cannot be split for sure (quoting, renames) counts as blocked and a note
//! says something was left out. Git runs with `color.*=never` and `diff.relative=false` forced
//! (`GIT_PARSEABLE_OUTPUT`), so no user setting hides a header behind colour codes or makes paths
//! relative to another folder, and `@<hash>` is first peeled to a commit (`<hash>^{commit}`): a
//! blob's or tree's `git show` is raw content with no header to judge, so a hash that is not a
//! commit is an error. Diffs run with `--no-textconv` and `--attr-source=<the empty tree>`:
//! `.gitattributes` and `.git/config` (both files an agent can write) can name textconv and
//! clean-filter commands (`cat secrets/key`) whose output would show as an allowed path's diff. A
//! git older than 2.40 refuses the option, and the mention says it failed.

/// Git outputs are cut to this many lines (`GIT_OUTPUT_LINE_LIMIT`).
pub const GIT_OUTPUT_LINE_LIMIT: usize = 500;

/// Message when `git --version` fails.
pub const GIT_NOT_INSTALLED: &str = "Git is not installed";
/// Message when the folder is not inside a repository.
pub const NOT_A_GIT_REPOSITORY: &str = "Not a git repository";
/// Message when `git status --short` prints nothing.
pub const NO_CHANGES: &str = "No changes in working directory";

/// The original's `truncateOutput(content, lineLimit)`: keeps the first 20% and the last 80% of
/// `line_limit` lines with `\n[...N lines omitted...]\n\n` between them.
pub fn truncate_output(content: &str, line_limit: usize) -> String {
    let total_lines = content.matches('\n').count() + 1;
    if total_lines <= line_limit {
        return content.to_owned();
    }
    let before = line_limit / 5;
    let after = line_limit - before;
    // End of the start section: just after the `before`-th newline.
    let start_end = content
        .match_indices('\n')
        .nth(before.saturating_sub(1))
        .map_or(0, |(i, _)| if before == 0 { 0 } else { i + 1 });
    // Start of the end section: just after the `after`-th newline from the end.
    let end_start = content
        .rmatch_indices('\n')
        .nth(after.saturating_sub(1))
        .map_or(0, |(i, _)| i + 1);
    let omitted = total_lines - line_limit;
    format!(
        "{}\n[...{omitted} lines omitted...]\n\n{}",
        &content[..start_end],
        &content[end_start..]
    )
}

/// `getWorkingState` once `git status --short` and `git diff HEAD` have run.
pub fn format_working_state(status: &str, diff: &str) -> String {
    if status.trim().is_empty() {
        return NO_CHANGES.to_owned();
    }
    let output = format!("Working directory changes:\n\n{status}\n\n{diff}");
    truncate_output(output.trim(), GIT_OUTPUT_LINE_LIMIT)
}

/// The `--format` of the commit-info `git show` (`%H%n%h%n%s%n%an%n%ad%n%b`).
pub const COMMIT_INFO_FORMAT: &str = "%H%n%h%n%s%n%an%n%ad%n%b";

/// `getCommitInfo` once the three `git show` calls have run: `info` with
/// [`COMMIT_INFO_FORMAT`], `stats` from `--stat --format=`, `diff` from `--format=`.
/// Only the first line of the body is shown, as in the original.
pub fn format_commit_info(info: &str, stats: &str, diff: &str) -> String {
    let mut fields = info.trim().split('\n');
    let mut next = || fields.next().unwrap_or("").to_owned();
    let (full, short, subject, author, date, body) =
        (next(), next(), next(), next(), next(), next());
    let description = if body.is_empty() {
        String::new()
    } else {
        format!("\nDescription:\n{body}")
    };
    let summary = [
        format!("Commit: {short} ({full})"),
        format!("Author: {author}"),
        format!("Date: {date}"),
        format!("\nMessage: {subject}"),
        description,
        "\nFiles Changed:".to_owned(),
        stats.trim().to_owned(),
        "\nFull Changes:".to_owned(),
    ]
    .join("\n");
    truncate_output(
        &format!("{summary}\n\n{}", diff.trim()),
        GIT_OUTPUT_LINE_LIMIT,
    )
}

/// The note left where blocked or unjudgeable git output was removed.
pub const GIT_OMITTED_NOTE: &str = "[changes to paths blocked by the ignore file omitted]";

/// The git arguments the filters below rely on: fixed `a/`/`b/` prefixes, no rename pairs, no
/// external diff programs and no text conversion (a `textconv` driver is a command whose output,
/// say `cat secrets/key`, would show as the diff of an allowed path), status paths relative to
/// the folder git runs in.
pub const GIT_FILTERABLE_DIFF_ARGS: [&str; 5] = [
    "--no-renames",
    "--no-ext-diff",
    "--no-textconv",
    "--src-prefix=a/",
    "--dst-prefix=b/",
];

/// Undoes git's C-style quoting of a path (`"a\"b\303\251"`); `None` when it is malformed or
/// not UTF-8, which callers treat as unjudgeable.
pub fn unquote_git_path(quoted: &str) -> Option<String> {
    let inner = quoted.strip_prefix('"')?.strip_suffix('"')?;
    let mut bytes = Vec::with_capacity(inner.len());
    let mut chars = inner.bytes().peekable();
    while let Some(byte) = chars.next() {
        if byte == b'"' {
            return None;
        }
        if byte != b'\\' {
            bytes.push(byte);
            continue;
        }
        let escaped = chars.next()?;
        bytes.push(match escaped {
            b'n' => b'\n',
            b't' => b'\t',
            b'r' => b'\r',
            b'a' => 0x07,
            b'b' => 0x08,
            b'f' => 0x0c,
            b'v' => 0x0b,
            b'"' | b'\\' => escaped,
            b'0'..=b'3' => {
                let mut value = u32::from(escaped - b'0');
                for _ in 0..2 {
                    let digit = chars.next().filter(|d| (b'0'..=b'7').contains(d))?;
                    value = value * 8 + u32::from(digit - b'0');
                }
                u8::try_from(value).ok()?
            }
            _ => return None,
        });
    }
    String::from_utf8(bytes).ok()
}

/// A path as git prints it: quoted or plain.
fn git_path(text: &str) -> Option<String> {
    if text.starts_with('"') {
        unquote_git_path(text)
    } else if text.is_empty() {
        None
    } else {
        Some(text.to_owned())
    }
}

/// The paths a `diff --git`, `diff --cc` or `diff --combined` header names (prefixes removed);
/// `None` when the header cannot be split for sure.
fn diff_header_paths(header: &str) -> Option<Vec<String>> {
    if let Some(rest) = header
        .strip_prefix("diff --cc ")
        .or_else(|| header.strip_prefix("diff --combined "))
    {
        return git_path(rest).map(|p| vec![p]);
    }
    let body = header.strip_prefix("diff --git ")?;
    if body.starts_with('"') {
        // `"a/x" "b/x"` or `"a/x" b/x`: the first token ends at its closing quote.
        let mut escaped = false;
        let end = body
            .char_indices()
            .skip(1)
            .find(|&(_, c)| {
                let closes = c == '"' && !escaped;
                escaped = c == '\\' && !escaped;
                closes
            })
            .map(|(i, _)| i)?;
        let first = unquote_git_path(&body[..=end])?;
        let second = git_path(body[end + 1..].strip_prefix(' ')?)?;
        return Some(vec![
            first.strip_prefix("a/")?.to_owned(),
            second.strip_prefix("b/")?.to_owned(),
        ]);
    }
    // Unquoted and without renames both sides are the same path: `a/P b/P`.
    let length = body.len().checked_sub(5)?;
    if length % 2 != 0 {
        return None;
    }
    let half = length / 2;
    let first = body.get(2..2 + half)?;
    let second = body.get(half + 5..)?;
    (body.starts_with("a/") && body.get(2 + half..half + 5) == Some(" b/") && first == second)
        .then(|| vec![first.to_owned()])
}

/// Keeps the per-file sections of a diff whose paths `allowed` accepts; the text before the
/// first section is kept; every removed run of sections becomes one [`GIT_OMITTED_NOTE`].
pub fn filter_diff(diff: &str, allowed: &dyn Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(diff.len());
    let mut keeping = true;
    let mut noted = false;
    for line in diff.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.starts_with("diff --git ")
            || bare.starts_with("diff --cc ")
            || bare.starts_with("diff --combined ")
        {
            keeping = diff_header_paths(bare).is_some_and(|paths| paths.iter().all(|p| allowed(p)));
            if keeping {
                noted = false;
            } else if !noted {
                out.push_str(GIT_OMITTED_NOTE);
                out.push('\n');
                noted = true;
            }
        }
        if keeping {
            out.push_str(line);
        }
    }
    out
}

/// Keeps the `git status --short` lines whose path (relative to where git ran) `allowed`
/// accepts; a line that does not parse is dropped.
pub fn filter_status(status: &str, allowed: &dyn Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(status.len());
    let mut omitted = false;
    for line in status.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        if bare.is_empty() {
            out.push_str(line);
            continue;
        }
        let path = bare
            .get(3..)
            .filter(|_| bare.as_bytes().get(2) == Some(&b' '))
            .and_then(git_path);
        if path.is_some_and(|p| !p.contains(" -> ") && allowed(p.trim_end_matches('/'))) {
            out.push_str(line);
        } else {
            omitted = true;
        }
    }
    if omitted {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(GIT_OMITTED_NOTE);
    }
    out
}

/// Keeps the `--stat` lines whose path `allowed` accepts, and the summary line.
pub fn filter_stat(stats: &str, allowed: &dyn Fn(&str) -> bool) -> String {
    let mut out = String::with_capacity(stats.len());
    let mut omitted = false;
    for line in stats.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        let keep = match bare.rsplit_once(" | ") {
            Some((name, _)) => git_path(name.trim())
                .is_some_and(|p| !p.starts_with("...") && !p.contains(" => ") && allowed(&p)),
            None => bare.trim().is_empty() || is_stat_summary(bare),
        };
        if keep {
            out.push_str(line);
        } else {
            omitted = true;
        }
    }
    if omitted {
        out.push_str(GIT_OMITTED_NOTE);
        out.push('\n');
    }
    out
}

fn is_stat_summary(line: &str) -> bool {
    let trimmed = line.trim_start();
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0
        && (trimmed[digits..].starts_with(" file changed")
            || trimmed[digits..].starts_with(" files changed"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_keeps_first_100_and_last_400_lines() {
        let content: Vec<String> = (1..=600).map(|i| format!("l{i}")).collect();
        let out = truncate_output(&content.join("\n"), 500);
        assert!(out.starts_with("l1\nl2\n"));
        assert!(out.contains("l100\n\n[...100 lines omitted...]\n\nl201\n"));
        assert!(out.ends_with("l600"));
        assert_eq!(out.matches('\n').count(), 100 + 2 + 400);
    }

    #[test]
    fn commit_without_body_has_two_blank_lines_before_files_changed() {
        let out = format_commit_info(
            "abc123full\nabc123\nSubject\nAda\nMon Jan 1\n",
            " a.txt | 1 +\n",
            "diff --git a/a.txt b/a.txt\n",
        );
        assert_eq!(
            out,
            "Commit: abc123 (abc123full)\nAuthor: Ada\nDate: Mon Jan 1\n\nMessage: Subject\n\n\nFiles Changed:\na.txt | 1 +\n\nFull Changes:\n\ndiff --git a/a.txt b/a.txt"
        );
    }

    fn allow_all_but_env(path: &str) -> bool {
        !path.ends_with(".env") && !path.starts_with("secrets/")
    }

    #[test]
    fn diff_sections_of_blocked_paths_are_removed() {
        let diff = "diff --git a/src/a.ts b/src/a.ts\n+ok\ndiff --git a/.env b/.env\n+KEY=secret\ndiff --git a/secrets/k b/secrets/k\n+more\ndiff --git a/b.ts b/b.ts\n+fine\n";
        let out = filter_diff(diff, &allow_all_but_env);
        assert_eq!(
            out,
            format!(
                "diff --git a/src/a.ts b/src/a.ts\n+ok\n{GIT_OMITTED_NOTE}\ndiff --git a/b.ts b/b.ts\n+fine\n"
            )
        );
    }

    #[test]
    fn unparsable_or_renamed_headers_fail_closed() {
        for header in [
            "diff --git a/x b/y",
            "diff --git \"a/x\\q\" b/x",
            "diff --git a/x",
            "diff --git \"unterminated b/x",
        ] {
            let out = filter_diff(&format!("{header}\n+secret\n"), &|_| true);
            assert!(!out.contains("secret"), "{header}: {out}");
        }
    }

    #[test]
    fn quoted_and_spaced_paths_are_judged_by_their_real_name() {
        let diff = "diff --git \"a/sp ace/\\303\\251.env\" \"b/sp ace/\\303\\251.env\"\n+secret\ndiff --git a/x b/y b/x b/y\n+shown\n";
        let out = filter_diff(diff, &allow_all_but_env);
        assert!(!out.contains("secret"));
        assert!(out.contains("+shown"));
        assert_eq!(unquote_git_path("\"\\303\\251\""), Some("é".to_owned()));
    }

    #[test]
    fn status_and_stat_lines_of_blocked_paths_are_removed() {
        let status = " M src/a.ts\n?? .env\nA  \"secrets/x y\"\nR  a -> b\n?? ok/\n";
        assert_eq!(
            filter_status(status, &allow_all_but_env),
            format!(" M src/a.ts\n?? ok/\n{GIT_OMITTED_NOTE}")
        );
        let stats = " .env     | 1 +\n src/a.ts | 2 +-\n .../deep | 1 +\n 3 files changed, 3 insertions(+)\n";
        assert_eq!(
            filter_stat(stats, &allow_all_but_env),
            format!(" src/a.ts | 2 +-\n 3 files changed, 3 insertions(+)\n{GIT_OMITTED_NOTE}\n")
        );
    }
}
