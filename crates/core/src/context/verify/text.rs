//! Text measures shared by every summary check: words, whitespace normalisation, a per-line word
//! index of the summary (so each check is a few lookups, not a scan), path tokens, and cuts that
//! never split a character or an encoded lone surrogate.
//! One file on purpose: one reading of text for every check (what a word, a stopword and a
//! negation are), used alike by `LineIndex`, the overlap measures and `contradicts`, so summary
//! and history are read the same way; its unit tests, about 100 lines, sit below the code.

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::wire_text::SENTINEL;

/// Words too common to say whether a sentence was kept. A `match` (a length switch, then
/// inline compares): it runs on every word of every user text and of the summary.
fn is_stopword(word: &str) -> bool {
    matches!(
        word,
        "a" | "about"
            | "after"
            | "all"
            | "also"
            | "an"
            | "and"
            | "any"
            | "are"
            | "as"
            | "at"
            | "be"
            | "been"
            | "but"
            | "by"
            | "can"
            | "could"
            | "did"
            | "do"
            | "does"
            | "for"
            | "from"
            | "had"
            | "has"
            | "have"
            | "he"
            | "her"
            | "here"
            | "his"
            | "i"
            | "if"
            | "in"
            | "into"
            | "is"
            | "it"
            | "its"
            | "just"
            | "let"
            | "lets"
            | "me"
            | "my"
            | "of"
            | "on"
            | "or"
            | "our"
            | "please"
            | "she"
            | "so"
            | "some"
            | "than"
            | "that"
            | "the"
            | "their"
            | "them"
            | "then"
            | "there"
            | "these"
            | "they"
            | "this"
            | "those"
            | "to"
            | "up"
            | "us"
            | "was"
            | "we"
            | "were"
            | "what"
            | "when"
            | "which"
            | "while"
            | "who"
            | "will"
            | "with"
            | "would"
            | "you"
            | "your"
    )
}

/// Negation cues: a constraint's polarity must survive in the summary line that covers it.
/// A `match` for the same reason as [`is_stopword`] (it runs on every word of the summary).
fn is_negation(word: &str) -> bool {
    matches!(
        word,
        "not"
            | "never"
            | "no"
            | "don't"
            | "dont"
            | "doesn't"
            | "avoid"
            | "without"
            | "nothing"
            | "none"
            | "cannot"
            | "can't"
            | "won't"
            | "mustn't"
            | "shouldn't"
            | "isn't"
            | "aren't"
            | "nor"
            | "neither"
            | "forbidden"
            | "prohibited"
            | "instead"
    ) || word.ends_with("n't")
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\'' || is_typographic_apostrophe(c)
}

/// Apostrophes a word processor or a phone writes (`don’t`, `donʼt`, `don＇t`): one word with an
/// apostrophe, read as `'`; split at them, `don’t` was `don` and `t` and lost its negation.
fn is_typographic_apostrophe(c: char) -> bool {
    matches!(c, '\u{2019}' | '\u{02BC}' | '\u{FF07}')
}

/// `word` with every apostrophe as `'`.
fn plain_apostrophes(word: &str) -> std::borrow::Cow<'_, str> {
    if word.contains(is_typographic_apostrophe) {
        std::borrow::Cow::Owned(word.replace(is_typographic_apostrophe, "'"))
    } else {
        std::borrow::Cow::Borrowed(word)
    }
}

/// The word without its leading and trailing `'` (a byte loop: the generic `trim_matches` was
/// not inlined and ran on every word of the summary).
fn trim_apostrophes(word: &str) -> &str {
    if !word.is_ascii() {
        return word.trim_matches(|c: char| c == '\'' || is_typographic_apostrophe(c));
    }
    let bytes = word.as_bytes();
    let (mut start, mut end) = (0, bytes.len());
    while start < end && bytes[start] == b'\'' {
        start += 1;
    }
    while end > start && bytes[end - 1] == b'\'' {
        end -= 1;
    }
    &word[start..end]
}

