//! Gitignore-syntax rule sets with the original's semantics (npm `ignore` defaults):
//! case-insensitive, directory-only patterns match contents but not the bare folder, negation as in
//! git (nothing inside an excluded folder can be re-included), and each match says which line of
//! which file decided it.
//! Longer than 600 lines only because its unit tests sit below the code (about 430 lines).
//!
//! ## Decision: Names are compared as file systems open them
//!
//! Rules and paths are matched in Unicode NFC (`rules::nfc`; macOS opens `café` in either form, so
//! a decomposed name cannot dodge a composed rule), and every path is matched a second time as
//! Windows opens it (`rules::windows_alias`: trailing dots and spaces and `:stream` suffixes
//! dropped, so `secret.txt.` and `secret.txt::$DATA` are `secret.txt`); either verdict that blocks,
//! blocks. On Linux this can only block more. An ignore-file line that is not valid UTF-8 keeps its
//! rule with U+FFFD, but a negation on such a line is dropped (U+FFFD would re-include every name
//! with any bad byte).
//!
//! ## Decision: Ignore files fail closed
//!
//! An ignore file is decoded as git reads it (a BOM dropped, an invalid UTF-8 byte costs at most
//! its line, reported in `ruleDiagnostics`). UTF-16 (what Windows PowerShell 5's `>` writes) is
//! decoded as UTF-16, recognised by its mark or its NULs but only when the UTF-8 reading has no
//! usable rule, so the guess never costs a rule; a property test
//! (`core/tests/ignore_bytes_props.rs`, and over stdio `failclosed.rs`) checks that no bytes around
//! a rule unblock its path. Rules compile into as many matchers as needed (`rules::compile_groups`
//! halves a group the regex size limit rejects), so the rule count is unlimited; the last matcher
//! with a verdict wins, as the last line does. A rule set that still cannot be compiled (one
//! pattern too big), or a file that exists but cannot be read (folder, FIFO, dangling link, over 16
//! MB) keeps the last good rules, or, with none, becomes `RuleSet::block_everything`, which matches
//! every path of that folder; `extraProtectedPatterns` likewise keeps the last good protection or
//! protects everything at start-up. Status and `didReload` say so (`blocksEverything`, `lastError`,
//! `protectionError`).

use rustc_hash::FxHashMap as HashMap;
use std::sync::RwLock;

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use serde::Serialize;

/// Where a rule came from: a line of an ignore file, or a pattern the controller adds itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleOrigin {
    /// The file the pattern was read from (`.rooignore`), or `None` for implicit/built-in patterns.
    pub file: Option<String>,
    /// 1-based line number in `file`.
    pub line: Option<usize>,
    /// The pattern as written (trailing spaces trimmed).
    pub pattern: String,
}

/// A line that could not be compiled; it is skipped, as the original's matcher does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuleDiagnostic {
    /// 1-based line number.
    pub line: usize,
    /// Why the line was skipped.
    pub message: String,
}

/// A compiled set of gitignore-syntax rules, matched against posix paths relative to the root.
///
/// The patterns are compiled into as many matchers as it takes (a single matcher has a size
/// limit that ~8,000 globs exceed), in groups of a bounded size so compiling is linear, up to
/// [`MAX_RULES`]. A set that cannot be compiled (more rules than that, or one pattern too big
/// for any matcher) fails closed: it matches every path and says why in
/// [`RuleSet::compile_error`].
pub struct RuleSet {
    // In rule order; a later matcher's verdict wins, as a later line does in gitignore.
    matchers: Vec<Gitignore>,
    origins: HashMap<String, RuleOrigin>,
    /// Compilation problems (skipped or lossily decoded lines).
    pub diagnostics: Vec<RuleDiagnostic>,
    /// Set when the rules could not be compiled; the set then matches every path.
    pub compile_error: Option<String>,
    file: Option<String>,
    // Verdicts of ancestor folders, memoised: a batch of paths shares few folders. Bounded by
    // the bytes of its keys (see `FOLDER_MEMO_BYTES`).
    folder_memo: RwLock<FolderMemo>,
}

impl std::fmt::Debug for RuleSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RuleSet")
            .field("rules", &self.len())
            .field("diagnostics", &self.diagnostics)
            .field("compile_error", &self.compile_error)
            .finish()
    }
}

/// Memoised folder verdicts and the bytes their keys hold.
#[derive(Default)]
struct FolderMemo {
    verdicts: HashMap<String, Option<RuleOrigin>>,
    key_bytes: usize,
}

/// The most key bytes the folder memo holds before it starts afresh.
const FOLDER_MEMO_BYTES: usize = 4 * 1024 * 1024;

/// Longest relative path matched; a longer one is always matched (blocked or protected).
/// Linux's `PATH_MAX` (4096 bytes with the NUL): nothing that long can be opened by its name,
/// and the resolver cannot `lstat` it either, so a link in its middle (`deep/.../mid ->
/// secrets`) could never be seen: judged by its lexical form alone it would pass.
pub const MAX_MATCHED_PATH_BYTES: usize = 4096;

