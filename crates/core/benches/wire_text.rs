//! What the lone-surrogate encoding costs per frame, against the parse the framework does anyway:
//! a ~10 MB history in JSON.stringify's spelling (prose, code, `\n` escapes, emoji), without and
//! with lone surrogates. Run: `cargo bench -p roo-context-core --bench wire_text`; compare each
//! row with `parse_value` of the same input.

use std::sync::LazyLock;

use divan::Bencher;
use roo_context_core::wire_text::{decode_json, encode_json};
use serde_json::Value;

fn main() {
    divan::main();
}

/// A history of `messages` messages; every 50th text holds a lone surrogate when `lone`.
fn history(lone: bool) -> Vec<u8> {
    let mut out = String::from("[");
    for i in 0..4000 {
        if i > 0 {
            out.push(',');
        }
        let surrogate = if lone && i % 50 == 0 { "\\ud83d" } else { "" };
        out.push_str(&format!(
            r#"{{"role":"user","content":[{{"type":"text","text":"step {i}: fn main() {{\n    println!(\"héllo 😀 {surrogate}\");\n}}\n{}"}},{{"type":"tool_result","tool_use_id":"toolu_{i}","content":"{}"}}],"ts":{i}}}"#,
            "lorem ipsum dolor sit amet ".repeat(40),
            "line of output\\n".repeat(60),
        ));
    }
    out.push(']');
    out.into_bytes()
}

static PLAIN: LazyLock<Vec<u8>> = LazyLock::new(|| history(false));
static LONE: LazyLock<Vec<u8>> = LazyLock::new(|| history(true));
static LONE_SERIALIZED: LazyLock<Vec<u8>> = LazyLock::new(|| {
    serde_json::from_slice::<Value>(&encode_json(&LONE))
        .unwrap()
        .to_string()
        .into_bytes()
});

#[divan::bench(args = ["plain", "lone"])]
fn parse_value(bencher: Bencher, input: &str) {
    let bytes: &[u8] = if input == "plain" { &PLAIN } else { &LONE };
    let bytes = encode_json(bytes).into_owned();
    bencher.bench(|| serde_json::from_slice::<Value>(divan::black_box(&bytes)).unwrap());
}

#[divan::bench(args = ["plain", "lone"])]
fn encode(bencher: Bencher, input: &str) {
    let bytes: &[u8] = if input == "plain" { &PLAIN } else { &LONE };
    bencher.bench(|| encode_json(divan::black_box(bytes)).len());
}

#[divan::bench]
fn decode_serialized_lone(bencher: Bencher) {
    bencher.bench(|| decode_json(divan::black_box(&LONE_SERIALIZED)).len());
}
