//! The user's explicit constraints ("don't touch X", "always run the tests", "use X, not Y"):
//! sentences of user-authored text that bind the agent's later work. Measured on a labelled set
//! of user messages (`tests/fixtures/constraints/labelled.txt`, precision and recall printed by
//! `cargo test -p roo-context-core --test verify -- constraint_extraction`).
//!
//! A sentence is a constraint when it is *directed at the agent*: it opens with an imperative cue
//! (`don't`, `never`, `always`, `only`, `avoid`, `keep`, `make sure`, ...), or carries a modal
//! addressed to the agent (`you must`, `you should not`, `must not`, `is not allowed`), or has the
//! `use X, not Y` / `X instead of Y` shape. Descriptions that merely contain the words ("it never
//! returns", "I only changed one line") are not. Fenced code is never read.

use std::sync::LazyLock;

use memchr::memmem::Finder;

use super::text::normalize_ws;

/// Words that may precede the imperative cue without changing it.
const LEAD_INS: &[&str] = &[
    "please",
    "and",
    "also",
    "but",
    "so",
    "ok",
    "okay",
    "oh",
    "then",
    "just",
    "important",
    "note",
    "nb",
    "again",
    "finally",
    "btw",
    "plus",
    "however",
    "still",
    "now",
    "hmm",
    "actually",
    "wait",
    "sorry",
    "hey",
    "ps",
    "p.s.",
    "reminder",
    "rule",
    "instead",
];

/// Phrases that may precede the imperative cue without changing it.
const LEAD_IN_PHRASES: &[&str] = &[
    "from now on",
    "going forward",
    "for the rest of this task",
    "for this task",
    "one more thing",
    "one last thing",
    "in general",
    "as a rule",
];

/// Imperative openers that make a sentence a constraint on their own.
const OPENERS: &[&str] = &[
    "don't",
    "dont",
    "never",
    "always",
    "only",
    "avoid",
    "keep",
    "leave",
    "ensure",
    "stop",
    "prefer",
    "stick",
    "refrain",
    "must",
    "no",
    "do not",
    "make sure",
    "be sure",
    "under no",
    "without",
    "limit",
    "restrict",
    "preserve",
    "retain",
    "maintain",
    "stay",
    "skip",
    "ignore",
    "exclude",
    "use only",
    "write only",
    "remember to",
    "remember:",
    "don\u{2019}t",
    "not",
    "nothing",
];

/// Phrases that make a sentence a constraint wherever they appear.
const MODALS: &[&str] = &[
    "you must",
    "you should",
    "you shouldn't",
    "you can't",
    "you cannot",
    "you may not",
    "you need to",
    "you have to",
    "you are not allowed",
    "you're not allowed",
    "we must",
    "we should not",
    "we shouldn't",
    "we always",
    "we only",
    " must ",
    "should not",
    "shouldn't",
    "must not",
    "must never",
    "must always",
    "must be",
    "must stay",
    "must remain",
    "must use",
    "must keep",
    "should never",
    "should always",
    "should only",
    "should not be",
    "shouldn't be",
    "is not allowed",
    "are not allowed",
    "not allowed to",
    "is forbidden",
    "are forbidden",
    "under no circumstances",
    "at all costs",
    "do not ",
    "don't ",
    "make sure",
    "instead of",
    "rather than",
    "no more than",
    "at most",
    "at least",
    "is off-limits",
    "are off-limits",
    "off limits",
    "is a must",
    "it's important that",
    "it is important that",
    "the rule is",
    "hard requirement",
    "non-negotiable",
];

/// Descriptive subjects before `don't` / `never` / `only` that make the sentence a statement.
const DESCRIPTIVE_SUBJECTS: &[&str] = &[
    "i don't",
    "i do not",
    "i never",
    "i only",
    "it doesn't",
    "it does not",
    "it never",
    "it only",
    "they don't",
    "they never",
    "that doesn't",
    "this doesn't",
    "which doesn't",
    "who don't",
    "i didn't",
    "it didn't",
    "i can't",
    "i cannot",
    "don't know",
    "don't think",
    "don't understand",
    "don't see",
    "don't care",
    "don't have",
    "don't worry",
    "don't get",
    "don't remember",
    "don't mind",
];

