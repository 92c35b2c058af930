//! Conversation history and tokens over stdio: the effective history, byte-exact round trips of
//! unknown fields, merge, rewind (including the emergency summary the original could not remove)
//! and token counts with a per-message breakdown.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server, binary};

fn server() -> (Fixture, Server) {
    let fixture = Fixture::new(&[]);
    let server = Server::start(&[fixture.root()], Value::Null);
    (fixture, server)
}

fn history() -> Value {
    json!([
        {"role": "user", "content": "first task", "ts": 1, "providerField": {"x": [1, 2.5]}},
        {"role": "assistant", "content": [{"type": "reasoning", "text": "hmm", "signature": "abc"}, {"type": "text", "text": "ok"}], "ts": 2, "condenseParent": "c1"},
        {"role": "user", "content": [{"type": "text", "text": "## Conversation Summary\nsummary"}], "ts": 3, "isSummary": true, "condenseId": "c1"},
        {"role": "assistant", "content": "after", "ts": 4, "zFuture": true}
    ])
}

#[test]
fn effective_history_starts_fresh_after_the_summary_and_keeps_unknown_fields() {
    let (_fixture, mut server) = server();
    let result = server.call(
        "roo/history/effective",
        json!({"messages": history(), "includeSinceLastSummary": true}),
    );
    assert_eq!(result["sourceIndices"], json!([2, 3]));
    assert_eq!(result["changed"], true);
    assert_eq!(result["sinceLastSummaryCount"], 2);
    assert_eq!(
        serde_json::to_string(&result["messages"][1]).unwrap(),
        r#"{"role":"assistant","content":"after","ts":4,"zFuture":true}"#
    );
}

#[test]
fn a_history_without_summary_round_trips_byte_for_byte() {
    let (_fixture, mut server) = server();
    let input = json!([
        {"zFirst": 1, "role": "user", "content": [{"type": "future_block", "payload": {"b": 1, "a": 2}}], "ts": 10},
        {"role": "assistant", "content": "x", "ts": 11.5, "extra": null}
    ]);
    let result = server.call("roo/history/effective", json!({"messages": input}));
    assert_eq!(result["changed"], false);
    assert_eq!(
        serde_json::to_string(&result["messages"]).unwrap(),
        serde_json::to_string(&input).unwrap()
    );
}

#[test]
fn invalid_histories_name_the_field() {
    let (_fixture, mut server) = server();
    let error = server
        .request("roo/history/effective", json!({"messages": [1]}))
        .unwrap_err();
    assert_eq!(error["code"], -32602);
    assert!(
        error["message"].as_str().unwrap().contains("messages"),
        "{error}"
    );
    let error = server
        .request(
            "roo/history/merge",
            json!({"messages": [], "roles": ["robot"]}),
        )
        .unwrap_err();
    assert!(
        error["message"].as_str().unwrap().contains("roles[0]"),
        "{error}"
    );
    let error = server.request("roo/tokens/count", json!({})).unwrap_err();
    assert!(
        error["message"].as_str().unwrap().contains("`text`"),
        "{error}"
    );
}

#[test]
fn merge_joins_consecutive_user_messages_for_the_request_only() {
    let (_fixture, mut server) = server();
    let result = server.call(
        "roo/history/merge",
        json!({"messages": [{"role": "user", "content": "a", "ts": 1}, {"role": "user", "content": "b", "ts": 2}, {"role": "assistant", "content": "c"}]}),
    );
    assert_eq!(result["changed"], true);
    assert_eq!(result["messages"].as_array().unwrap().len(), 2);
    assert_eq!(result["messages"][0]["ts"], 2);
}

#[test]
fn rewind_removes_an_emergency_summary_whose_event_had_no_condense_id() {
    let (_fixture, mut server) = server();
    let api = json!([
        {"role": "user", "content": "task", "ts": 100, "condenseParent": "e1"},
        {"role": "assistant", "content": "work", "ts": 200, "condenseParent": "e1"},
        {"role": "user", "content": [{"type": "text", "text": "## Conversation Summary\nthe summary"}], "ts": 201, "isSummary": true, "condenseId": "e1"}
    ]);
    // The original's emergency path emitted its event without a condenseId.
    let ui = json!([
        {"ts": 100, "type": "say", "say": "text", "text": "task"},
        {"ts": 300, "type": "say", "say": "condense_context", "contextCondense": {"summary": "the summary", "cost": 0}},
    ]);
    let result = server.call(
        "roo/history/rewind",
        json!({"uiMessages": ui, "apiMessages": api, "ts": 300}),
    );
    assert_eq!(result["uiMessagesKept"], 1);
    assert_eq!(result["changed"], true);
    let kept = result["apiMessages"].as_array().unwrap();
    assert_eq!(kept.len(), 2, "the summary is gone: {kept:?}");
    assert!(
        kept.iter().all(|m| m.get("condenseParent").is_none()),
        "tags cleared: {kept:?}"
    );
}

#[test]
fn token_counts_for_text_blocks_and_histories() {
    let (_fixture, mut server) = server();
    let exact = server.call("roo/tokens/count", json!({"text": "Hello world"}));
    assert_eq!(exact["total"], 2);
    let estimate = server.call(
        "roo/tokens/count",
        json!({"text": "Hello world", "mode": "estimate"}),
    );
    assert_eq!(estimate["total"], 3);
    let image = server.call(
        "roo/tokens/count",
        json!({"blocks": [{"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "a".repeat(1000)}}]}),
    );
    assert_eq!(image["total"], 32);
    let whole = server.call("roo/tokens/count", json!({"messages": history()}));
    let per_message = whole["perMessage"].as_array().unwrap();
    assert_eq!(
        per_message
            .iter()
            .map(|m| m["index"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        vec![2, 3]
    );
    let sum: u64 = per_message
        .iter()
        .map(|m| m["tokens"].as_u64().unwrap())
        .sum();
    assert_eq!(whole["total"].as_u64().unwrap(), sum);
    let stored = server.call(
        "roo/tokens/count",
        json!({"messages": history(), "effective": false}),
    );
    assert_eq!(stored["perMessage"].as_array().unwrap().len(), 4);
    assert!(stored["total"].as_u64().unwrap() > whole["total"].as_u64().unwrap());
}

#[test]
fn tokens_and_history_command_lines() {
    let fixture = Fixture::new(&[("a.txt", "Hello world")]);
    let output = std::process::Command::new(binary())
        .args(["tokens"])
        .arg(fixture.path("a.txt"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), "2\n");
    let output = std::process::Command::new(binary())
        .args(["tokens", "--estimate"])
        .arg(fixture.path("a.txt"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), "3\n");
    fixture.write("history.json", &history().to_string());
    let output = std::process::Command::new(binary())
        .args(["history", "effective"])
        .arg(fixture.path("history.json"))
        .output()
        .unwrap();
    assert!(output.status.success());
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(printed.as_array().unwrap().len(), 2);
    let output = std::process::Command::new(binary())
        .args(["history", "effective"])
        .arg(fixture.path("a.txt"))
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