/// [`words`] without allocating the words that are already lower case.
pub(crate) fn words_borrowed(text: &str) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
    text.split(|c: char| !is_word_char(c))
        .map(trim_apostrophes)
        .filter(|word| !word.is_empty())
        .map(|word| {
            if word
                .bytes()
                .all(|b| b.is_ascii() && !b.is_ascii_uppercase())
            {
                std::borrow::Cow::Borrowed(word)
            } else {
                std::borrow::Cow::Owned(plain_apostrophes(word).to_lowercase())
            }
        })
}

/// Lower-cased words (letters, digits, `_`, inner apostrophes), in order.
pub(crate) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !is_word_char(c))
        .map(trim_apostrophes)
        .filter(|word| !word.is_empty())
        .map(|word| {
            if word.contains(is_typographic_apostrophe) {
                plain_apostrophes(word).to_lowercase()
            } else if word.bytes().any(|b| b.is_ascii_uppercase()) || !word.is_ascii() {
                word.to_lowercase()
            } else {
                word.to_owned()
            }
        })
}

/// The distinct content words (stopwords dropped), sorted: the unit of every overlap measure.
pub(crate) fn content_words(text: &str) -> Vec<String> {
    let set: BTreeSet<String> = words(text).filter(|word| !is_stopword(word)).collect();
    set.into_iter().collect()
}

/// Whether the text carries a negation cue.
pub(crate) fn has_negation(text: &str) -> bool {
    words(text).any(|word| is_negation(&word))
}

/// Whitespace runs collapsed to one space, trimmed (whitespace as `char::is_whitespace` says).
/// Copies runs of non-space bytes at once and decodes only non-ASCII characters: it runs on the
/// whole summary and on every user sentence.
pub(crate) fn normalize_ws(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut word_start: Option<usize> = None;
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        let (space, width) = if byte < 0x80 {
            (matches!(byte, b'\t'..=b'\r' | b' '), 1)
        } else {
            let c = text[at..].chars().next().unwrap_or(' ');
            (c.is_whitespace(), c.len_utf8())
        };
        match (space, word_start) {
            (true, Some(start)) => {
                if !out.is_empty() {
                    out.push(' ');
                }
                out.push_str(&text[start..at]);
                word_start = None;
            }
            (false, None) => word_start = Some(at),
            _ => {}
        }
        at += width;
    }
    if let Some(start) = word_start {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&text[start..]);
    }
    out
}

/// The largest byte index `<= at` that is a character boundary and does not split an encoded
/// lone surrogate (`SENTINEL` + tag) or a doubled sentinel (see `wire_text`).
pub(crate) fn safe_cut(text: &str, at: usize) -> usize {
    if at >= text.len() {
        return text.len();
    }
    let mut cut = at;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    if !text[..cut].contains(SENTINEL) {
        return cut;
    }
    // Walk the encoded units from the start: a sentinel always begins a two-character unit.
    let mut boundary = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((index, c)) = chars.next() {
        if index >= cut {
            break;
        }
        let end = if c == SENTINEL {
            match chars.next() {
                Some((next, n)) => next + n.len_utf8(),
                None => text.len(),
            }
        } else {
            index + c.len_utf8()
        };
        if end > cut {
            break;
        }
        boundary = end;
    }
    boundary
}

/// The smallest byte index `>= at` that [`safe_cut`] would also accept.
pub(crate) fn safe_cut_up(text: &str, at: usize) -> usize {
    let down = safe_cut(text, at);
    if down == at || at >= text.len() {
        return at.min(text.len());
    }
    // The unit that straddles `at` ends at most two characters later.
    let mut end = down;
    for _ in 0..2 {
        if end >= at && safe_cut(text, end) == end {
            return end;
        }
        let next = text[end..].chars().next().map_or(0, char::len_utf8);
        end += next;
    }
    safe_cut(text, end).max(at.min(text.len()))
}