/// The pattern reported for every path of a rule set that could not be compiled.
pub const BLOCK_EVERYTHING_PATTERN: &str = "*";

/// Decodes ignore-file bytes as git does: a UTF-8 byte-order mark is dropped and invalid bytes
/// cost at most their line (they become U+FFFD, which is also how non-UTF-8 file names are
/// matched). Returns the text and the 1-based numbers of the lines that were not valid UTF-8.
///
/// UTF-16 (what Windows PowerShell 5's `>` and Notepad's "Unicode" write) is decoded as such:
/// read as UTF-8 every one of its lines holds NULs and matches nothing, so the folder would be
/// left open. It is recognised by its byte-order mark or its NULs, and only when the UTF-8
/// reading has no usable rule.
pub fn decode_ignore_bytes(bytes: &[u8]) -> (String, Vec<usize>) {
    if let Some(little_endian) = utf16_byte_order(bytes) {
        let units = bytes.chunks(2).map(|pair| match (pair, little_endian) {
            ([low, high], true) | ([high, low], false) => u16::from_le_bytes([*low, *high]),
            // An odd trailing byte is not a character.
            _ => 0xFFFD,
        });
        let mut text: String = char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect();
        if text.starts_with('\u{FEFF}') {
            text.remove(0);
        }
        let bad_lines = text
            .split('\n')
            .enumerate()
            .filter(|(_, line)| line.contains(char::REPLACEMENT_CHARACTER))
            .map(|(index, _)| index + 1)
            .collect();
        return (text, bad_lines);
    }
    // A UTF-16 mark on a file read as UTF-8 is dropped too: left, it would cost the first rule.
    let bytes = [&b"\xEF\xBB\xBF"[..], b"\xFF\xFE", b"\xFE\xFF"]
        .iter()
        .find_map(|mark| bytes.strip_prefix(*mark))
        .unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => (text.to_owned(), Vec::new()),
        Err(_) => {
            let bad_lines = bytes
                .split(|b| *b == b'\n')
                .enumerate()
                .filter(|(_, line)| std::str::from_utf8(line).is_err())
                .map(|(index, _)| index + 1)
                .collect();
            (String::from_utf8_lossy(bytes).into_owned(), bad_lines)
        }
    }
}

/// `text` in Unicode normalisation form C, borrowed when it already is (always for ASCII).
/// File systems disagree on the form of a name (macOS stores decomposed names and opens either
/// form; Linux keeps the bytes), so rules and paths are compared in one form.
pub fn nfc(text: &str) -> std::borrow::Cow<'_, str> {
    use unicode_normalization::UnicodeNormalization;
    if text.is_ascii() || unicode_normalization::is_nfc(text) {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(text.nfc().collect())
    }
}

/// The name Windows opens for a relative posix path, when it differs: every component loses
/// an alternate-data-stream suffix (`name:stream`, `name::$DATA`) and its trailing dots and
/// spaces (`secret.txt.` and `secret.txt ` open `secret.txt`). A component that would become
/// empty is kept as written. Pure, so it is tested on every platform, and applied everywhere
/// (on Linux it can only block more).
pub fn windows_alias(relative: &str) -> Option<String> {
    let changes = |component: &str| {
        component.contains(':') || component.ends_with('.') || component.ends_with(' ')
    };
    if !relative.split('/').any(changes) {
        return None;
    }
    let mut out = String::with_capacity(relative.len());
    for (index, component) in relative.split('/').enumerate() {
        if index > 0 {
            out.push('/');
        }
        let without_stream = component.split(':').next().unwrap_or(component);
        let trimmed = without_stream.trim_end_matches(['.', ' ']);
        out.push_str(if trimmed.is_empty() {
            component
        } else {
            trimmed
        });
    }
    (out != relative).then_some(out)
}

/// `Some(true)` for UTF-16 little-endian, `Some(false)` for big-endian, `None` for anything else.
/// Only bytes whose UTF-8 reading has no usable rule (every rule line holds a NUL or is not
/// UTF-8) are read as UTF-16, so the guess can never cost a rule the UTF-8 reading had.
fn utf16_byte_order(bytes: &[u8]) -> Option<bool> {
    let bom = match bytes {
        [0xFF, 0xFE, ..] => Some(true),
        [0xFE, 0xFF, ..] => Some(false),
        _ => None,
    };
    if bom.is_none() && !bytes.contains(&0) {
        return None;
    }
    let usable_utf8_rule = bytes.split(|b| *b == b'\n').any(|line| {
        let Ok(line) = std::str::from_utf8(line) else {
            return false;
        };
        let line = line.trim_end_matches(['\r', ' ']);
        !line.is_empty() && !line.starts_with('#') && !line.contains('\0')
    });
    if usable_utf8_rule {
        return None;
    }
    bom.or_else(|| {
        let nuls_at = |parity: usize| {
            bytes
                .iter()
                .skip(parity)
                .step_by(2)
                .filter(|&&b| b == 0)
                .count()
        };
        // ASCII in UTF-16 has its NUL in the high byte: second in little-endian order.
        Some(nuls_at(1) >= nuls_at(0))
    })
}

