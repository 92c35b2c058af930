//! Histories as JavaScript writes them (issue 18): lone surrogate escapes reach every method, the
//! server stays alive, returned messages are the bytes the host sent (plus the tags the sidecar
//! adds), and token counts equal the reference tokenizer on the text with each lone surrogate
//! read as U+FFFD, as the original's tokenizer reads it.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

use crate::raw::{RawServer, elements, lenient, member, span};

/// A history in JSON.stringify's spelling: characters raw (😀 is a UTF-16 pair), lone
/// surrogates as escapes, high and low, in texts, tool inputs (keys too), tool results and ids.
const HISTORY: &[&str] = &[
    r#"{"role":"user","content":[{"type":"text","text":"<task>fix \ud83d the \udc00 bug 😀 \ude00\ud83d end\ud83d</task>"}],"ts":1000}"#,
    r#"{"role":"assistant","content":[{"type":"text","text":"reading\udbff"},{"type":"tool_use","id":"toolu_\ud800","name":"read_file","input":{"path":"src/\ud83d.ts","k\udfff":["\ud83d😀",1.5,{"n\udc00":null}]}},{"type":"tool_use","id":"toolu_2","name":"list_files","input":{"path":"\udc00"}}],"ts":1001}"#,
    r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_\ud800","content":"out \ud83d put"},{"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"\udc00😀\ud83d"}]}],"ts":1002}"#,
    r#"{"role":"assistant","content":"plain \ud83d string with \u{FDD0} and \u{F0000} kept","ts":1003,"providerField":{"x\ud800":"\udfff"}}"#,
    r#"{"role":"user","content":[{"type":"text","text":"next \uDBFF step \uDc01"}],"ts":1004}"#,
    r#"{"role":"assistant","content":[{"type":"text","text":"done \ud83d"}],"ts":1005}"#,
    r#"{"role":"user","content":[{"type":"text","text":"again\udc00"}],"ts":1006}"#,
    r#"{"role":"assistant","content":[{"type":"text","text":"ok \ud83d😀"}],"ts":1007}"#,
];

/// The history as the host's JSON array, with the sentinel-like characters written raw.
fn history() -> Vec<String> {
    HISTORY
        .iter()
        .map(|m| {
            m.replace(r"\u{FDD0}", "\u{FDD0}")
                .replace(r"\u{F0000}", "\u{F0000}")
        })
        .collect()
}

fn history_json() -> String {
    format!("[{}]", history().join(","))
}

/// Removes the tags the sidecar adds to a hidden message (`,"condenseParent":"…"` and
/// `,"truncationParent":"…"` as the last members), so the rest can be compared byte for byte.
fn without_added_tags(message: &[u8]) -> Vec<u8> {
    let mut bytes = message.to_vec();
    for tag in [&b",\"condenseParent\":\""[..], b",\"truncationParent\":\""] {
        if let Some(at) = bytes.windows(tag.len()).rposition(|w| w == tag) {
            let rest = &bytes[at + tag.len()..];
            let close = rest.iter().position(|b| *b == b'"').unwrap();
            if &rest[close + 1..] == b"}" {
                bytes.truncate(at);
                bytes.push(b'}');
            }
        }
    }
    bytes
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_same_messages(returned: &[&[u8]], sent: &[String]) {
    assert_eq!(returned.len(), sent.len(), "message count");
    for (returned, sent) in returned.iter().zip(sent) {
        assert_eq!(
            text(&without_added_tags(returned)),
            *sent,
            "a message came back changed"
        );
    }
}

/// The UTF-16 units of a JSON string literal (`"..."`), as JavaScript's JSON.parse reads it.
fn js_units(literal: &str) -> Vec<u16> {
    let inner = &literal[1..literal.len() - 1];
    let mut units = Vec::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            units.extend(c.encode_utf16(&mut [0; 2]).iter());
            continue;
        }
        match chars.next().unwrap() {
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                units.push(u16::from_str_radix(&hex, 16).unwrap());
            }
            'n' => units.push(10),
            't' => units.push(9),
            'r' => units.push(13),
            'b' => units.push(8),
            'f' => units.push(12),
            other => units.push(other as u16),
        }
    }
    units
}

/// The reference count (tiktoken-rs o200k_base) of what the original's tokenizer sees.
fn reference_tokens(text: &str) -> usize {
    use std::sync::OnceLock;
    static BPE: OnceLock<tiktoken_rs::CoreBPE> = OnceLock::new();
    BPE.get_or_init(|| tiktoken_rs::o200k_base().unwrap())
        .encode_ordinary(text)
        .len()
}