/// Longest piece of a line the index treats as one place: a summary written as one long line
/// must not become one window that "covers" every item.
const SEGMENT_BYTES: usize = 400;
/// Posting entries and window probes one verification may spend; past it, items not yet found
/// count as missing (a limit reached is never a pass) and a warning says so.
pub(crate) const WORK_BUDGET: u64 = 4_000_000;

/// The `accept` of [`LineIndex::covered`] that takes every window.
pub(crate) const ANY_WINDOW: &dyn Fn(&[&str]) -> bool = &|_| true;

/// The summary as lines (for headings) and segments (lines, long ones cut at whitespace every
/// [`SEGMENT_BYTES`]) with a word index over segments, built once per verification.
pub(crate) struct LineIndex<'a> {
    pub(crate) lines: Vec<&'a str>,
    /// The first segment of each line, then the segment count.
    line_segments: Vec<u32>,
    /// Whether each segment has a negation cue.
    negative: Vec<bool>,
    /// Each segment's text.
    segment_texts: Vec<&'a str>,
    /// Word → the sorted segments it appears in.
    postings: FxHashMap<String, Vec<u32>>,
    budget: std::cell::Cell<u64>,
    exhausted: std::cell::Cell<bool>,
}

fn segments(line: &str) -> impl Iterator<Item = &str> {
    let mut rest = line;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        if rest.len() <= SEGMENT_BYTES {
            return Some(std::mem::take(&mut rest));
        }
        let mut cut = SEGMENT_BYTES;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let cut = rest[..cut]
            .rfind(char::is_whitespace)
            .filter(|&at| at > 0)
            .unwrap_or(cut);
        let (piece, tail) = rest.split_at(cut);
        rest = tail;
        Some(piece)
    })
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let lines: Vec<&str> = text.lines().collect();
        let mut postings: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        let mut negative = Vec::new();
        let mut segment_texts = Vec::new();
        let mut line_segments = Vec::with_capacity(lines.len() + 1);
        for line in &lines {
            line_segments.push(negative.len() as u32);
            for piece in segments(line) {
                let segment = negative.len() as u32;
                segment_texts.push(piece);
                let mut is_negative = false;
                for word in words_borrowed(piece) {
                    if is_negation(&word) {
                        is_negative = true;
                    }
                    match postings.get_mut(word.as_ref()) {
                        Some(list) => {
                            if list.last() != Some(&segment) {
                                list.push(segment);
                            }
                        }
                        None => {
                            postings.insert(word.into_owned(), vec![segment]);
                        }
                    }
                }
                negative.push(is_negative);
            }
        }
        line_segments.push(negative.len() as u32);
        LineIndex {
            lines,
            line_segments,
            negative,
            segment_texts,
            postings,
            budget: std::cell::Cell::new(WORK_BUDGET),
            exhausted: std::cell::Cell::new(false),
        }
    }

    /// Whether the work budget ran out (some items were counted missing unchecked).
    pub(crate) fn exhausted(&self) -> bool {
        self.exhausted.get()
    }

    fn spend(&self, units: u64) -> bool {
        let left = self.budget.get();
        if left < units {
            self.budget.set(0);
            self.exhausted.set(true);
            return false;
        }
        self.budget.set(left - units);
        true
    }

    /// Whether at least `threshold` of `needles` occur within `window` consecutive segments
    /// (restricted to the segments of `lines` when given; the window must hold a negation cue
    /// when `negative`) in a window `accept` takes (given the window's segments; a window with
    /// the words that says something else, [`contradicts`], does not cover; [`ANY_WINDOW`]
    /// takes all), and the best share found. Only windows holding one of the rarest needles are
    /// probed: a window with the threshold's share must hold one of them.
    pub(crate) fn covered(
        &self,
        needles: &[String],
        window: usize,
        negative: bool,
        lines: Option<std::ops::Range<usize>>,
        threshold: f64,
        accept: &dyn Fn(&[&str]) -> bool,
    ) -> (bool, f64) {
        if needles.is_empty() {
            return (true, 1.0);
        }
        let window = window.max(1) as u32;
        let range = match lines {
            Some(lines) => {
                let last = self.line_segments.len() - 1;
                self.line_segments[lines.start.min(last)]..self.line_segments[lines.end.min(last)]
            }
            None => 0..self.negative.len() as u32,
        };
        let lists: Vec<&[u32]> = needles
            .iter()
            .map(|needle| {
                let list = self.postings.get(needle).map_or(&[][..], Vec::as_slice);
                let from = list.partition_point(|&s| s < range.start);
                let to = list.partition_point(|&s| s < range.end);
                &list[from..to]
            })
            .collect();
        let count = needles.len();
        let needed = ((threshold * count as f64).ceil() as usize).clamp(1, count);
        let present = lists.iter().filter(|list| !list.is_empty()).count();
        if present < needed {
            return (false, 0.0);
        }
        let mut order: Vec<usize> = (0..count).filter(|&i| !lists[i].is_empty()).collect();
        order.sort_by_key(|&i| lists[i].len());
        let anchors = (count - needed + 1).min(order.len());
        let mut starts: Vec<u32> = Vec::new();
        for &i in &order[..anchors] {
            if !self.spend(lists[i].len() as u64 * u64::from(window)) {
                return (false, 0.0);
            }
            for &segment in lists[i] {
                let first = segment.saturating_sub(window - 1).max(range.start);
                starts.extend(first..=segment);
            }
        }
        starts.sort_unstable();
        starts.dedup();
        let mut best = 0usize;
        for start in starts {
            let end = (start + window).min(range.end);
            if negative
                && !self.negative[start as usize..end as usize]
                    .iter()
                    .any(|&n| n)
            {
                continue;
            }
            if !self.spend(count as u64) {
                return (false, best as f64 / count as f64);
            }
            let hits = lists
                .iter()
                .filter(|list| {
                    let at = list.partition_point(|&s| s < start);
                    list.get(at).is_some_and(|&s| s < end)
                })
                .count();
            best = best.max(hits);
            if hits >= needed && accept(&self.segment_texts[start as usize..end as usize]) {
                return (true, best as f64 / count as f64);
            }
        }
        (false, best as f64 / count as f64)
    }

    /// [`Self::recall_anywhere`] of `content_words(text)`, without allocating or sorting the
    /// words (run on every user text of the history).
    pub(crate) fn content_recall_anywhere(&self, text: &str) -> f64 {
        let distinct: FxHashSet<std::borrow::Cow<'_, str>> = words_borrowed(text)
            .filter(|word| !is_stopword(word))
            .collect();
        if distinct.is_empty() {
            return 1.0;
        }
        let found = distinct
            .iter()
            .filter(|word| self.postings.contains_key(word.as_ref()))
            .count();
        found as f64 / distinct.len() as f64
    }
}

