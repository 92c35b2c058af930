//! The mention and slash-command grammars as explicit, linear-time scanners. They reproduce the
//! original's look-around regexes (`mentionRegexGlobal`, `commandRegexGlobal`) without a regex
//! engine, so the behaviour on hostile input is bounded and easy to reason about.

use std::ops::Range;

/// JavaScript's `\s`: the whitespace set the original's regexes use, pinned here.
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '\u{0B}' | '\u{0C}' | '\r' | '\u{A0}' | '\u{1680}' | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

fn is_ascii_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// What kind of mention a body is (the alternatives of the grammar, in the order they are tried).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum MentionKind {
    /// `@/path`, folder when it ends with `/`.
    Path,
    /// `@scheme://...`.
    Url,
    /// `@<7-40 lower-case hex>`.
    CommitHash,
    /// `@problems`.
    Problems,
    /// `@git-changes`.
    GitChanges,
    /// `@terminal`.
    Terminal,
}

/// One mention found in a text. Offsets are byte offsets into the scanned text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MentionMatch {
    /// The whole match: the `@` and the body (never the preceding whitespace or the terminator).
    pub range: Range<usize>,
    /// The body (group 1 of the original regex): the match without the `@`.
    pub body: Range<usize>,
    /// Which alternative matched.
    pub kind: MentionKind,
}

/// One slash-command token found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandMatch {
    /// The raw match of the original regex: the preceding whitespace character (absent at the
    /// start of the text), the `/` and the name.
    pub raw: Range<usize>,
    /// The `/` and the name: what gets replaced (the preceding whitespace is kept).
    pub token: Range<usize>,
    /// The command name.
    pub name: Range<usize>,
}

/// Whether the terminator of the mention grammar holds at byte `at`: optionally one of
/// `.,;:!?`, then whitespace or the end of the text. Nothing is consumed.
fn terminator_holds(text: &str, at: usize) -> bool {
    let mut rest = text[at..].chars();
    match rest.next() {
        None => true,
        Some(c) if is_js_whitespace(c) => true,
        Some('.' | ',' | ';' | ':' | '!' | '?') => rest.next().is_none_or(is_js_whitespace),
        Some(_) => false,
    }
}

/// Result of scanning the lazy unit sequence `(?:[^\s\\]|\\ )+?` followed by the terminator.
enum UnitScan {
    /// The body ends here (exclusive).
    End(usize),
    /// No terminator before a character that is not a unit; the scan stopped at this byte.
    Fail(usize),
}

/// The lazy path/URL tail: at least one unit, then stop at the first position where the
/// terminator holds. Deterministic (a position starts at most one kind of unit), so linear.
fn scan_units(text: &str, start: usize) -> UnitScan {
    let bytes = text.as_bytes();
    let mut at = start;
    let mut consumed = 0usize;
    loop {
        if consumed > 0 && terminator_holds(text, at) {
            return UnitScan::End(at);
        }
        let Some(c) = text[at..].chars().next() else {
            return UnitScan::Fail(at);
        };
        if c == '\\' {
            if bytes.get(at + 1) == Some(&b' ') {
                at += 2;
            } else {
                return UnitScan::Fail(at);
            }
        } else if is_js_whitespace(c) {
            return UnitScan::Fail(at);
        } else {
            at += c.len_utf8();
        }
        consumed += 1;
    }
}

/// Scanner state that keeps the whole scan linear: a unit scan that failed between `start` and
/// `stop` makes every later unit scan starting inside that range fail the same way.
#[derive(Default)]
struct UnitMemo {
    failed: Range<usize>,
    bytes_examined: usize,
}

impl UnitMemo {
    fn scan(&mut self, text: &str, start: usize) -> Option<usize> {
        if self.failed.contains(&start) {
            return None;
        }
        let result = scan_units(text, start);
        self.bytes_examined += match result {
            UnitScan::End(stop) | UnitScan::Fail(stop) => stop - start + 1,
        };
        match result {
            UnitScan::End(end) => Some(end),
            UnitScan::Fail(stop) => {
                self.failed = start..stop.max(start + 1);
                None
            }
        }
    }
}

