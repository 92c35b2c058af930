//! Scanner throughput: 1 MB of chat text with 1,000 mentions (files, folders, URLs, git, host
//! kinds, escaped spaces) and slash commands, through the bare scanners and through the whole
//! plan (substitution and command lookup, no I/O). Run: `cargo bench -p roo-context-core --bench mentions`.

use divan::counter::BytesCount;
use divan::{Bencher, black_box};
use roo_context_core::mentions::{
    CommandCatalog, CommandLookup, built_in, plan_mentions, scan_commands, scan_mentions,
};

fn main() {
    divan::main();
}

const ONE_MB: usize = 1024 * 1024;
const MENTIONS: usize = 1000;

/// 1 MB of prose with exactly 1,000 mentions spread evenly, plus a slash command every 10 lines.
fn chat_text() -> String {
    let kinds = [
        "@/src/components/button_{i}.tsx",
        "@/docs/my\\ notes/{i}.md",
        "@/packages/core/",
        "@https://example.com/issues/{i}",
        "@problems",
        "@git-changes",
        "@deadbeef{i}",
        "@terminal",
    ];
    let filler = "The quick brown fox jumps over the lazy dog, then reviews path/to/file.rs and a@b.c email. ";
    let per_mention = ONE_MB / MENTIONS;
    let mut text = String::with_capacity(ONE_MB + 4096);
    for i in 0..MENTIONS {
        let start = text.len();
        let mention = kinds[i % kinds.len()].replace("{i}", &format!("{:03}", i % 1000));
        text.push_str(&mention);
        text.push_str(if i % 10 == 0 { " and /review " } else { ", " });
        while text.len() - start < per_mention {
            text.push_str(filler);
        }
        text.truncate(start + per_mention);
        while !text.is_char_boundary(text.len()) {
            text.pop();
        }
        text.push('\n');
    }
    text
}

struct BuiltInsOnly;

impl CommandCatalog for BuiltInsOnly {
    fn lookup(&self, name: &str) -> Option<CommandLookup> {
        built_in(name)
    }
}

#[divan::bench]
fn scan_mentions_1mb_1000_mentions(bencher: Bencher) {
    let text = chat_text();
    assert_eq!(scan_mentions(&text, None).len(), MENTIONS);
    bencher
        .counter(BytesCount::of_str(&text))
        .bench(|| scan_mentions(black_box(&text), None));
}

#[divan::bench]
fn scan_commands_1mb(bencher: Bencher) {
    let text = chat_text();
    bencher
        .counter(BytesCount::of_str(&text))
        .bench(|| scan_commands(black_box(&text), None));
}

#[divan::bench]
fn plan_1mb_1000_mentions(bencher: Bencher) {
    let text = chat_text();
    bencher
        .counter(BytesCount::of_str(&text))
        .bench(|| plan_mentions(black_box(&text), &BuiltInsOnly));
}