/// One word of a text for [`contradicts`]: lower-cased, and how it is joined to the word
/// before it.
struct Token {
    word: String,
    /// A clause boundary (`,` `;` `.` ... followed by a space, a bracket, a line break) lies
    /// between it and the word before.
    after_boundary: bool,
    /// Joined to the word before without whitespace (`Circle.area`, `a::b`, `x/y`).
    joined: bool,
}

fn tokens(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut gap_start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if !is_word_char(c) {
            continue;
        }
        let mut end = at + c.len_utf8();
        while let Some(&(next, n)) = chars.peek() {
            if !is_word_char(n) {
                break;
            }
            end = next + n.len_utf8();
            chars.next();
        }
        let word = trim_apostrophes(&text[at..end]);
        let gap = &text[gap_start..at];
        gap_start = end;
        if word.is_empty() {
            continue;
        }
        let joined = !gap.is_empty() && gap.len() <= 3 && !gap.contains(char::is_whitespace);
        let after_boundary = out.is_empty()
            || (!joined
                && gap.contains(|g: char| {
                    matches!(
                        g,
                        ',' | ';' | ':' | '.' | '!' | '?' | '(' | ')' | '[' | ']' | '\n' | '"'
                    )
                }));
        out.push(Token {
            word: plain_apostrophes(word).to_lowercase(),
            after_boundary,
            joined,
        });
    }
    out
}

