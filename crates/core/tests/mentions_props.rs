//! Property and scale tests of the mention scanner: it agrees with the original's look-around
//! regexes (run by fancy-regex as a reference), never panics on arbitrary Unicode, always returns
//! well-formed matches, and does linear work on huge hostile inputs (proved by its work
//! counter, not by timing).

use fancy_regex::Regex;
use proptest::prelude::*;
use roo_context_core::mentions::scan::is_js_whitespace;
use roo_context_core::mentions::{
    Command, CommandCatalog, CommandLookup, CommandSource, plan_mentions, scan_commands,
    scan_mentions, scan_mentions_with_stats,
};

/// JavaScript's `\s`, spelled out (the regex crate's `\s` is Unicode White_Space, which differs).
const WS: &str =
    r"\t\n\x0B\x0C\r \xA0\x{1680}\x{2000}-\x{200A}\x{2028}\x{2029}\x{202F}\x{205F}\x{3000}\x{FEFF}";

fn mention_reference() -> Regex {
    let word_end = "(?![A-Za-z0-9_])";
    Regex::new(&format!(
        r"(?<![^{WS}])@((?:/|[A-Za-z0-9_]+://)(?:[^{WS}\\]|\\ )+?|[a-f0-9]{{7,40}}{word_end}|problems{word_end}|git-changes{word_end}|terminal{word_end})(?=[.,;:!?]?(?:[{WS}]|$))"
    ))
    .unwrap()
}

fn command_reference() -> Regex {
    Regex::new(&format!(r"(?:^|[{WS}])/([A-Za-z0-9_.-]+)(?=[{WS}]|$)")).unwrap()
}

static MENTION_REFERENCE: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(mention_reference);
static COMMAND_REFERENCE: std::sync::LazyLock<Regex> = std::sync::LazyLock::new(command_reference);

fn reference_mentions(regex: &Regex, text: &str) -> Vec<(usize, usize)> {
    regex
        .captures_iter(text)
        .map(|c| {
            let c = c.expect("reference regex ran out of backtracking");
            let body = c.get(1).unwrap();
            (body.start(), body.end())
        })
        .collect()
}

fn reference_commands(regex: &Regex, text: &str) -> Vec<(usize, usize, usize)> {
    regex
        .captures_iter(text)
        .map(|c| {
            let c = c.unwrap();
            let name = c.get(1).unwrap();
            (c.get(0).unwrap().start(), name.start(), name.end())
        })
        .collect()
}

fn chars(alphabet: &'static str, length: std::ops::Range<usize>) -> BoxedStrategy<String> {
    let alphabet: Vec<char> = alphabet.chars().collect();
    prop::collection::vec(prop::sample::select(alphabet), length)
        .prop_map(|cs| cs.into_iter().collect())
        .boxed()
}

/// Pieces that exercise every branch of the grammar.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("@".to_owned()).boxed(),
        Just("/".to_owned()),
        Just("\\".to_owned()),
        Just("\\ ".to_owned()),
        Just(" ".to_owned()),
        Just("\t".to_owned()),
        Just("\n".to_owned()),
        Just("\u{A0}".to_owned()),
        Just("\u{FEFF}".to_owned()),
        Just("\u{85}".to_owned()),
        Just("\u{2003}".to_owned()),
        Just(".".to_owned()),
        Just(",".to_owned()),
        Just("!".to_owned()),
        Just("?".to_owned()),
        Just(":".to_owned()),
        Just("-".to_owned()),
        Just("_".to_owned()),
        Just("problems".to_owned()),
        Just("git-changes".to_owned()),
        Just("terminal".to_owned()),
        Just("http".to_owned()),
        Just("://".to_owned()),
        Just("init".to_owned()),
        Just("é".to_owned()),
        Just("😀".to_owned()),
        chars("abcdef0123456789", 1..13),
        chars("abcxyzABCXYZ", 1..4),
        chars("09G_", 1..3),
    ]
}

fn grammar_text() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(), 0..40).prop_map(|pieces| pieces.concat())
}

struct EveryName;

impl CommandCatalog for EveryName {
    fn lookup(&self, name: &str) -> Option<CommandLookup> {
        Some(CommandLookup::Command(Command {
            name: name.to_owned(),
            content: "C".to_owned(),
            source: CommandSource::Project,
            file_path: String::new(),
            description: None,
            argument_hint: None,
            mode: None,
        }))
    }
}