/// Trailing whitespace other than plain spaces on a rule line, and how the original reads the
/// line. Git and the `ignore` crate trim only unescaped trailing spaces, so `secrets\t` (or a
/// trailing no-break space, VT, FF, U+3000 ...) is a pattern for names ending in that
/// character: it blocks nothing, silently. The original's matcher (npm `ignore`) trims the run
/// `((?:\\\\)*?)(\\?\s+)$` (every JavaScript whitespace character): an unescaped run is
/// dropped, one escaped by a backslash becomes one literal space.
struct TrailingWhitespace {
    /// The characters, as `U+0009, U+00A0`.
    characters: String,
    /// The rule as the original reads it, in the matcher's syntax; `None` for a negation,
    /// which keeps its as-written reading (trimmed, it would re-include more).
    read_as: Option<String>,
}

/// Whitespace as the original's `\s` reads it, and the invisible characters a copy from a web
/// page or a word processor leaves at a line's end (zero-width space, joiners, word joiner,
/// BOM). `char::is_whitespace` adds U+0085, which JavaScript's `\s` lacks: trimming it too
/// only blocks more.
fn is_trailing_blank(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\u{FEFF}' | '\u{200B}'..='\u{200D}' | '\u{2060}')
}

/// Characters that show nothing (soft hyphen, bidirectional marks and isolates, zero-width and
/// word joiners, variation selectors, Hangul fillers, tag characters, the BOM). A rule that
/// holds one anywhere (`\u{200E}secrets/`, `.e\u{AD}nv`, a BOM starting a line the original
/// strips it from) reads as the rule without it to whoever wrote the file, and blocks nothing
/// as written.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{E0000}'..='\u{E007F}'
            | '\u{E0100}'..='\u{E01EF}'
    )
}

/// The invisible characters of `line` (as `U+200E, U+00AD`) and the line without them.
fn invisible_characters(line: &str) -> Option<(String, String)> {
    if !line.chars().any(is_invisible) {
        return None;
    }
    let mut characters = String::new();
    for c in line.chars().filter(|c| is_invisible(*c)) {
        let name = format!("U+{:04X}", u32::from(c));
        if !characters.contains(&name) {
            if !characters.is_empty() {
                characters.push_str(", ");
            }
            characters.push_str(&name);
        }
    }
    let visible: String = line.chars().filter(|c| !is_invisible(*c)).collect();
    Some((characters, visible))
}

fn trailing_whitespace(line: &str) -> Option<TrailingWhitespace> {
    let body = line.trim_end_matches(is_trailing_blank);
    let run = &line[body.len()..];
    if run.is_empty() || run.chars().all(|c| c == ' ') || body.is_empty() {
        return None;
    }
    let backslashes = body.len() - body.trim_end_matches('\\').len();
    let read_as = if backslashes % 2 == 1 {
        // The escaped run is one literal space (`\ ` in the matcher's syntax too).
        format!("{body} ")
    } else {
        body.to_owned()
    };
    let mut characters = String::new();
    for c in run.chars() {
        let name = format!("U+{:04X}", u32::from(c));
        if !characters.contains(&name) {
            if !characters.is_empty() {
                characters.push_str(", ");
            }
            characters.push_str(&name);
        }
    }
    let negation = line.starts_with('!');
    Some(TrailingWhitespace {
        characters,
        read_as: (!negation && !read_as.trim_start_matches('/').is_empty()).then_some(read_as),
    })
}

/// Compiles `lines` into as few matchers as the matcher's size limit allows, halving a group
/// that does not compile. Fails only when a single pattern cannot be compiled on its own.
/// Lines are compiled in groups of at most this many: a group that small almost always fits
/// one matcher, so compiling n lines costs about n, where halving from the whole set (which
/// fails to build, expensively, at every level) was superlinear (BENCHMARKS.md).
const GROUP_LINES: usize = 512;

/// Most rules (lines of the file plus implicit patterns) one set compiles; over it the set
/// fails closed (blocks every path, with the reason in [`RuleSet::compile_error`]).
pub const MAX_RULES: usize = 20_000;

fn compile_groups(lines: &[&str], out: &mut Vec<Gitignore>) -> Result<(), String> {
    // A long line is tried alone first: one that cannot compile then costs one attempt, not one
    // per halving.
    const LONG_LINE: usize = 1_024;
    for line in lines.iter().filter(|l| l.len() > LONG_LINE) {
        let mut alone = Vec::new();
        compile_group(std::slice::from_ref(line), &mut alone)?;
    }
    for group in lines.chunks(GROUP_LINES) {
        compile_group(group, out)?;
    }
    Ok(())
}