/// Words a negation reaches over to the word it governs: modals, auxiliaries, emphasis.
fn is_polarity_filler(word: &str) -> bool {
    is_stopword(word)
        || matches!(
            word,
            "must"
                | "should"
                | "shall"
                | "may"
                | "might"
                | "always"
                | "ever"
                | "even"
                | "really"
                | "ok"
                | "okay"
                | "allowed"
                | "need"
                | "needs"
                | "ought"
        )
        || (word.len() > 4 && word.ends_with("ly"))
}

/// Whether each token is negated: a negation cue before it in its clause, with only
/// [`is_polarity_filler`] words between (`never run`, `must not edit`, `avoid the cache`).
fn negated(tokens: &[Token]) -> Vec<bool> {
    let mut out = vec![false; tokens.len()];
    for (index, token) in tokens.iter().enumerate() {
        if is_negation(&token.word) {
            continue;
        }
        let mut at = index;
        while at > 0 && !tokens[at].after_boundary {
            at -= 1;
            let word = &tokens[at].word;
            if is_negation(word) {
                out[index] = true;
                break;
            }
            if !is_polarity_filler(word) {
                break;
            }
        }
    }
    out
}

/// Words that say the opposite of each other: a constraint stated with one is not kept by a
/// window that has only the other (`before`/`after` committing, `enable`/`disable` caching,
/// `always`/`rarely`). Both are looked up in one direction: each pair is listed once.
const ANTONYMS: &[(&str, &[&str])] = &[
    ("before", &["after"]),
    ("always", &["rarely", "seldom", "sometimes", "occasionally"]),
    ("enable", &["disable"]),
    ("enabled", &["disabled"]),
    ("include", &["exclude"]),
    ("allow", &["deny", "disallow", "block", "forbid"]),
    ("add", &["remove", "delete", "drop"]),
    ("increase", &["decrease", "reduce", "lower"]),
    ("public", &["private", "internal"]),
    ("required", &["optional"]),
    ("mandatory", &["optional"]),
    ("minimum", &["maximum"]),
    ("min", &["max"]),
    ("upper", &["lower"]),
    ("under", &["over", "above"]),
    ("below", &["above", "over"]),
    ("more", &["less", "fewer"]),
    ("true", &["false"]),
    ("on", &["off"]),
    ("yes", &["no"]),
    ("start", &["stop"]),
    ("open", &["close"]),
    ("show", &["hide"]),
    ("keep", &["drop", "remove", "delete", "discard"]),
    ("accept", &["reject"]),
    ("encrypt", &["decrypt"]),
    ("sync", &["async"]),
    ("synchronous", &["asynchronous"]),
    ("first", &["last"]),
    ("inside", &["outside"]),
    ("local", &["remote"]),
    ("read", &["write"]),
    ("lock", &["unlock"]),
    ("install", &["uninstall"]),
    ("tabs", &["spaces"]),
    ("seconds", &["minutes", "hours", "milliseconds"]),
    ("ascending", &["descending"]),
    ("left", &["right"]),
    ("top", &["bottom"]),
    ("push", &["pull"]),
    ("valid", &["invalid"]),
    ("strict", &["lenient", "loose"]),
    ("light", &["dark"]),
    ("horizontal", &["vertical"]),
    ("with", &["without"]),
];

/// The words that say the opposite of `word` (either side of a pair).
fn antonyms_of(word: &str) -> impl Iterator<Item = &'static str> + '_ {
    ANTONYMS.iter().flat_map(move |(one, others)| {
        let forward = (*one == word)
            .then_some(*others)
            .into_iter()
            .flatten()
            .copied();
        let backward = others.contains(&word).then_some(*one).into_iter();
        forward.chain(backward)
    })
}

