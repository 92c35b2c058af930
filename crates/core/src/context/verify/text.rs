//! Text measures shared by every summary check: words, whitespace normalisation, a per-line word
//! index of the summary (so each check is a few lookups, not a scan), path tokens, and cuts that
//! never split a character or an encoded lone surrogate.

use std::collections::BTreeSet;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::wire_text::SENTINEL;

/// Words too common to say whether a sentence was kept.
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "an", "and", "any", "are", "as", "at", "be", "been",
    "but", "by", "can", "could", "did", "do", "does", "for", "from", "had", "has", "have", "he",
    "her", "here", "his", "i", "if", "in", "into", "is", "it", "its", "just", "let", "lets", "me",
    "my", "of", "on", "or", "our", "please", "she", "so", "some", "than", "that", "the", "their",
    "them", "then", "there", "these", "they", "this", "those", "to", "up", "us", "was", "we",
    "were", "what", "when", "which", "while", "who", "will", "with", "would", "you", "your",
];

/// Negation cues: a constraint's polarity must survive in the summary line that covers it.
const NEGATIONS: &[&str] = &[
    "not",
    "never",
    "no",
    "don't",
    "dont",
    "doesn't",
    "avoid",
    "without",
    "nothing",
    "none",
    "cannot",
    "can't",
    "won't",
    "mustn't",
    "shouldn't",
    "isn't",
    "aren't",
    "nor",
    "neither",
    "forbidden",
    "prohibited",
    "instead",
];

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\''
}

/// Lower-cased words (letters, digits, `_`, inner apostrophes), in order.
pub(crate) fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !is_word_char(c))
        .map(|word| word.trim_matches('\''))
        .filter(|word| !word.is_empty())
        .map(|word| word.replace('\u{2019}', "'").to_lowercase())
}

/// The distinct content words (stopwords dropped), sorted: the unit of every overlap measure.
pub(crate) fn content_words(text: &str) -> Vec<String> {
    let set: BTreeSet<String> = words(text)
        .filter(|word| !STOPWORDS.contains(&word.as_str()))
        .collect();
    set.into_iter().collect()
}

/// Whether the text carries a negation cue.
pub(crate) fn has_negation(text: &str) -> bool {
    words(text).any(|word| NEGATIONS.contains(&word.as_str()) || word.ends_with("n't"))
}

/// Whitespace runs collapsed to one space, trimmed.
pub(crate) fn normalize_ws(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
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

/// The summary as lines with a word index, built once per verification.
pub(crate) struct LineIndex<'a> {
    pub(crate) lines: Vec<&'a str>,
    negative: Vec<bool>,
    postings: FxHashMap<String, Vec<u32>>,
    all_words: FxHashSet<String>,
}

impl<'a> LineIndex<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let lines: Vec<&str> = text.lines().collect();
        let mut postings: FxHashMap<String, Vec<u32>> = FxHashMap::default();
        let mut negative = Vec::with_capacity(lines.len());
        for (number, line) in lines.iter().enumerate() {
            let mut is_negative = false;
            for word in words(line) {
                if NEGATIONS.contains(&word.as_str()) || word.ends_with("n't") {
                    is_negative = true;
                }
                let list = postings.entry(word).or_default();
                if list.last() != Some(&(number as u32)) {
                    list.push(number as u32);
                }
            }
            negative.push(is_negative);
        }
        let all_words = postings.keys().cloned().collect();
        LineIndex {
            lines,
            negative,
            postings,
            all_words,
        }
    }

    /// Whether the word appears anywhere.
    pub(crate) fn contains_word(&self, word: &str) -> bool {
        self.all_words.contains(word)
    }

    /// The best share of `needles` found within `window` consecutive lines (restricted to
    /// `lines` when given; requiring a negation cue in the window when `negative`), and the
    /// first line of that window.
    pub(crate) fn best_window(
        &self,
        needles: &[String],
        window: usize,
        negative: bool,
        lines: Option<std::ops::Range<usize>>,
    ) -> (f64, Option<usize>) {
        if needles.is_empty() {
            return (1.0, None);
        }
        let window = window.max(1);
        let mut hits: FxHashMap<u32, u32> = FxHashMap::default();
        for needle in needles {
            let Some(list) = self.postings.get(needle) else {
                continue;
            };
            // Each needle counts once per window, however many of its lines it covers.
            let mut next_start = 0usize;
            for &line in list {
                let line = line as usize;
                if lines.as_ref().is_some_and(|range| !range.contains(&line)) {
                    continue;
                }
                let first = line.saturating_sub(window - 1).max(next_start);
                for start in first..=line {
                    *hits.entry(start as u32).or_default() += 1;
                }
                next_start = line + 1;
            }
        }
        let mut best = (0u32, None);
        let mut starts: Vec<(u32, u32)> = hits.into_iter().collect();
        starts.sort_unstable();
        for (start, count) in starts {
            let start = start as usize;
            let end = (start + window).min(self.lines.len());
            if negative && !self.negative[start..end].iter().any(|&n| n) {
                continue;
            }
            if count > best.0 {
                best = (count, Some(start));
            }
        }
        (best.0 as f64 / needles.len() as f64, best.1)
    }

    /// Share of `needles` found anywhere in the summary.
    pub(crate) fn recall_anywhere(&self, needles: &[String]) -> f64 {
        if needles.is_empty() {
            return 1.0;
        }
        let found = needles.iter().filter(|n| self.contains_word(n)).count();
        found as f64 / needles.len() as f64
    }
}

fn is_path_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '@' | '+' | '~' | '$')
}

/// Every path-like token of a text, lower-cased with `\` as `/`, with each of its `/`-suffixes
/// (`/abs/src/a.ts` also names `src/a.ts` and `a.ts`), so naming a file is one lookup.
pub(crate) fn path_tokens(text: &str) -> FxHashSet<String> {
    let mut lowered = text.to_lowercase().replace('\\', "/");
    while lowered.contains("//") {
        lowered = lowered.replace("//", "/");
    }
    let mut set = FxHashSet::default();
    for token in lowered.split(|c: char| !is_path_char(c)) {
        let token = token.trim_end_matches(['.', ',', ':', ';']);
        let token = token.trim_start_matches("./");
        if token.is_empty() {
            continue;
        }
        let mut rest = token;
        loop {
            let trimmed = rest.trim_start_matches('/');
            if !trimmed.is_empty() {
                set.insert(trimmed.to_owned());
            }
            match trimmed.find('/') {
                Some(slash) => rest = &trimmed[slash..],
                None => break,
            }
        }
    }
    set
}

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
        assert_eq!(index.best_window(&needles, 2, false, None).0, 0.5);
        let both = vec!["1".to_owned(), "b".to_owned()];
        assert_eq!(index.best_window(&both, 2, false, None).0, 1.0);
    }

    #[test]
    fn path_tokens_include_every_suffix_and_ignore_punctuation() {
        let set = path_tokens("Edited `C:\\ws\\src\\Shapes.ts`, then ./lib/a.rs.");
        for expected in ["ws/src/shapes.ts", "src/shapes.ts", "shapes.ts", "lib/a.rs"] {
            assert!(set.contains(expected), "{expected}: {set:?}");
        }
        assert_eq!(
            path_forms("/ws/./src//a.ts", Some("/ws/")),
            ("src/a.ts".into(), "src/a.ts".into())
        );
    }
}
