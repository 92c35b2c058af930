//! Proves the linear-time counter equals tiktoken-rs (`encode_ordinary`, o200k_base) on a corpus,
//! on long pathological runs and on random strings, and never panics.

use proptest::prelude::*;
use roo_context_tokens::{count_exact, count_exact_till_limit};

/// The reference count: tiktoken-rs `encode_ordinary(text).len()`.
///
/// tiktoken-rs panics (fancy-regex backtrack limit) on one whitespace run of about 1 MB, so the
/// text is cut into pieces of about 64 KiB at boundaries that no o200k pre-token crosses: right
/// after a `\n` that is followed by an ASCII letter or digit. (No pattern alternative can match a
/// newline followed by a letter or digit: the letter patterns' optional prefix excludes `\r\n`,
/// the punctuation pattern only continues with `[\r\n/]`, and the rest are pure whitespace or
/// digits. The next pre-token therefore starts exactly at the letter or digit.) Inputs with no
/// such boundary are passed whole, so callers keep single runs well under 1 MB.
fn reference_count(text: &str) -> usize {
    let tiktoken = tiktoken_rs::o200k_base_singleton();
    safe_chunks(text, 64 * 1024)
        .map(|chunk| tiktoken.encode_ordinary(chunk).len())
        .sum()
}

fn safe_chunks(text: &str, target: usize) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let bytes = rest.as_bytes();
        let mut cut = rest.len();
        let mut index = target.min(rest.len());
        while index + 1 < bytes.len() {
            if bytes[index] == b'\n' && bytes[index + 1].is_ascii_alphanumeric() {
                cut = index + 1;
                break;
            }
            index += 1;
        }
        let (chunk, tail) = rest.split_at(cut);
        rest = tail;
        Some(chunk)
    })
}

#[track_caller]
fn assert_equal_to_reference(label: &str, text: &str) {
    let ours = count_exact(text);
    let reference = reference_count(text);
    assert_eq!(
        ours,
        reference,
        "{label}: ours {ours} vs tiktoken-rs {reference} ({} bytes)",
        text.len()
    );
}

/// Deterministic pseudo-random numbers (SplitMix64), so the corpus is the same on every run.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

const FRAGMENTS: &[&str] = &[
    "fn main() {\n    println!(\"Hello, world!\");\n}\n",
    "export const add = (a: number, b: number): number => a + b;\r\n",
    "def f(x):\n\treturn x ** 2  # square\n",
    "SELECT id, name FROM users WHERE age >= 21 ORDER BY name DESC;\n",
    "I'm sure they'll say it's fine; we've DONE it, HE'S here, she'D know.\n",
    "The quick brown fox jumps over the lazy dog. ",
    "これは日本語のテキストです。漢字とひらがなとカタカナ。",
    "这是中文文本，包含标点符号！",
    "한국어 텍스트도 있습니다.",
    "Привет, мир! Ёжик в тумане.",
    "مرحبا بالعالم",
    "नमस्ते दुनिया",
    "สวัสดีชาวโลก",
    "emoji 😀👍🏽👨‍👩‍👧‍👦🇫🇷 done ",
    "e\u{301}te\u{301} cafe\u{301} Å ﬁ",
    "<|endoftext|> <|endofprompt|> <|fim_prefix|>",
    "{\"a\":1,\"b\":[true,false,null],\"c\":{\"d\":\"e\\n\"}}",
    "0123456789 3.14159 1e-10 0xDEADBEEF 1_000_000",
    "   \t  \n\n\n    \r\n\r\n\u{a0}\u{3000}\u{2028}\u{feff} ",
    "//! doc comment\n/// more\n// plain\n/* block */\n",
    "https://example.com/path?query=1&b=%20#frag ",
    "ALLCAPSWORD camelCaseWord snake_case_word kebab-case-word PascalCase ",
    "\u{0}\u{1}\u{7f}\u{85}\u{200b}\u{200d}",
    "    if (x) {\n        return y;\n    }\n",
    "''' \"\"\" ``` ~~~ --- *** ___ ",
];