/// Whether a sentence is an explicit constraint (see the module doc).
pub fn is_constraint(sentence: &str) -> bool {
    let lowered = sentence.to_lowercase().replace('\u{2019}', "'");
    let trimmed = lowered
        .trim()
        .trim_start_matches(['-', '*', '+', '>', '#', '•', ' ', '\t'])
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches(['.', ')', ':', ' ']);
    if trimmed.split_whitespace().count() < 2 {
        return false;
    }
    let question = trimmed.trim_end().ends_with('?');
    let mut rest = trimmed;
    // "could you / can you / would you" opens a polite imperative.
    let mut polite = false;
    for opener in ["could you ", "can you ", "would you ", "will you "] {
        if let Some(tail) = rest.strip_prefix(opener) {
            rest = tail;
            polite = true;
        }
    }
    loop {
        if let Some(tail) = LEAD_IN_PHRASES
            .iter()
            .find_map(|phrase| rest.strip_prefix(phrase))
        {
            rest = tail.trim_start_matches([',', ':', ' ']);
            continue;
        }
        let next = rest.split_whitespace().next().unwrap_or("");
        let bare = next.trim_end_matches([',', ':', '!', ';']);
        if !bare.is_empty() && LEAD_INS.contains(&bare) && rest.len() > next.len() {
            rest = rest[next.len()..].trim_start();
        } else {
            break;
        }
    }
    let opens = OPENERS.iter().any(|opener| {
        rest.strip_prefix(opener)
            .is_some_and(|tail| tail.is_empty() || tail.starts_with([' ', ',', ':', '!', '-']))
    });
    let use_not = (rest.starts_with("use ") || rest.starts_with("go with "))
        && (rest.contains(", not ")
            || rest.contains(" not ")
            || rest.contains(" instead")
            || rest.contains(" only")
            || rest.contains(" for all ")
            || rest.contains(" everywhere")
            || rest.contains(" always"));
    if question {
        return polite && (opens || use_not);
    }
    if opens || use_not {
        return true;
    }
    let haystack = trimmed.as_bytes();
    if DESCRIPTIVE_FINDERS
        .iter()
        .any(|finder| finder.find(haystack).is_some())
    {
        return false;
    }
    MODAL_FINDERS
        .iter()
        .any(|finder| finder.find(haystack).is_some())
}

/// Searchers built once: `str::contains` sets up a searcher per call, and these ~90 phrases are
/// looked for in every sentence of every user message of the history.
static DESCRIPTIVE_FINDERS: LazyLock<Vec<Finder<'static>>> =
    LazyLock::new(|| DESCRIPTIVE_SUBJECTS.iter().map(Finder::new).collect());
static MODAL_FINDERS: LazyLock<Vec<Finder<'static>>> =
    LazyLock::new(|| MODALS.iter().map(Finder::new).collect());

/// Splits user text into sentences, outside fenced code blocks: at `.`/`!`/`?` before a space or
/// the end, and at line breaks (bullets and short lines are sentences of their own).
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let stripped = line.trim_start();
        if stripped.starts_with("```") || stripped.starts_with("~~~") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let mut start = 0;
        let bytes = line.as_bytes();
        for (index, c) in line.char_indices() {
            if matches!(c, '.' | '!' | '?') {
                let after = index + 1;
                let boundary = after >= bytes.len() || bytes[after] == b' ';
                // `e.g.` / `src/a.ts` / `v1.2` are not ends.
                if boundary && !abbreviation_before(&line[start..after]) {
                    push_sentence(&mut out, &line[start..after]);
                    start = after;
                }
            }
        }
        push_sentence(&mut out, &line[start..]);
    }
    out
}

fn abbreviation_before(piece: &str) -> bool {
    let last = piece.split_whitespace().last().unwrap_or("").to_lowercase();
    matches!(
        last.as_str(),
        "e.g." | "i.e." | "etc." | "vs." | "e.g" | "i.e"
    )
}

fn push_sentence(out: &mut Vec<String>, piece: &str) {
    let sentence = normalize_ws(piece);
    if !sentence.is_empty() {
        out.push(sentence);
    }
}

/// The constraints of one user text, in order, without repeats.
pub fn extract_constraints(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for sentence in sentences(text) {
        if is_constraint(&sentence) && !out.contains(&sentence) {
            out.push(sentence);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_and_code_are_not_constraints() {
        assert!(is_constraint("Never change the public API."));
        assert!(is_constraint("Please don't touch src/legacy."));
        assert!(is_constraint("Use pnpm, not npm."));
        assert!(!is_constraint("It never returns when the socket closes."));
        assert!(!is_constraint("I only changed one line."));
        assert!(!is_constraint("Why does it never return?"));
        assert!(is_constraint("Could you avoid unwrap in the parser?"));
        let text = "Fix it.\n```rust\n// never do this\nlet x = 1;\n```\nAlways run cargo fmt.";
        assert_eq!(extract_constraints(text), vec!["Always run cargo fmt."]);
    }
}