fn compile_group(lines: &[&str], out: &mut Vec<Gitignore>) -> Result<(), String> {
    if lines.is_empty() {
        return Ok(());
    }
    let mut builder = GitignoreBuilder::new("/");
    builder
        .case_insensitive(true)
        .expect("case-insensitive flag");
    for line in lines {
        // Each line already compiled alone as a glob, so adding it cannot fail.
        let _ = builder.add_line(None, line);
    }
    match builder.build() {
        Ok(matcher) => {
            out.push(matcher);
            Ok(())
        }
        Err(error) if lines.len() == 1 => {
            let pattern: String = lines[0].chars().take(60).collect();
            Err(format!(
                "pattern `{pattern}{}` ({} characters) cannot be compiled: {error}",
                if lines[0].chars().count() > 60 {
                    "…"
                } else {
                    ""
                },
                lines[0].len()
            ))
        }
        Err(_) => {
            let (first, second) = lines.split_at(lines.len() / 2);
            compile_group(first, out)?;
            compile_group(second, out)
        }
    }
}

impl RuleSet {
    /// Compiles `content` (read from `file`, if any) followed by `implicit` patterns. A leading
    /// byte-order mark is ignored, as git does.
    pub fn new(file: Option<&str>, content: &str, implicit: &[&str]) -> RuleSet {
        let content = content.strip_prefix('\u{FEFF}').unwrap_or(content);
        // Patterns are compiled in NFC, as every matched path is (see [`nfc`]).
        let content = nfc(content);
        let content = content.as_ref();
        // Validates one line at a time; the real matchers are built in groups below.
        let mut validator = GitignoreBuilder::new("/");
        let mut origins = HashMap::default();
        let mut diagnostics = Vec::new();
        let mut accepted: Vec<std::borrow::Cow<'_, str>> = Vec::new();
        for (index, raw_line) in content.lines().enumerate() {
            if accepted.len() > MAX_RULES {
                break; // fails closed below; the rest need no validation
            }
            let line = raw_line.trim_end_matches('\r');
            let trimmed = line.trim_end_matches(' ');
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            match validator.add_line(None, line) {
                Ok(_) => {
                    accepted.push(std::borrow::Cow::Borrowed(line));
                    if let Some(trailing) = trailing_whitespace(line) {
                        let message = match &trailing.read_as {
                            Some(read_as) if validator.add_line(None, read_as).is_ok() => {
                                accepted.push(std::borrow::Cow::Owned(read_as.clone()));
                                origins.insert(
                                    read_as.clone(),
                                    RuleOrigin {
                                        file: file.map(str::to_owned),
                                        line: Some(index + 1),
                                        pattern: read_as.clone(),
                                    },
                                );
                                format!(
                                    "trailing whitespace ({}) trimmed, as the original reads the line: the rule also blocks what `{read_as}` blocks",
                                    trailing.characters
                                )
                            }
                            Some(_) => format!(
                                "trailing whitespace ({}): the trimmed rule cannot be compiled; the line is kept as written",
                                trailing.characters
                            ),
                            None => format!(
                                "trailing whitespace ({}) kept on a negation: it re-includes only names ending in it (trimmed, it would re-include more)",
                                trailing.characters
                            ),
                        };
                        diagnostics.push(RuleDiagnostic {
                            line: index + 1,
                            message,
                        });
                    }
                    // Invisible characters anywhere: the rule also reads without them.
                    let read = trailing_whitespace(line)
                        .and_then(|t| t.read_as)
                        .unwrap_or_else(|| trimmed.to_owned());
                    if let Some((characters, visible)) = invisible_characters(&read) {
                        let visible = visible.trim_end_matches(' ').to_owned();
                        let message = if line.starts_with('!') {
                            format!(
                                "invisible characters ({characters}) kept on a negation: it re-includes only names with them"
                            )
                        } else if visible.trim_start_matches('/').is_empty()
                            || validator.add_line(None, &visible).is_err()
                        {
                            format!(
                                "invisible characters ({characters}): the rule without them cannot be compiled; the line is kept as written"
                            )
                        } else {
                            accepted.push(std::borrow::Cow::Owned(visible.clone()));
                            origins.insert(
                                visible.clone(),
                                RuleOrigin {
                                    file: file.map(str::to_owned),
                                    line: Some(index + 1),
                                    pattern: visible.clone(),
                                },
                            );
                            format!(
                                "invisible characters ({characters}) in the rule: it also blocks what `{visible}` blocks"
                            )
                        };
                        diagnostics.push(RuleDiagnostic {
                            line: index + 1,
                            message,
                        });
                    }
                    // A later identical line wins, as the later rule does in gitignore.
                    origins.insert(
                        trimmed.to_owned(),
                        RuleOrigin {
                            file: file.map(str::to_owned),
                            line: Some(index + 1),
                            pattern: trimmed.to_owned(),
                        },
                    );
                }
                Err(error) => diagnostics.push(RuleDiagnostic {
                    line: index + 1,
                    message: error.to_string(),
                }),
            }
        }
        for pattern in implicit {
            accepted.push(std::borrow::Cow::Borrowed(pattern));
            origins.entry((*pattern).to_owned()).or_insert(RuleOrigin {
                file: None,
                line: None,
                pattern: (*pattern).to_owned(),
            });
        }
        let mut matchers = Vec::new();
        let accepted: Vec<&str> = accepted.iter().map(AsRef::as_ref).collect();
        let compile_error = if accepted.len() > MAX_RULES {
            Some(format!(
                "{} rules are over the limit of {MAX_RULES}: every path in this folder is blocked",
                accepted.len()
            ))
        } else {
            compile_groups(&accepted, &mut matchers).err()
        };
        if compile_error.is_some() {
            matchers.clear();
        }
        RuleSet {
            matchers,
            origins,
            diagnostics,
            compile_error,
            file: file.map(str::to_owned),
            folder_memo: RwLock::new(FolderMemo::default()),
        }
    }