/// A deterministic corpus of mixed text: fragments, base64 blobs, minified JSON, runs of one
/// character (up to 60 KB) and random code points, shuffled together.
fn generated_corpus(seed: u64, target_len: usize) -> String {
    let mut rng = SplitMix(seed);
    let mut out = String::with_capacity(target_len + 100_000);
    while out.len() < target_len {
        match rng.below(10) {
            0..=4 => out.push_str(rng.pick(FRAGMENTS)),
            5 => {
                const B64: &[u8] =
                    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
                let len = 1 + rng.below(4_000);
                out.extend((0..len).map(|_| B64[rng.below(64)] as char));
                out.push_str("==\n");
            }
            6 => {
                let run = rng.pick(&[
                    "a", " ", "\t", "\n", "=", "-", "0", "é", "漢", "😀", "\r\n", "ab",
                ]);
                let max = if rng.below(10) == 0 { 30_000 } else { 300 };
                let count = 1 + rng.below(max);
                out.push_str(&run.repeat(count));
            }
            7 => {
                let entries = 1 + rng.below(200);
                out.push('[');
                for i in 0..entries {
                    out.push_str(&format!(
                        "{{\"id\":{i},\"name\":\"item{}\",\"ok\":{}}},",
                        rng.next() % 1000,
                        i % 2 == 0
                    ));
                }
                out.push_str("]\n");
            }
            8 => {
                for _ in 0..1 + rng.below(50) {
                    let code = rng.below(0x3_0000) as u32;
                    if let Some(c) = char::from_u32(code) {
                        out.push(c);
                    }
                }
            }
            _ => {
                let words = 1 + rng.below(40);
                for _ in 0..words {
                    out.push_str(rng.pick(&[
                        "alpha",
                        "Beta",
                        "GAMMA",
                        "d'elta",
                        "epsilon's",
                        "ZETA'LL",
                        "eta",
                        "theta",
                    ]));
                    out.push_str(rng.pick(&[" ", "  ", "\n", ", ", ".\n\n", "\t", "/", "_"]));
                }
            }
        }
    }
    out
}

/// Text files of this repository (source, docs, manifests): real-world content, capped in size.
fn repository_text(cap: usize) -> String {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        entries.sort();
        for path in entries {
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if matches!(name, "target" | ".git" | "node_modules") {
                continue;
            }
            if path.is_dir() {
                walk(&path, out);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("rs" | "md" | "toml" | "ts" | "js" | "json" | "lua" | "scm" | "py")
            ) {
                out.push(path);
            }
        }
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    walk(&root, &mut files);
    let mut out = String::new();
    for file in files {
        if let Ok(text) = std::fs::read_to_string(&file) {
            out.push_str(&text);
            if out.len() >= cap {
                break;
            }
        }
    }
    out
}

#[test]
fn equals_reference_on_generated_corpus() {
    for seed in 1..=4 {
        let corpus = generated_corpus(seed, 300_000);
        assert_equal_to_reference(&format!("generated corpus, seed {seed}"), &corpus);
    }
}

#[test]
fn equals_reference_on_each_generated_line_and_fragment() {
    let corpus = generated_corpus(99, 200_000);
    for (number, line) in corpus.split_inclusive('\n').enumerate() {
        let ours = count_exact(line);
        let reference = tiktoken_rs::o200k_base_singleton()
            .encode_ordinary(line)
            .len();
        assert_eq!(ours, reference, "line {number}: {line:?}");
    }
    for fragment in FRAGMENTS {
        assert_equal_to_reference(fragment, fragment);
    }
}

#[test]
fn equals_reference_on_repository_sources() {
    let text = repository_text(1_000_000);
    assert!(!text.is_empty(), "repository files were found");
    assert_equal_to_reference("repository sources", &text);
}