fn assert_well_formed(text: &str) {
    let mut last_end = 0;
    for m in scan_mentions(text, None) {
        assert!(m.range.start >= last_end, "overlap in {text:?}");
        assert!(text.is_char_boundary(m.range.start) && text.is_char_boundary(m.range.end));
        assert_eq!(&text[m.range.start..m.range.start + 1], "@");
        assert_eq!(m.body.start, m.range.start + 1);
        assert_eq!(m.body.end, m.range.end);
        assert!(m.body.end > m.body.start);
        let before = text[..m.range.start].chars().next_back();
        assert!(before.is_none_or(is_js_whitespace));
        last_end = m.range.end;
    }
    let mut last_end = 0;
    for c in scan_commands(text, None) {
        assert!(c.raw.start >= last_end);
        assert!(c.name.end > c.name.start);
        assert_eq!(&text[c.token.start..c.token.start + 1], "/");
        last_end = c.raw.end;
    }
    // The whole pipeline never panics and keeps text outside mentions.
    let plan = plan_mentions(text, &EveryName);
    assert!(plan.fetches.len() <= text.matches('@').count());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn scanner_agrees_with_the_original_regexes(text in grammar_text()) {
        let mentions = &*MENTION_REFERENCE;
        let ours: Vec<(usize, usize)> = scan_mentions(&text, None)
            .into_iter()
            .map(|m| (m.body.start, m.body.end))
            .collect();
        prop_assert_eq!(ours, reference_mentions(mentions, &text), "text {:?}", text);
        let commands = &*COMMAND_REFERENCE;
        let ours: Vec<(usize, usize, usize)> = scan_commands(&text, None)
            .into_iter()
            .map(|c| (c.raw.start, c.name.start, c.name.end))
            .collect();
        prop_assert_eq!(ours, reference_commands(commands, &text), "text {:?}", text);
    }

    #[test]
    fn scanner_output_is_well_formed_for_grammar_like_text(text in grammar_text()) {
        assert_well_formed(&text);
    }

    #[test]
    fn scanner_never_panics_on_arbitrary_unicode(text in any::<String>()) {
        assert_well_formed(&text);
    }

    #[test]
    fn user_message_spans_never_panic(inner in grammar_text(), outer in grammar_text(), close in any::<bool>()) {
        let text = if close {
            format!("{outer}<user_message>{inner}</user_message>{outer}")
        } else {
            format!("{outer}<user_message>{inner}")
        };
        let plan = plan_mentions(&text, &EveryName);
        prop_assert!(plan.text.starts_with(&outer));
    }
}

const TEN_MB: usize = 10 * 1024 * 1024;

fn repeat_to(unit: &str, size: usize) -> String {
    unit.repeat(size / unit.len() + 1)
}

/// Inputs that make a naive backtracking scanner quadratic: every `@` starts a tail that runs to
/// the far end of the text before failing.
#[test]
fn hostile_ten_megabyte_inputs_take_linear_work() {
    const ONE_MB: usize = 1024 * 1024;
    let cases = [
        repeat_to("@/a\\ ", TEN_MB) + "\\x",
        repeat_to("@http://a\\ ", TEN_MB) + "\\x",
        repeat_to("@abcdef0 ", ONE_MB),
        repeat_to("@ ", ONE_MB),
        repeat_to("@/", ONE_MB),
        format!("@{}", "a".repeat(ONE_MB)),
        format!("@/{}", "\\ ".repeat(ONE_MB / 2)),
    ];
    for text in &cases {
        let (_, stats) = scan_mentions_with_stats(text, None);
        assert!(
            stats.bytes_examined <= 3 * text.len() + 16,
            "{} bytes examined for {} bytes of input starting {:?}",
            stats.bytes_examined,
            text.len(),
            &text[..20]
        );
        let commands = scan_commands(text, None);
        assert!(commands.len() <= text.len());
    }
}

#[test]
fn thousands_of_mentions_in_ten_megabytes_are_all_found() {
    let mut text = String::with_capacity(TEN_MB + 1024);
    let mut expected = 0;
    while text.len() < TEN_MB {
        text.push_str(&format!(
            "please look at @/src/module_{expected}/file.ts and also /review then {}\n",
            "lorem ipsum dolor sit amet ".repeat(10)
        ));
        expected += 1;
    }
    let (found, stats) = scan_mentions_with_stats(&text, None);
    assert_eq!(found.len(), expected);
    assert!(stats.bytes_examined <= text.len());
    assert_eq!(scan_commands(&text, None).len(), expected);
    let plan = plan_mentions(&text, &EveryName);
    assert_eq!(plan.fetches.len(), expected);
    assert_eq!(plan.commands.len(), 1);
}