    /// A set that matches every path, for an ignore file that cannot be used at all.
    pub fn block_everything(file: Option<&str>, reason: String) -> RuleSet {
        RuleSet {
            matchers: Vec::new(),
            origins: HashMap::default(),
            diagnostics: Vec::new(),
            compile_error: Some(reason),
            file: file.map(str::to_owned),
            folder_memo: RwLock::new(FolderMemo::default()),
        }
    }

    /// Number of compiled patterns.
    pub fn len(&self) -> usize {
        self.matchers.iter().map(Gitignore::len).sum()
    }

    /// Whether no pattern was compiled.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Matches a relative posix path (no leading `/`, no `.`/`..` segments, no trailing slash).
    /// Ancestors are checked top-down as folders first, so an excluded folder's contents stay
    /// excluded whatever later negations say (git's rule). The empty path (the root) never matches.
    ///
    /// The path is matched in NFC (so `cafe\u{301}.txt` is `café.txt`, as on macOS, whose file
    /// systems treat both as one name), and again as Windows opens it ([`windows_alias`]:
    /// `secret.txt.`, `secret.txt ` and `secret.txt::$DATA` open `secret.txt` there); either
    /// verdict that blocks, blocks.
    pub fn matched(&self, relative: &str) -> Option<RuleOrigin> {
        let relative = nfc(relative);
        if let Some(origin) = self.matched_form(&relative) {
            return Some(origin);
        }
        windows_alias(&relative).and_then(|alias| self.matched_form(&alias))
    }

    fn matched_form(&self, relative: &str) -> Option<RuleOrigin> {
        if relative.is_empty() {
            return None;
        }
        // Every ancestor is matched, so the work grows with length × depth; no path this long can
        // be opened anyway (PATH_MAX is 4096 bytes), so it is blocked rather than matched.
        if relative.len() > MAX_MATCHED_PATH_BYTES {
            return Some(RuleOrigin {
                file: self.file.clone(),
                line: None,
                pattern: format!("(any path over {MAX_MATCHED_PATH_BYTES} bytes)"),
            });
        }
        let mut end = 0;
        while let Some(offset) = relative[end..].find('/') {
            let folder = &relative[..end + offset];
            if let Some(origin) = self.folder_verdict(folder) {
                return Some(origin);
            }
            end += offset + 1;
        }
        self.verdict(relative, false)
    }

    fn folder_verdict(&self, folder: &str) -> Option<RuleOrigin> {
        if let Some(hit) = self
            .folder_memo
            .read()
            .ok()
            .and_then(|m| m.verdicts.get(folder).cloned())
        {
            return hit;
        }
        let verdict = self.verdict(folder, true);
        if let Ok(mut memo) = self.folder_memo.write() {
            // Distinct deep paths would otherwise grow it without end (an 8 KB path of 4,000
            // folders adds 16 MB of prefixes): start afresh once the budget is spent.
            if memo.key_bytes + folder.len() > FOLDER_MEMO_BYTES {
                memo.verdicts.clear();
                memo.key_bytes = 0;
            }
            memo.key_bytes += folder.len();
            memo.verdicts.insert(folder.to_owned(), verdict.clone());
        }
        verdict
    }