#[test]
fn equals_reference_on_long_single_character_runs() {
    for (label, unit, repeat) in [
        ("256 KiB of 'a'", "a", 256 * 1024),
        ("200 KB of spaces", " ", 200_000),
        ("200 KB of tabs", "\t", 200_000),
        ("200 KB of newlines", "\n", 200_000),
        ("100 KB of '='", "=", 100_000),
        ("100 KB of '0'", "0", 100_000),
        ("50 K of 'é'", "é", 50_000),
        ("30 K of '漢'", "漢", 30_000),
        ("20 K of '😀'", "😀", 20_000),
    ] {
        let run = unit.repeat(repeat);
        assert_equal_to_reference(label, &run);
        assert_equal_to_reference(&format!("{label} then a word"), &format!("{run}word"));
        assert_equal_to_reference(&format!("a word then {label}"), &format!("word {run}"));
    }
}

#[test]
fn equals_reference_on_base64_and_minified_json() {
    let mut rng = SplitMix(7);
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let base64: String = (0..256 * 1024)
        .map(|_| B64[rng.below(64)] as char)
        .collect();
    assert_equal_to_reference("256 KiB random base64", &base64);
    let json: String = (0..5_000)
        .map(|i| {
            format!(
                "{{\"key{i}\":[{i},{},\"v{}\"],\"nested\":{{\"x\":null}}}},",
                i * 7,
                i % 13
            )
        })
        .collect();
    assert_equal_to_reference("minified JSON", &json);
}

#[test]
fn ten_megabyte_single_character_run_is_counted() {
    // Equality with the reference is proven above at 256 KiB; tiktoken-rs is too slow at 10 MB in a
    // debug test. Every implementation measured in ../shared/bench (including tiktoken) gives one
    // token per 8 `a`s on such runs (262,144 for 2 MiB), and so must we at 10 MiB.
    let run = "a".repeat(10 * 1024 * 1024);
    assert_eq!(count_exact(&run), 10 * 1024 * 1024 / 8);
    // One whitespace run of 1 MiB panics in tiktoken-rs with o200k; it must not here. Spaces
    // merge 128 at a time (8,192 tokens for 1 MiB, as measured with bpe-openai and cl100k).
    let spaces = " ".repeat(1024 * 1024);
    assert_eq!(count_exact(&spaces), 8_192);
}

#[test]
fn safe_chunks_cover_the_text_exactly() {
    let corpus = generated_corpus(3, 400_000);
    let chunks: Vec<&str> = safe_chunks(&corpus, 64 * 1024).collect();
    assert!(chunks.len() > 2, "the corpus was split");
    assert_eq!(chunks.concat(), corpus);
}

/// Characters that exercise every pre-tokenizer alternative and the look-ahead emulation.
const TRICKY: &[&str] = &[
    " ",
    "  ",
    "\t",
    "\n",
    "\r",
    "\r\n",
    "\u{a0}",
    "\u{3000}",
    "\u{2028}",
    "\u{85}",
    "\u{b}",
    "\u{c}",
    "a",
    "b",
    "s",
    "t",
    "A",
    "B",
    "S",
    "T",
    "é",
    "É",
    "\u{301}",
    "\u{2b0}",
    "ǅ",
    "漢",
    "ー",
    "1",
    "٣",
    "½",
    "'",
    "\"",
    "/",
    "//",
    "<",
    "|",
    ">",
    "-",
    ".",
    ",",
    "_",
    "😀",
    "👍🏽",
    "\u{200d}",
    "\u{0}",
    "'s",
    "'S",
    "'ll",
    "'LL",
    "'d",
    "'re",
    "'ve",
    "'m",
    "<|endoftext|>",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn equals_reference_on_arbitrary_short_strings(text in any::<String>()) {
        prop_assert_eq!(count_exact(&text), reference_count(&text));
    }

    #[test]
    fn equals_reference_on_tricky_mixtures(parts in prop::collection::vec(prop::sample::select(TRICKY), 0..200)) {
        let text = parts.concat();
        prop_assert_eq!(count_exact(&text), reference_count(&text), "text {:?}", text);
    }

    #[test]
    fn never_panics_and_till_limit_agrees(text in "(?s).{0,2000}", limit in 0usize..600) {
        let exact = count_exact(&text);
        let expected = (exact <= limit).then_some(exact);
        prop_assert_eq!(count_exact_till_limit(&text, limit), expected);
    }
}
