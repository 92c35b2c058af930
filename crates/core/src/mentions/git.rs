//! The texts of `@git-changes` and commit-hash mentions, built from raw `git` output the caller
//! collected (the core runs no processes). Formats and the 500-line cut follow the original.

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
}