/// Whether a summary window that holds most of `source`'s words says something else: a word
/// the source states one way (`run` in "always run the tests") stated only the other way
/// (`never run the tests`; do/don't, must/must not, should/shouldn't, use/avoid), or a
/// content word of the source replaced by another between the same neighbours ("the
/// production database" / "the staging database", `Circle.area` / `Square.area`).
pub(crate) fn contradicts(source: &str, window: &[&str]) -> bool {
    let source_tokens = tokens(source);
    let window_text = window.join("\n");
    let window_tokens = tokens(&window_text);
    let source_negated = negated(&source_tokens);
    let window_negated = negated(&window_tokens);
    let present: FxHashSet<&str> = window_tokens.iter().map(|t| t.word.as_str()).collect();
    for (index, token) in source_tokens.iter().enumerate() {
        let word = token.word.as_str();
        // Stated with a word and kept only with its opposite (stopwords too: `after`, `on`).
        if !present.contains(word) && antonyms_of(word).any(|a| present.contains(a)) {
            return true;
        }
        if is_stopword(word) || is_negation(word) || is_polarity_filler(word) {
            continue;
        }
        if present.contains(word) {
            // A content word put between two words the source has side by side (`the main
            // test config file` for `the main config file`) names another thing.
            if let Some(next) = source_tokens.get(index + 1).filter(|n| {
                !n.after_boundary && !is_stopword(&n.word) && !is_polarity_filler(&n.word)
            }) {
                let adjacent = window_tokens
                    .windows(2)
                    .any(|w| w[0].word == word && w[1].word == next.word && !w[1].after_boundary);
                let inserted = window_tokens.iter().enumerate().any(|(at, t)| {
                    t.word == word
                        && (at + 2..=at + 4).any(|end| {
                            window_tokens.get(end).is_some_and(|e| e.word == next.word)
                                && window_tokens[at + 1..=end]
                                    .iter()
                                    .all(|m| !m.after_boundary)
                                && window_tokens[at + 1..end]
                                    .iter()
                                    .any(|m| !is_stopword(&m.word) && !is_polarity_filler(&m.word))
                        })
                });
                if inserted && !adjacent {
                    return true;
                }
            }
            let same_polarity = window_tokens
                .iter()
                .zip(&window_negated)
                .any(|(t, &n)| t.word == word && n == source_negated[index]);
            if !same_polarity {
                return true;
            }
            continue;
        }
        // Missing: is another word in its place, between the same neighbours?
        let left = (index > 0 && !token.after_boundary).then(|| &source_tokens[index - 1]);
        let right = source_tokens
            .get(index + 1)
            .filter(|next| !next.after_boundary);
        if left.is_none() && right.is_none() {
            continue;
        }
        // A run of up to three other words between both neighbours (`the prod-like database`
        // for `the production database`).
        if let (Some(l), Some(r)) = (left, right) {
            let between = window_tokens.iter().enumerate().any(|(at, t)| {
                t.word == l.word
                    && (at + 2..=at + 4).any(|end| {
                        window_tokens.get(end).is_some_and(|e| e.word == r.word)
                            && window_tokens[at + 1..=end]
                                .iter()
                                .all(|m| !m.after_boundary && m.word != word)
                    })
            });
            if between {
                return true;
            }
        }
        for (at, candidate) in window_tokens.iter().enumerate() {
            if is_stopword(&candidate.word) || candidate.word == word {
                continue;
            }
            let left_matches = left.map(|l| {
                at > 0 && !candidate.after_boundary && window_tokens[at - 1].word == l.word
            });
            let next = window_tokens.get(at + 1).filter(|n| !n.after_boundary);
            let right_matches = right.map(|r| next.is_some_and(|n| n.word == r.word));
            // At a clause edge the other word must stand at the same edge, or be the same
            // segment of an identifier (`Square.area`).
            let substituted = match (left_matches, right_matches) {
                (Some(l), Some(r)) => l && r,
                (Some(l), None) => l && (next.is_none() || candidate.joined && token.joined),
                (None, Some(r)) => {
                    let source_next_joined = source_tokens.get(index + 1).is_some_and(|n| n.joined);
                    r && (at == 0
                        || candidate.after_boundary
                        || next.is_some_and(|n| n.joined) && source_next_joined)
                }
                (None, None) => false,
            };
            if substituted {
                return true;
            }
        }
    }
    false
}

