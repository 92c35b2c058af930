//! The one judge of the withholding attacks (`withhold_attacks*.rs`): the fixture's access rule,
//! the marker every blocked file's content holds, and the check that no marker survives while
//! the allowed lines named survive. Each attack file uses part of it.
#![allow(dead_code)]

use roo_context_core::context::withhold_blocked_lines;

pub fn blocked(p: &str) -> bool {
    p == ".env" || p.ends_with("/.env") || p.starts_with("secrets/") || p.contains("/secrets/")
}

/// Content of blocked files that must not survive.
pub const FORBIDDEN: &[&str] = &["SECRET", "START=12:30:00"];

pub fn check(command: &str, text: &str, keep: &[&str]) {
    let withheld = withhold_blocked_lines(text, false, blocked);
    let out: &str = &withheld.text;
    let leaked: Vec<&str> = out
        .lines()
        .filter(|line| FORBIDDEN.iter().any(|f| line.contains(f)))
        .collect();
    let lost: Vec<&&str> = keep.iter().filter(|k| !out.contains(**k)).collect();
    assert!(
        leaked.is_empty() && lost.is_empty(),
        "`{command}`\nleaked lines: {leaked:#?}\nallowed lines withheld: {lost:#?}\noutput:\n{out}"
    );
}

/// [`check`], and `absent` (bytes of a blocked file that do not spell the marker, such as a binary
/// patch's base85 data) must not survive either.
pub fn check_absent(command: &str, text: &str, keep: &[&str], absent: &[&str]) {
    check(command, text, keep);
    let withheld = withhold_blocked_lines(text, false, blocked);
    let out: &str = &withheld.text;
    let leaked: Vec<&&str> = absent.iter().filter(|a| out.contains(**a)).collect();
    assert!(
        leaked.is_empty(),
        "`{command}`\nleaked blocked bytes: {leaked:#?}\noutput:\n{out}"
    );
}