/// What the model sees of a JSON string literal: lone surrogates as U+FFFD.
fn seen(literal: &str) -> String {
    String::from_utf16_lossy(&js_units(literal))
}

#[test]
fn history_methods_return_the_host_bytes_and_the_server_lives_on() {
    let mut server = RawServer::start();
    let sent = history();
    let params = format!(r#"{{"messages":{}}}"#, history_json());

    let result = server.result("roo/history/effective", &params);
    assert_same_messages(&elements(span(&result, &["messages"])), &sent);
    server.assert_alive();

    let merge = format!(
        r#"{{"messages":{},"roles":["user","assistant"]}}"#,
        history_json()
    );
    let result = server.result("roo/history/merge", &merge);
    assert_same_messages(&elements(span(&result, &["messages"])), &sent);
    server.assert_alive();

    // Two consecutive user messages are merged: their blocks come back byte for byte.
    let pair = format!("[{},{}]", sent[4], sent[6]);
    let result = server.result(
        "roo/history/merge",
        &format!(r#"{{"messages":{pair},"roles":["user"]}}"#),
    );
    let merged = elements(span(&result, &["messages"]));
    assert_eq!(merged.len(), 1);
    let blocks = elements(member(merged[0], "content").unwrap());
    assert_eq!(
        text(blocks[0]),
        r#"{"type":"text","text":"next \uDBFF step \uDc01"}"#
    );
    assert_eq!(text(blocks[1]), r#"{"type":"text","text":"again\udc00"}"#);
    server.assert_alive();

    let rewind = format!(
        r#"{{"uiMessages":[{{"ts":1000,"type":"say","say":"text","text":"a\ud83d"}},{{"ts":1004,"type":"say","say":"text"}}],"apiMessages":{},"ts":1004}}"#,
        history_json()
    );
    let result = server.result("roo/history/rewind", &rewind);
    let kept = elements(span(&result, &["apiMessages"]));
    assert!(
        !kept.is_empty() && kept.len() < sent.len(),
        "{}",
        text(&result)
    );
    assert_same_messages(&kept, &sent[..kept.len()]);
    server.assert_alive();
}

#[test]
fn token_counts_equal_the_reference_on_the_text_the_model_sees() {
    let mut server = RawServer::start();
    for literal in [
        r#""a\ud83d b""#,
        r#""x\udc00y""#,
        r#""\ud83d""#,
        r#""\udc00\ud83d""#,
        r#""\ud83d\ude00 escaped pair""#,
        r#""\uD83D upper \uDBFF\uDBFF""#,
        "\"raw \u{FDD0} sentinel \u{FDD0}\u{FDD0} and tag \u{F0000}\u{FDD0}\u{F0001}\"",
        r#""<|endoftext|>\ud800""#,
    ] {
        let result =
            lenient(&server.result("roo/tokens/count", &format!(r#"{{"text":{literal}}}"#)));
        assert_eq!(
            result["total"].as_u64().unwrap() as usize,
            reference_tokens(&seen(literal)),
            "{literal}"
        );
    }
    // Whole messages: text blocks as seen; a tool input as JSON.stringify writes it (a lone
    // surrogate is its six-character escape there); tool results line by line.
    let sent = history();
    let params = format!(
        r#"{{"messages":{},"mode":"exact","effective":false}}"#,
        history_json()
    );
    let result = lenient(&server.result("roo/tokens/count", &params));
    let per_message: Vec<usize> = result["perMessage"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["tokens"].as_u64().unwrap() as usize)
        .collect();
    let text_of = |message: &str, path: &[&str]| {
        let bytes = span(message.as_bytes(), path);
        seen(&text(bytes))
    };
    let first = elements(span(sent[0].as_bytes(), &["content"]));
    assert_eq!(
        per_message[0],
        reference_tokens(&seen(&text(member(first[0], "text").unwrap())))
    );
    let blocks = elements(span(sent[1].as_bytes(), &["content"]));
    let input = text(member(blocks[1], "input").unwrap());
    let expected = reference_tokens(&seen(&text(member(blocks[0], "text").unwrap())))
        + reference_tokens(&format!("Tool: read_file\nArguments: {input}"))
        + reference_tokens(
            r#"Tool: list_files
Arguments: {"path":"\udc00"}"#,
        );
    assert_eq!(
        per_message[1], expected,
        "tool inputs as JSON.stringify writes them"
    );
    let results = elements(span(sent[2].as_bytes(), &["content"]));
    let expected = reference_tokens(&format!(
        "Tool Result ({})\n{}",
        seen(r#""toolu_\ud800""#),
        seen(&text(member(results[0], "content").unwrap()))
    )) + reference_tokens(&format!(
        "Tool Result (toolu_2)\n{}",
        seen(r#""\udc00😀\ud83d""#)
    ));
    assert_eq!(per_message[2], expected, "tool results as seen");
    assert_eq!(
        per_message[3],
        reference_tokens(&text_of(&sent[3], &["content"]))
    );
    server.assert_alive();
}

#[test]
fn condense_returns_every_message_byte_for_byte_and_the_host_sees_its_escapes() {
    let mut server = RawServer::start();
    server.set_host(Box::new(|method, _, _| {
        assert_eq!(method, "roo/host/summarize");
        r#"{"text":"1. Primary Request: fix \ud83d bug","cost":0.01}"#.to_owned()
    }));
    let params = format!(
        r#"{{"trigger":"manual","messages":{},"contextWindow":200000,"maxTokens":8192,"tokenCountMode":"exact","timeoutMs":20000}}"#,
        history_json()
    );
    let result = server.result("roo/context/manage", &params);
    let value = lenient(&result);
    assert_eq!(value["action"], "condensed", "{}", text(&result));
    let messages = elements(span(&result, &["messages"]));
    let sent = history();
    assert_same_messages(&messages[..sent.len()], &sent);
    let summary = text(messages[sent.len()]);
    assert!(summary.contains(r"fix \ud83d bug"), "{summary}");
    let request = text(&server.host_requests[0]);
    assert!(
        request.contains(r"fix \ud83d the \udc00 bug 😀 \ude00\ud83d end\ud83d"),
        "the summarize request carries the host's escapes: {request}"
    );
    server.assert_alive();
}

#[test]
fn truncation_returns_every_message_byte_for_byte() {
    let mut server = RawServer::start();
    let params = format!(
        r#"{{"trigger":"automatic","messages":{},"contextWindow":10000,"maxTokens":1000,"totalTokens":9990,"autoCondenseContext":false,"tokenCountMode":"exact"}}"#,
        history_json()
    );
    let result = server.result("roo/context/manage", &params);
    let value = lenient(&result);
    assert_eq!(value["action"], "truncated", "{}", text(&result));
    let messages: Vec<&[u8]> = elements(span(&result, &["messages"]))
        .into_iter()
        .filter(|m| member(m, "isTruncationMarker").is_none())
        .collect();
    assert_same_messages(&messages, &history());
    assert!(
        messages
            .iter()
            .any(|m| member(m, "truncationParent").is_some())
    );
    server.assert_alive();
}

#[test]
fn an_escaped_pair_is_the_character() {
    let mut server = RawServer::start();
    let result = server.result(
        "roo/history/effective",
        r#"{"messages":[{"role":"user","content":"\ud83d\ude00 \ud83d\ude00\ude00"}]}"#,
    );
    // JSON.stringify never escapes a pair: the same string, in its spelling.
    assert_eq!(
        text(span(&result, &["messages"])),
        r#"[{"role":"user","content":"😀 😀\ude00"}]"#
    );
}

/// JSON.stringify of UTF-16 units.
fn js_stringify(units: &[u16]) -> String {
    let mut out = String::from("\"");
    for unit in char::decode_utf16(units.iter().copied()) {
        match unit {
            Ok('"') => out.push_str("\\\""),
            Ok('\\') => out.push_str("\\\\"),
            Ok('\n') => out.push_str("\\n"),
            Ok('\t') => out.push_str("\\t"),
            Ok('\r') => out.push_str("\\r"),
            Ok('\u{8}') => out.push_str("\\b"),
            Ok('\u{c}') => out.push_str("\\f"),
            Ok(c) if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            Ok(c) => out.push(c),
            Err(lone) => out.push_str(&format!("\\u{:04x}", lone.unpaired_surrogate())),
        }
    }
    out.push('"');
    out
}

/// Random JavaScript strings: characters, lone surrogates, the server's own marker characters.
fn js_strings() -> impl Strategy<Value = Vec<u16>> {
    prop::collection::vec(
        prop_oneof![
            4 => any::<char>().prop_map(|c| c as u32),
            2 => 0xD800u32..0xE000,
            1 => Just(0xFDD0u32),
            1 => 0xF0000u32..0xF8000,
            1 => prop::sample::select(vec![0u32, 0x22, 0x5C, 0x0A, 0x20]),
        ],
        0..40,
    )
    .prop_map(|codes| {
        let mut units = Vec::new();
        for code in codes {
            match char::from_u32(code) {
                Some(c) => units.extend(c.encode_utf16(&mut [0; 2]).iter()),
                None => units.push(code as u16),
            }
        }
        units
    })
}

#[test]
fn random_strings_with_lone_surrogates_round_trip_and_count_like_the_reference() {
    let server = std::cell::RefCell::new(RawServer::start());
    let mut runner = TestRunner::new(Config {
        cases: 128,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&(js_strings(), js_strings()), |(a, b)| {
            let a = js_stringify(&a);
            let b = js_stringify(&b);
            let message = format!(
                r#"{{"role":"assistant","content":[{{"type":"text","text":{a}}},{{"type":"tool_use","id":{b},"name":"t","input":{{{b}:[{a}]}}}}],"ts":1}}"#
            );
            let result = server.borrow_mut().result(
                "roo/history/effective",
                &format!(r#"{{"messages":[{message}]}}"#),
            );
            let returned = elements(span(&result, &["messages"]));
            prop_assert_eq!(text(returned[0]), message);
            let count = server
                .borrow_mut()
                .result("roo/tokens/count", &format!(r#"{{"text":{a}}}"#));
            let count = lenient(&count);
            prop_assert_eq!(
                count["total"].as_u64().unwrap() as usize,
                reference_tokens(&seen(&a))
            );
            Ok(())
        })
        .unwrap();
    server.borrow_mut().assert_alive();
}

#[test]
fn the_cli_reads_histories_with_lone_surrogates() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("api_conversation_history.json");
    std::fs::write(&file, history_json()).unwrap();
    let output = std::process::Command::new(crate::harness::binary())
        .args(["history", "effective"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    // Pretty-printed, so compare the messages once compacted by their lexical shape.
    let printed = text(&output.stdout);
    let compact: String = compact_json(&printed);
    assert_eq!(compact, history_json());

    let output = std::process::Command::new(crate::harness::binary())
        .arg("tokens")
        .arg(&file)
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout).trim().parse::<usize>().unwrap(),
        reference_tokens(&history_json())
    );
    // A text file holding the server's marker characters counts them as characters.
    let raw = dir.path().join("notes.txt");
    let notes = "a \u{FDD0}\u{F0000} b \u{FDD0}\u{FDD0}";
    std::fs::write(&raw, notes).unwrap();
    let output = std::process::Command::new(crate::harness::binary())
        .arg("tokens")
        .arg(&raw)
        .output()
        .unwrap();
    assert_eq!(
        text(&output.stdout).trim().parse::<usize>().unwrap(),
        reference_tokens(notes)
    );
}

/// Removes the whitespace outside strings.
fn compact_json(pretty: &str) -> String {
    let mut out = String::new();
    let mut in_string = false;
    let mut escaped = false;
    for c in pretty.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    out
}

#[test]
fn a_path_with_a_lone_surrogate_is_judged_as_the_file_node_would_open() {
    // Node turns a lone surrogate into U+FFFD when it makes a file name; the rule must see the
    // same name, or a pattern that matches the real file would be missed.
    let fixture = crate::harness::Fixture::new(&[
        (".rooignore", "secret\u{FFFD}.txt\n*.env\n"),
        ("secret\u{FFFD}.txt", "key"),
        ("a\u{FFFD}.env", "key"),
        ("ok.txt", "fine"),
    ]);
    let mut server = RawServer::start_in(Some(fixture.root()));
    let result = server.result(
        "roo/ignore/validateAccess",
        r#"{"paths":["secret\ud800.txt","a\udc00.env","ok\ud83d.txt","ok.txt"]}"#,
    );
    let allowed: Vec<bool> = lenient(&result)["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["allowed"].as_bool().unwrap())
        .collect();
    assert_eq!(allowed, [false, false, true, true], "{}", text(&result));
    server.assert_alive();
}

#[test]
fn mentions_keep_the_hosts_lone_surrogates_and_read_the_file_node_would_open() {
    let fixture = crate::harness::Fixture::new(&[("src/a\u{FFFD}.ts", "export const x = 1;\n")]);
    let mut server = RawServer::start_in(Some(fixture.root()));
    let result = server.result(
        "roo/mentions/parse",
        r#"{"text":"Fix \ud83d @/src/a\udc00.ts now \udc00"}"#,
    );
    let text_out = text(span(&result, &["text"]));
    assert!(
        text_out.starts_with(r#""Fix \ud83d "#) && text_out.ends_with(r#" now \udc00""#),
        "{text_out}"
    );
    let value = lenient(&result);
    assert!(
        value["contentBlocks"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .contains("export const x = 1;"),
        "{value}"
    );
    server.assert_alive();
}