fn is_path_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '@' | '+' | '~' | '$')
}

/// Every path-like token of a text, lower-cased with `\\` as `/`, with each of its `/`-suffixes
/// (`/abs/src/a.ts` also names `src/a.ts` and `a.ts`), so naming a file is one lookup. Tokens are
/// cut from the text as written and lower-cased one by one (only when needed): lower-casing the
/// whole text first cost a copy of the summary, and split a token at a character whose lower
/// case is two (`İ` is `i` and a combining dot, which is not a path character), so a file named
/// with it was never found.
pub(crate) fn path_tokens(text: &str) -> FxHashSet<String> {
    let mut set: FxHashSet<String> = FxHashSet::default();
    let mut insert = |suffix: &str| {
        let suffix = suffix.trim_start_matches('/');
        if !suffix.is_empty() && !set.contains(suffix) {
            set.insert(suffix.to_owned());
        }
    };
    for raw in text.split(|c: char| !(is_path_char(c) || c == '\\')) {
        if raw.is_empty() {
            continue;
        }
        let plain = raw
            .bytes()
            .all(|b| b.is_ascii() && !b.is_ascii_uppercase() && b != b'\\');
        let owned;
        let mut token: &str = if plain {
            raw
        } else {
            owned = raw.to_lowercase().replace('\\', "/");
            &owned
        };
        let collapsed;
        if token.contains("//") {
            let mut joined = String::with_capacity(token.len());
            for c in token.chars() {
                if !(c == '/' && joined.ends_with('/')) {
                    joined.push(c);
                }
            }
            collapsed = joined;
            token = &collapsed;
        }
        let token = token.trim_end_matches(['.', ',', ':', ';']);
        let token = token.trim_start_matches("./");
        if token.is_empty() {
            continue;
        }
        // The whole token and its shortest suffixes: a token of a million components would
        // otherwise give a million suffixes of up to a megabyte each (quadratic). A deeper
        // path is still named by the whole token; a suffix deeper than the limit is not found,
        // so the file counts as missing (the safe side).
        insert(token);
        for (at, _) in token.rmatch_indices('/').take(PATH_SUFFIX_LIMIT) {
            insert(&token[at..]);
        }
    }
    set
}

/// How many trailing `/`-suffixes of one path token [`path_tokens`] indexes.
const PATH_SUFFIX_LIMIT: usize = 64;