    fn verdict(&self, path: &str, is_dir: bool) -> Option<RuleOrigin> {
        if self.compile_error.is_some() {
            return Some(RuleOrigin {
                file: self.file.clone(),
                line: None,
                pattern: BLOCK_EVERYTHING_PATTERN.to_owned(),
            });
        }
        // The last matcher with an opinion decides, like the last matching line.
        for matcher in self.matchers.iter().rev() {
            match matcher.matched(path, is_dir) {
                Match::Ignore(glob) => {
                    return Some(self.origins.get(glob.original()).cloned().unwrap_or(
                        RuleOrigin {
                            file: None,
                            line: None,
                            pattern: glob.original().to_owned(),
                        },
                    ));
                }
                Match::Whitelist(_) => return None,
                Match::None => {}
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(content: &str, cases: &[(&str, bool)]) {
        let rules = RuleSet::new(Some(".rooignore"), content, &[".rooignore"]);
        for (path, blocked) in cases {
            assert_eq!(rules.matched(path).is_some(), *blocked, "path {path:?}");
        }
    }

    #[test]
    fn original_semantics_from_the_spec_table() {
        check(
            "node_modules\n.git\nsecrets/**\n*.log\n",
            &[
                ("node_modules", true),
                ("node_modules/package.json", true),
                ("src/node_modules/file.js", true),
                (".git/HEAD", true),
                ("secrets/api-keys.json", true),
                ("logs/app.log", true),
                ("src/app.ts", false),
                ("package.json", false),
                ("secret-file.json", false),
                ("NODE_MODULES/a", true),
                ("secrets", false),
                (".rooignore", true),
                ("sub/.rooignore", true),
                ("", false),
            ],
        );
    }

    #[test]
    fn directory_only_pattern_matches_contents_not_the_bare_folder() {
        check(
            "private/\n",
            &[
                ("private", false),
                ("private/a", true),
                ("x/private/a", true),
            ],
        );
    }

    #[test]
    fn negation_cannot_reinclude_inside_an_excluded_folder() {
        check(
            "build/\n!build/keep.txt\nsecrets/**\n!secrets/public.json\n",
            &[
                ("build/keep.txt", true),
                ("secrets/public.json", false),
                ("secrets/private.json", true),
            ],
        );
    }

    #[test]
    fn matches_report_file_line_and_pattern() {
        let rules = RuleSet::new(Some(".rooignore"), "# c\n\n*.pem  \n", &[".rooignore"]);
        let origin = rules.matched("keys/a.PEM").expect("blocked");
        assert_eq!(
            origin,
            RuleOrigin {
                file: Some(".rooignore".into()),
                line: Some(3),
                pattern: "*.pem".into()
            }
        );
        let implicit = rules.matched(".rooignore").expect("blocked");
        assert_eq!(implicit.file, None);
        assert_eq!(implicit.pattern, ".rooignore");
    }

    /// Table: (ignore file, a path the trimmed rule blocks, the characters reported). Git and
    /// the `ignore` crate trim only trailing spaces; the original (npm `ignore`) trims every
    /// whitespace character, so each of these rules blocks in the original and blocked nothing
    /// here (a pattern for names ending in the character).
    #[test]
    fn a_rule_ending_in_other_whitespace_blocks_what_the_trimmed_rule_blocks() {
        let cases = [
            ("secrets\t\n", "secrets/a.txt", "U+0009"),
            ("*.pem\u{0B}\n", "keys/a.pem", "U+000B"),
            ("*.key\u{0C}\n", "a.key", "U+000C"),
            (".env\u{A0}\n", ".env", "U+00A0"),
            ("private/\u{3000}\n", "private/x", "U+3000"),
            ("/config.json\t \n", "config.json", "U+0009, U+0020"),
            ("build \t\n", "build/out.js", "U+0020, U+0009"),
            ("*.log\u{2003}\n", "logs/a.log", "U+2003"),
            ("id_rsa\u{200B}\n", "home/id_rsa", "U+200B"),
            ("token.txt\u{FEFF}\n", "token.txt", "U+FEFF"),
            ("dist\u{202F}\n", "dist/a.js", "U+202F"),
            ("*.sqlite\t\r\n", "db/x.sqlite", "U+0009"),
            ("cache\u{85}\n", "cache/x", "U+0085"),
            ("secrets/**\u{2028}\n", "secrets/k", "U+2028"),
            // An escaped run is one literal space, as the original reads it.
            ("secret\\\t\n", "secret ", "U+0009"),
            ("a\\\\\t\n", "a\\", "U+0009"),
        ];
        for (content, path, characters) in cases {
            let rules = RuleSet::new(Some(".rooignore"), content, &[".rooignore"]);
            let origin = rules.matched(path);
            assert!(origin.is_some(), "{content:?} must block {path:?}");
            assert_eq!(origin.unwrap().line, Some(1), "{content:?}");
            let diagnostic = rules.diagnostics.first().unwrap_or_else(|| {
                panic!("{content:?}: the trimmed whitespace is reported");
            });
            assert_eq!(diagnostic.line, 1);
            assert!(
                diagnostic.message.contains(characters),
                "{content:?}: {diagnostic:?}"
            );
        }
    }

    /// Table (red team round 7, issue 26 class 9): a rule holding a character that shows
    /// nothing anywhere (a BOM starting a later line, which the original strips from every
    /// line; bidirectional marks; a soft hyphen; a variation selector) blocks what it blocks
    /// without it, and says so. Each of these blocked nothing before.
    #[test]
    fn a_rule_with_invisible_characters_blocks_what_it_blocks_without_them() {
        let cases = [
            ("# keys\n\u{FEFF}secrets/\n", 2, "secrets/a.txt", "U+FEFF"),
            ("\u{200E}.env\n", 1, ".env", "U+200E"),
            (".e\u{AD}nv\n", 1, "src/.env", "U+00AD"),
            ("secrets\u{200F}/\n", 1, "secrets/k.json", "U+200F"),
            ("\u{202E}*.pem\n", 1, "a.pem", "U+202E"),
            ("vault\u{2066}\n", 1, "vault/token", "U+2066"),
            ("id_rsa\u{FE0F}\n", 1, "id_rsa", "U+FE0F"),
            (
                "config/priv\u{2062}ate.json\n",
                1,
                "config/private.json",
                "U+2062",
            ),
            ("\u{3164}token.txt\n", 1, "token.txt", "U+3164"),
            ("*.key\u{E0020}\n", 1, "a.key", "U+E0020"),
            ("dist\u{180E}\n", 1, "dist/x", "U+180E"),
            ("\u{034F}build/\n", 1, "build/x", "U+034F"),
            ("a\nb\n\u{FEFF}.npmrc\n", 3, ".npmrc", "U+FEFF"),
        ];
        for (content, line, path, characters) in cases {
            let rules = RuleSet::new(Some(".rooignore"), content, &[".rooignore"]);
            let origin = rules.matched(path);
            assert!(origin.is_some(), "{content:?} must block {path:?}");
            assert_eq!(origin.unwrap().line, Some(line), "{content:?}");
            let diagnostic = rules
                .diagnostics
                .iter()
                .find(|d| d.line == line)
                .unwrap_or_else(|| panic!("{content:?}: the characters are reported"));
            assert!(
                diagnostic.message.contains(characters),
                "{content:?}: {diagnostic:?}"
            );
        }
        // A negation keeps its as-written reading; rules without such characters stay silent.
        let rules = RuleSet::new(Some(".rooignore"), "secrets/**\n!secrets/\u{200E}a\n", &[]);
        assert!(rules.matched("secrets/a").is_some());
        assert!(rules.diagnostics[0].message.contains("negation"));
        let rules = RuleSet::new(Some(".rooignore"), "secrets/\n*.pem\n", &[]);
        assert!(rules.diagnostics.is_empty(), "{:?}", rules.diagnostics);
    }

    #[test]
    fn trailing_whitespace_never_unblocks_and_plain_spaces_stay_silent() {
        // The as-written reading still blocks (git's).
        check("secrets\t\n", &[("secrets\t/a", true), ("secretsx", false)]);
        // A negation keeps its as-written reading: trimmed it would re-include more.
        let rules = RuleSet::new(
            Some(".rooignore"),
            "secrets/**\n!secrets/public.json\t\n",
            &[],
        );
        assert!(rules.matched("secrets/public.json").is_some());
        assert!(rules.diagnostics[0].message.contains("negation"));
        // Trailing spaces are trimmed by the matcher itself: nothing to report.
        let rules = RuleSet::new(Some(".rooignore"), "*.pem  \nsecret\\ \n", &[]);
        assert!(rules.diagnostics.is_empty(), "{:?}", rules.diagnostics);
        assert!(rules.matched("secret ").is_some());
        // A line of whitespace alone is blank, in the original too.
        let rules = RuleSet::new(Some(".rooignore"), "\t\n\u{A0}\n", &[]);
        assert!(rules.diagnostics.is_empty(), "{:?}", rules.diagnostics);
        assert!(rules.matched("a").is_none());
    }

    #[test]
    fn invalid_lines_are_skipped_with_a_diagnostic() {
        let rules = RuleSet::new(Some(".rooignore"), "a[\n{x\n[z-a]\n*.log\n", &[]);
        assert!(!rules.diagnostics.is_empty(), "{:?}", rules.diagnostics);
        assert!(rules.diagnostics.iter().all(|d| d.line < 4));
        assert!(rules.matched("x.log").is_some());
    }

    fn many_globs(count: usize) -> String {
        (0..count).map(|i| format!("**/d{i}*x/*.k{i}?\n")).collect()
    }

    #[test]
    fn eight_thousand_globs_exceed_one_matcher_and_all_still_match() {
        let content = many_globs(8_000);
        // The input really is beyond one matcher's size limit, so this test covers the split.
        let mut single = GitignoreBuilder::new("/");
        single.case_insensitive(true).unwrap();
        for line in content.lines() {
            single.add_line(None, line).unwrap();
        }
        assert!(single.build().is_err(), "one matcher compiled 8,000 globs");

        let rules = RuleSet::new(Some(".rooignore"), &content, &[".rooignore"]);
        assert_eq!(rules.compile_error, None);
        assert_eq!(rules.len(), 8_001);
        for i in [0, 1, 3_999, 7_999] {
            let origin = rules
                .matched(&format!("a/d{i}yx/f.k{i}z"))
                .unwrap_or_else(|| panic!("glob {i} lost"));
            assert_eq!(origin.line, Some(i + 1));
        }
        assert!(rules.matched("a/d1yx/f.txt").is_none());
    }

    #[test]
    fn rules_over_the_limit_block_everything_and_say_why() {
        let folders = |count: usize| -> String { (0..count).map(|i| format!("b{i}/\n")).collect() };
        let at_limit = RuleSet::new(Some(".rooignore"), &folders(MAX_RULES), &[]);
        assert_eq!(at_limit.compile_error, None);
        assert!(
            at_limit
                .matched(&format!("b{}/f.txt", MAX_RULES - 1))
                .is_some()
        );
        assert!(at_limit.matched("unlisted.txt").is_none());
        let over = RuleSet::new(Some(".rooignore"), &folders(MAX_RULES + 1), &[]);
        let error = over.compile_error.clone().expect("over the limit");
        assert!(
            error.contains("limit") && error.contains("blocked"),
            "{error}"
        );
        // A limit reached is never "allowed".
        let origin = over.matched("unlisted.txt").expect("blocked");
        assert_eq!(origin.pattern, BLOCK_EVERYTHING_PATTERN);
    }

    #[test]
    fn later_negation_in_a_later_matcher_still_wins() {
        let mut content = String::from("*.pem\n");
        content.push_str(&many_globs(8_000));
        content.push_str("!public.pem\n");
        let rules = RuleSet::new(Some(".rooignore"), &content, &[]);
        assert_eq!(rules.compile_error, None);
        assert!(rules.matched("public.pem").is_none());
        assert!(rules.matched("private.pem").is_some());
    }

    #[test]
    fn a_pattern_too_big_to_compile_blocks_everything() {
        let huge = "*a?".repeat(70_000);
        let rules = RuleSet::new(Some(".rooignore"), &format!("{huge}\n"), &[".rooignore"]);
        let error = rules.compile_error.as_deref().expect("compile error");
        assert!(error.contains("cannot be compiled"), "{error}");
        assert!(
            error.len() < 400,
            "error repeats the pattern: {}",
            error.len()
        );
        let origin = rules.matched("src/app.ts").expect("fails closed");
        assert_eq!(origin.pattern, BLOCK_EVERYTHING_PATTERN);
        assert_eq!(origin.file.as_deref(), Some(".rooignore"));
        assert!(
            rules.matched("").is_none(),
            "the root itself is never matched"
        );
    }

    #[test]
    fn a_byte_order_mark_does_not_disable_the_first_rule() {
        check(
            "\u{FEFF}secret.txt\n",
            &[("secret.txt", true), ("a.txt", false)],
        );
        let (text, bad) = decode_ignore_bytes(b"\xEF\xBB\xBFsecret.txt\n");
        assert_eq!((text.as_str(), bad), ("secret.txt\n", vec![]));
    }

    #[test]
    fn a_non_utf8_byte_costs_at_most_its_line() {
        let (text, bad) = decode_ignore_bytes(b"# caf\xe9 notes\nsecret/\n*.k\xffy\n*.pem\n");
        assert_eq!(bad, vec![1, 3]);
        check(
            &text,
            &[("secret/a", true), ("x.pem", true), ("x.k\u{FFFD}y", true)],
        );
    }

    #[test]
    fn a_utf16_ignore_file_is_decoded_not_left_without_rules() {
        let utf16 = |text: &str, bom: bool, little: bool| -> Vec<u8> {
            let mut out = Vec::new();
            let units = bom.then_some(0xFEFF).into_iter().chain(text.encode_utf16());
            for unit in units {
                out.extend(if little {
                    unit.to_le_bytes()
                } else {
                    unit.to_be_bytes()
                });
            }
            out
        };
        let source = "# keys\r\nsecrets/\r\n*.pem\r\n";
        for (bom, little) in [(true, true), (true, false), (false, true), (false, false)] {
            let (text, bad) = decode_ignore_bytes(&utf16(source, bom, little));
            assert_eq!(
                (text.as_str(), bad),
                (source, vec![]),
                "bom {bom} le {little}"
            );
            check(
                &text,
                &[("secrets/a", true), ("k.pem", true), ("src/a.ts", false)],
            );
        }
        // A stray NUL, or NULs on one side of every pair, or a UTF-16 byte-order mark, never
        // cost a UTF-8 file its usable rules.
        for bytes in [
            &b"a\x00b\nsecrets/\n*.pem\n"[..],
            b"\xFF\xFEx\nsecrets/\n*.pem\n",
            b"\xFF\xFEsecrets/\n*.pem\n",
            b"\xFE\xFFsecrets/\n*.pem\n",
            b"\x00a\x00b\x00c\x00d\x00e\x00f\x00g\x00h\x00i\nsecrets/\n*.pem\n",
        ] {
            let (text, _) = decode_ignore_bytes(bytes);
            check(&text, &[("secrets/a", true), ("k.pem", true)]);
        }
    }

    #[test]
    fn distinct_deep_paths_never_grow_the_folder_memo_past_its_budget() {
        let rules = RuleSet::new(Some(".rooignore"), "*.pem\n", &[]);
        let deep = "x/".repeat(MAX_MATCHED_PATH_BYTES / 2 - 8);
        for i in 0..8 {
            assert!(rules.matched(&format!("d{i}/{deep}k")).is_none());
            assert!(rules.matched(&format!("d{i}/{deep}k.pem")).is_some());
        }
        let memo = rules.folder_memo.read().unwrap();
        let held: usize = memo.verdicts.keys().map(String::len).sum();
        assert_eq!(held, memo.key_bytes);
        // Unbounded, these 16 paths would leave about 130 MB of folder keys behind.
        assert!(held <= 8 * 1024 * 1024, "{held} bytes of folder keys held");
    }

    #[test]
    fn a_path_too_long_to_open_is_matched_without_matching_each_ancestor() {
        let rules = RuleSet::new(Some(".rooignore"), "*.pem\n", &[]);
        let deep = "x/".repeat(MAX_MATCHED_PATH_BYTES / 2) + "k";
        assert!(rules.matched(&deep).is_some(), "fails closed");
        let just_fits = "x/".repeat(MAX_MATCHED_PATH_BYTES / 4) + "k";
        assert!(rules.matched(&just_fits).is_none());
    }
}
