//! Black-box tests of `roo/context/hygiene` (issue 31) over stdio: old command outputs masked
//! and a superseded read elided as tags the effective history applies, a rewind across a masked
//! message restoring it, a condense after masking whose summarize request sees placeholders,
//! and the held form answered as ops.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::harness::{Server, assert_invalid_field};

/// A line only the masked outputs hold, so a test can tell whether their bytes reached a request.
const BULK: &str = "BULKLINE";

/// A task, then five turns: a read of `a.rs`, three large command outputs, a re-read of `a.rs`
/// and a small command (each an assistant tool call and its result, timestamps 1001..).
fn trajectory() -> Vec<Value> {
    let mut messages =
        vec![json!({"role": "user", "content": "<task>fix the test</task>", "ts": 1000})];
    let bulk = format!("{BULK} {}\n", "word ".repeat(20)).repeat(60);
    let calls: Vec<(&str, Value, String)> = vec![
        (
            "read_file",
            json!({"path": "src/a.rs"}),
            "fn a() {} // first read".into(),
        ),
        (
            "execute_command",
            json!({"command": "cargo build"}),
            bulk.clone(),
        ),
        (
            "execute_command",
            json!({"command": "cargo test"}),
            bulk.clone(),
        ),
        ("execute_command", json!({"command": "cargo doc"}), bulk),
        (
            "read_file",
            json!({"path": "src/a.rs"}),
            "fn a() { 1 } // second read".into(),
        ),
        (
            "execute_command",
            json!({"command": "ls"}),
            "Cargo.toml".into(),
        ),
    ];
    for (n, (name, input, output)) in calls.into_iter().enumerate() {
        let id = format!("t{n}");
        let ts = 1001 + 2 * n as u64;
        messages.push(json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}], "ts": ts}));
        messages.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": output}], "ts": ts + 1, "providerField": {"keep": [1.0, 2]}}));
    }
    messages
}

fn shape(server: &mut Server, messages: &[Value]) -> Value {
    server.call(
        "roo/context/hygiene",
        json!({"messages": messages, "keepRecentTurns": 2, "maskAboveTokens": 200, "batchTokens": 1000}),
    )
}

/// The text the model sees of each tool result, from `roo/history/effective`.
fn seen_results(server: &mut Server, messages: &[Value]) -> Vec<String> {
    let effective = server.call("roo/history/effective", json!({"messages": messages}));
    effective["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .map(|b| b["content"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn hygiene_masks_old_outputs_elides_a_superseded_read_and_keeps_the_bytes() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let messages = trajectory();
    let result = shape(&mut server, &messages);
    assert_eq!(result["changed"], true, "{result}");
    let decisions: Vec<(String, String)> = result["decisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["toolUseId"].as_str().unwrap().into(),
                d["kind"].as_str().unwrap().into(),
            )
        })
        .collect();
    let pairs: Vec<(&str, &str)> = decisions
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("t0", "superseded"),
            ("t1", "masked"),
            ("t2", "masked"),
            ("t3", "masked")
        ]
    );
    assert_eq!(result["firstChangedIndex"], 2);
    assert_eq!(result["keptPrefixMessages"], 2);
    assert!(result["tokensAfter"].as_u64().unwrap() * 5 < result["tokensBefore"].as_u64().unwrap());

    // The stored messages are the host's, plus the tag; unknown fields untouched.
    let stored = result["messages"].as_array().unwrap();
    for (before, after) in messages.iter().zip(stored) {
        let mut after = after.clone();
        after.as_object_mut().unwrap().remove("contextHygiene");
        assert_eq!(&after, before);
    }
    assert_eq!(stored[4]["contextHygiene"][0]["kind"], "masked");

    // What the model sees: placeholders for the old results, the keep window whole.
    let seen = seen_results(&mut server, stored);
    assert_eq!(
        seen[0],
        "[Superseded read of src/a.rs: the later read_file (tool_use_id t4) has this file's newer content.]"
    );
    assert!(seen[1].starts_with("[Old tool output masked to save context: execute_command {\"command\":\"cargo build\"} returned "), "{}", seen[1]);
    assert!(seen[1..4].iter().all(|s| !s.contains(BULK)));
    assert_eq!(seen[4], "fn a() { 1 } // second read");
    assert_eq!(seen[5], "Cargo.toml");

    // Sticky: the same call again changes nothing and keeps the whole prefix.
    let again = shape(&mut server, stored);
    assert_eq!(again["changed"], false);
    assert_eq!(&again["messages"], &result["messages"]);
    assert_eq!(again["keptPrefixMessages"], 13);

    let error = server
        .request(
            "roo/context/hygiene",
            json!({"messages": messages, "keepRecentTurns": 0}),
        )
        .unwrap_err();
    assert_invalid_field(&error, "keepRecentTurns");
}