/// A path as the check compares it: POSIX separators, relative to `cwd` when under it, no `./`,
/// lower case. The display form is the same without the lower-casing.
pub(crate) fn path_forms(path: &str, cwd: Option<&str>) -> (String, String) {
    let mut display = path.trim().replace('\\', "/");
    if let Some(cwd) = cwd {
        let base = cwd.trim().replace('\\', "/");
        let base = base.trim_end_matches('/');
        if !base.is_empty()
            && display.len() > base.len() + 1
            && display[..base.len()].eq_ignore_ascii_case(base)
            && display.as_bytes()[base.len()] == b'/'
        {
            display = display[base.len() + 1..].to_owned();
        }
    }
    while let Some(rest) = display.strip_prefix("./") {
        display = rest.to_owned();
    }
    while display.contains("//") {
        display = display.replace("//", "/");
    }
    let key = display.to_lowercase();
    (display, key)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-level `normalize_ws` agrees with collapsing `split_whitespace` (which it
    /// replaced) on ASCII, Unicode and control whitespace.
    #[test]
    fn normalize_ws_agrees_with_split_whitespace() {
        for text in [
            "",
            "   ",
            " a  b\t\tc\r\nd ",
            "x\u{0B}y\u{0C}z\u{1C}w",
            "\u{A0}a\u{2028}b\u{3000}c\u{85}d\u{200B}e\u{FFFD}",
            "İstanbul  ı\u{2003}é",
        ] {
            let reference = text.split_whitespace().collect::<Vec<_>>().join(" ");
            assert_eq!(normalize_ws(text), reference, "{text:?}");
        }
    }

    #[test]
    fn safe_cut_never_splits_an_encoded_surrogate_or_a_character() {
        let encoded = format!("ab{SENTINEL}\u{F0001}cd");
        // Inside the sentinel, between sentinel and tag, inside the tag: all go back to 2.
        for at in 3..=8 {
            assert_eq!(safe_cut(&encoded, at), 2, "at {at}");
        }
        assert_eq!(safe_cut(&encoded, 9), 9);
        assert_eq!(safe_cut("é", 1), 0);
        let doubled = format!("{SENTINEL}{SENTINEL}x");
        assert_eq!(safe_cut(&doubled, 3), 0);
        assert_eq!(safe_cut(&doubled, 6), 6);
        assert_eq!(safe_cut_up(&encoded, 4), 9);
    }

    #[test]
    fn a_word_on_two_lines_of_a_window_counts_once() {
        let index = LineIndex::new("1. a\n1. b\nc");
        let needles = vec!["1".to_owned(), "item".to_owned()];
        assert_eq!(
            index.covered(&needles, 2, false, None, 0.5, ANY_WINDOW),
            (true, 0.5)
        );
        assert!(!index.covered(&needles, 2, false, None, 0.7, ANY_WINDOW).0);
        let both = vec!["1".to_owned(), "b".to_owned()];
        assert_eq!(
            index.covered(&both, 2, false, None, 1.0, ANY_WINDOW),
            (true, 1.0)
        );
    }

    #[test]
    fn one_long_line_is_many_places() {
        let text = format!("alpha {} omega", "filler ".repeat(200));
        let index = LineIndex::new(&text);
        let needles = vec!["alpha".to_owned(), "omega".to_owned()];
        assert!(!index.covered(&needles, 2, false, None, 1.0, ANY_WINDOW).0);
        assert!(index.covered(&needles, 1, false, None, 0.5, ANY_WINDOW).0);
    }

    #[test]
    fn the_work_budget_fails_closed() {
        // Every word on every line: each probe is expensive; the budget ends it, and what was
        // not checked counts as missing.
        let text = "a b c d e\nf g h i j\n".repeat(25_000);
        let index = LineIndex::new(&text);
        let needles: Vec<String> = "a b c d e f g h i j"
            .split(' ')
            .map(str::to_owned)
            .collect();
        let mut passes = 0;
        for _ in 0..200 {
            passes += usize::from(index.covered(&needles, 1, false, None, 1.0, ANY_WINDOW).0);
        }
        assert_eq!(passes, 0);
        assert!(index.exhausted());
    }

    #[test]
    fn path_tokens_include_every_suffix_and_ignore_punctuation() {
        let set = path_tokens("Edited `C:\\ws\\src\\Shapes.ts`, then ./lib/a.rs.");
        for expected in ["ws/src/shapes.ts", "src/shapes.ts", "shapes.ts", "lib/a.rs"] {
            assert!(set.contains(expected), "{expected}: {set:?}");
        }
        let set = path_tokens("see ///Abs//Src///İ.ts and src\\\\lib\\a.rs");
        for expected in [
            "abs/src/i\u{307}.ts",
            "src/i\u{307}.ts",
            "i\u{307}.ts",
            "src/lib/a.rs",
        ] {
            assert!(set.contains(expected), "{expected}: {set:?}");
        }
        assert_eq!(path_forms("src/İ.ts", None).1, "src/i\u{307}.ts");
        assert_eq!(
            path_forms("/ws/./src//a.ts", Some("/ws/")),
            ("src/a.ts".into(), "src/a.ts".into())
        );
    }
}