fn word_then_boundary(text: &str, at: usize, word: &str) -> Option<usize> {
    let end = at + word.len();
    if !text[at..].starts_with(word) {
        return None;
    }
    match text[end..].chars().next() {
        Some(c) if is_ascii_word(c) => None,
        _ => Some(end),
    }
}

/// Tries the body alternatives at `at` (just after the `@`), each followed by the terminator.
fn match_body(text: &str, at: usize, memo: &mut UnitMemo) -> Option<(usize, MentionKind)> {
    let bytes = text.as_bytes();
    // 1. path
    if bytes.get(at) == Some(&b'/') {
        // Nothing else can start with '/'.
        return memo.scan(text, at + 1).map(|end| (end, MentionKind::Path));
    }
    // 2. URL: \w+ then ://
    let word_end = at
        + bytes[at..]
            .iter()
            .take_while(|b| is_ascii_word(**b as char))
            .count();
    memo.bytes_examined += word_end - at + 1;
    if word_end > at
        && text[word_end..].starts_with("://")
        && let Some(end) = memo.scan(text, word_end + 3)
    {
        return Some((end, MentionKind::Url));
    }
    // 3. commit hash: [a-f0-9]{7,40}\b (only the longest run can meet the word boundary)
    let hex_run = bytes[at..]
        .iter()
        .take(41)
        .take_while(|b| matches!(b, b'a'..=b'f' | b'0'..=b'9'))
        .count();
    if (7..=40).contains(&hex_run) {
        let end = at + hex_run;
        let boundary = text[end..].chars().next().is_none_or(|c| !is_ascii_word(c));
        if boundary && terminator_holds(text, end) {
            return Some((end, MentionKind::CommitHash));
        }
    }
    // 4-6. the words
    for (word, kind) in [
        ("problems", MentionKind::Problems),
        ("git-changes", MentionKind::GitChanges),
        ("terminal", MentionKind::Terminal),
    ] {
        if let Some(end) = word_then_boundary(text, at, word)
            && terminator_holds(text, end)
        {
            return Some((end, kind));
        }
    }
    None
}

/// Work counters of one scan, to prove linearity by construction in tests and benches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScanStats {
    /// Bytes looked at by the path/URL tails and word runs, beyond the one pass over the text.
    pub bytes_examined: usize,
}

/// Every mention in `text`, left to right, non-overlapping. `before` is the character that
/// precedes `text` in a larger document (`None` when `text` starts the document), so a scanned
/// slice behaves exactly like the same bytes inside the whole text.
pub fn scan_mentions(text: &str, before: Option<char>) -> Vec<MentionMatch> {
    scan_mentions_with_stats(text, before).0
}

/// [`scan_mentions`] plus its work counters.
pub fn scan_mentions_with_stats(
    text: &str,
    before: Option<char>,
) -> (Vec<MentionMatch>, ScanStats) {
    let mut out = Vec::new();
    let mut memo = UnitMemo::default();
    let mut previous = before;
    let mut search_from = 0usize;
    for (index, c) in text.char_indices() {
        let prev = previous;
        previous = Some(c);
        if c != '@' || index < search_from {
            continue;
        }
        // Boundary: start of the whole text, or whitespace just before (which also excludes `\@`).
        let boundary = match prev {
            None => true,
            Some(p) => is_js_whitespace(p),
        };
        if !boundary {
            continue;
        }
        if let Some((end, kind)) = match_body(text, index + 1, &mut memo) {
            out.push(MentionMatch {
                range: index..end,
                body: index + 1..end,
                kind,
            });
            search_from = end;
        }
    }
    let stats = ScanStats {
        bytes_examined: memo.bytes_examined,
    };
    (out, stats)
}