#[test]
fn hygiene_rewind_across_a_masked_message_restores_it() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let messages = trajectory();
    let masked = shape(&mut server, &messages)["messages"].clone();
    // The UI events, one per message; rewinding to the last turn (ts 1011) removes the newest
    // messages the decisions saw, so every decision is undone.
    let ui: Vec<Value> = messages
        .iter()
        .map(|m| json!({"ts": m["ts"], "type": "say", "say": "text"}))
        .collect();
    let rewound = server.call(
        "roo/history/rewind",
        json!({"uiMessages": ui, "apiMessages": masked, "ts": 1011}),
    );
    assert_eq!(rewound["changed"], true);
    let kept = rewound["apiMessages"].as_array().unwrap();
    assert_eq!(kept.as_slice(), &messages[..11]);
    let seen = seen_results(&mut server, kept);
    assert!(seen[1].contains(BULK), "restored: {}", seen[1]);
}

#[test]
fn hygiene_then_condense_sends_placeholders_to_the_summarizer() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    server.set_host(Box::new(move |method, params| {
        assert_eq!(method, "roo/host/summarize");
        record.lock().unwrap().push(params.clone());
        Ok(json!({"text": "What happened so far.", "cost": 0.1}))
    }));
    let masked = shape(&mut server, &trajectory())["messages"].clone();
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": masked, "contextWindow": 200000, "taskId": "t"}),
    );
    assert_eq!(result["action"], "condensed", "{result}");
    let seen = seen.lock().unwrap();
    let request = seen[0]["messages"].to_string();
    assert!(
        !request.contains(BULK),
        "masked bytes reached the summarizer"
    );
    assert!(
        request.contains("Old tool output masked to save context"),
        "{request}"
    );
    assert!(request.contains("second read"));
    // The condensed history still holds every byte and every decision.
    let history = result["messages"].as_array().unwrap();
    assert!(history[4]["content"].to_string().contains(BULK));
    assert_eq!(history[4]["contextHygiene"][0]["toolUseId"], "t1");
}

#[test]
fn hygiene_on_a_held_history_answers_ops() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let messages = trajectory();
    let opened = server.call(
        "roo/history/open",
        json!({"taskId": "h", "messages": messages}),
    );
    let full = shape(&mut server, &messages);
    let held = server.call(
        "roo/context/hygiene",
        json!({"history": {"taskId": "h", "version": opened["version"]},
               "keepRecentTurns": 2, "maskAboveTokens": 200, "batchTokens": 1000}),
    );
    assert_eq!(held["messages"], json!([]));
    let ops = held["history"]["ops"].as_array().unwrap();
    assert_eq!(ops.len(), 4, "{ops:?}");
    assert!(ops.iter().all(|op| op["op"] == "replace"));
    assert_eq!(held["decisions"], full["decisions"]);
    let read = server.call("roo/history/read", json!({"taskId": "h"}));
    assert_eq!(read["messages"], full["messages"]);
    assert_eq!(read["version"], held["history"]["version"]);

    // A rewind by reference across the masked messages: a truncate, then each message whose
    // decisions it undid given back as the host sent it.
    let ui: Vec<Value> = messages
        .iter()
        .map(|m| json!({"ts": m["ts"], "type": "say", "say": "text"}))
        .collect();
    let rewound = server.call(
        "roo/history/rewind",
        json!({"uiMessages": ui, "history": {"taskId": "h", "version": held["history"]["version"]}, "ts": 1011}),
    );
    let ops = rewound["history"]["ops"].as_array().unwrap();
    assert_eq!(ops[0], json!({"op": "truncate", "length": 11}));
    assert!(ops[1..].iter().all(|op| op["op"] == "replace"), "{ops:?}");
    let read = server.call("roo/history/read", json!({"taskId": "h"}));
    assert_eq!(
        read["messages"].as_array().unwrap().as_slice(),
        &messages[..11]
    );
}