fn is_command_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// Every slash-command token in `text`, left to right, non-overlapping (`before` as for
/// [`scan_mentions`]).
pub fn scan_commands(text: &str, before: Option<char>) -> Vec<CommandMatch> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut search_from = 0usize;
    let mut previous = before;
    let mut previous_start = 0usize;
    for (index, c) in text.char_indices() {
        let prev = previous;
        let prev_start = previous_start;
        previous = Some(c);
        previous_start = index;
        if c != '/' || index < search_from {
            continue;
        }
        let raw_start = match prev {
            None => index,
            // The preceding whitespace is part of the raw match, so it must not belong to the
            // previous match (it never does: matches end before their lookahead).
            Some(p) if is_js_whitespace(p) => {
                if index == 0 {
                    index
                } else {
                    prev_start
                }
            }
            Some(_) => continue,
        };
        let name_start = index + 1;
        let name_len = bytes[name_start..]
            .iter()
            .take_while(|b| is_command_name_char(**b as char))
            .count();
        if name_len == 0 {
            continue;
        }
        let name_end = name_start + name_len;
        if !text[name_end..].chars().next().is_none_or(is_js_whitespace) {
            continue;
        }
        out.push(CommandMatch {
            raw: raw_start..name_end,
            token: index..name_end,
            name: name_start..name_end,
        });
        search_from = name_end;
    }
    out
}

/// The original's `unescapeSpaces`: every backslash-space becomes a space, nothing else changes.
pub fn unescape_spaces(path: &str) -> String {
    path.replace("\\ ", " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bodies(text: &str) -> Vec<&str> {
        scan_mentions(text, None)
            .into_iter()
            .map(|m| &text[m.body])
            .collect()
    }

    fn names(text: &str) -> Vec<&str> {
        scan_commands(text, None)
            .into_iter()
            .map(|m| &text[m.name])
            .collect()
    }

    #[test]
    fn verified_mention_examples_from_the_spec() {
        assert_eq!(bodies("@/a(b).ts"), ["/a(b).ts"]);
        assert_eq!(bodies("@/a/b.ts:10"), ["/a/b.ts:10"]);
        assert_eq!(bodies("@/a.ts;b"), ["/a.ts;b"]);
        assert_eq!(bodies("@http://a.b/c)"), ["http://a.b/c)"]);
        assert_eq!(bodies("@ftp://x.y/z"), ["ftp://x.y/z"]);
        assert!(bodies("@/").is_empty());
        assert_eq!(bodies("@//etc/passwd"), ["//etc/passwd"]);
        assert_eq!(bodies("@/../../etc/passwd"), ["/../../etc/passwd"]);
        assert!(bodies("(@/a.ts)").is_empty());
        assert!(bodies("\"@/a.ts\"").is_empty());
        assert!(bodies("@ABCDEF1").is_empty());
        assert_eq!(bodies("@abcdef12345"), ["abcdef12345"]);
        assert!(bodies(&format!("@{}", "a".repeat(41))).is_empty());
        assert!(bodies("@problemsX").is_empty());
        assert_eq!(bodies("@problems."), ["problems"]);
        assert_eq!(bodies("@terminal?"), ["terminal"]);
        assert_eq!(bodies("@/tab\tx"), ["/tab"]);
        assert_eq!(bodies("@/a/b.ts..."), ["/a/b.ts.."]);
        assert_eq!(bodies("@/a/b.ts!?"), ["/a/b.ts!"]);
        assert_eq!(bodies("see @/my\\ file.txt now"), ["/my\\ file.txt"]);
        assert!(bodies("x\\@/a.ts").is_empty());
    }

    #[test]
    fn verified_command_examples_from_the_spec() {
        assert!(names("/a/b").is_empty());
        assert!(names("@/src/a.ts").is_empty());
        assert!(names("path /usr/bin/x").is_empty());
        assert_eq!(names("/build."), ["build."]);
        assert!(names("/build,").is_empty());
        assert_eq!(names("x /.. y"), [".."]);
        assert_eq!(names("/_x-y.z"), ["_x-y.z"]);
        assert_eq!(names("/init"), ["init"]);
        assert_eq!(names("/a /b\n/c"), ["a", "b", "c"]);
    }

    #[test]
    fn raw_command_match_includes_the_preceding_whitespace() {
        let text = "First line\n/setup the";
        let m = &scan_commands(text, None)[0];
        assert_eq!(&text[m.raw.clone()], "\n/setup");
        assert_eq!(&text[m.token.clone()], "/setup");
    }

    #[test]
    fn slice_scans_see_the_character_before_the_slice() {
        assert!(scan_mentions("@/a.ts", Some('>')).is_empty());
        assert_eq!(scan_mentions("@/a.ts", Some('\n')).len(), 1);
        assert!(scan_commands("/init", Some('x')).is_empty());
    }
}
