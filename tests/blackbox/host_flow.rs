//! The requests for a host that runs the original's context-management flow with its own parts
//! (the Roo-family adapters): `roo/context/willManage`'s plan, one condense on request
//! (`roo/context/condense`, the summary written through `roo/host/summarize`), the sliding window
//! alone (`roo/history/truncate`) and the cleanup of dangling tags (`roo/history/cleanup`).

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

fn server() -> (Fixture, Server) {
    let fixture = Fixture::new(&[]);
    let server = Server::start_in_process(&[fixture.root()], Value::Null);
    (fixture, server)
}

fn turns(count: usize) -> Vec<Value> {
    (0..count)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            json!({"role": role, "content": format!("message {i}"), "ts": 100 + i, "keep": {"i": i}})
        })
        .collect()
}

#[test]
fn will_manage_gives_the_plan_of_an_automatic_run() {
    let (_fixture, mut server) = server();
    let base = json!({"totalTokens": 59991, "lastMessageTokens": 10, "contextWindow": 100000,
        "maxTokens": 30000, "autoCondenseContext": true, "autoCondenseContextPercent": 100});
    let result = server.call("roo/context/willManage", base.clone());
    assert_eq!(result["willManage"], true);
    assert_eq!(
        result["shouldCondense"], true,
        "over budget condenses first"
    );
    assert_eq!(result["overBudget"], true);
    assert_eq!(result["truncateFraction"], 0.5);
    assert!(result.get("warnings").is_none());

    // Auto-condense off: truncation only.
    let mut off = base.clone();
    off["autoCondenseContext"] = json!(false);
    let result = server.call("roo/context/willManage", off);
    assert_eq!(
        (
            result["shouldCondense"].clone(),
            result["overBudget"].clone()
        ),
        (json!(false), json!(true))
    );

    // Under budget, at an (invalid) profile threshold: the global one, with the original's note.
    let mut under = base;
    under["totalTokens"] = json!(40000);
    under["profileThresholds"] = json!({"p": 3});
    under["currentProfileId"] = json!("p");
    let result = server.call("roo/context/willManage", under);
    assert_eq!(result["willManage"], false);
    assert_eq!(result["shouldCondense"], false);
    assert_eq!(result["overBudget"], false);
    assert_eq!(result["warnings"].as_array().unwrap().len(), 1, "{result}");
}

#[test]
fn condense_asks_the_host_once_and_tags_the_history() {
    let (_fixture, mut server) = server();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    server.set_host(Box::new(move |method, params| {
        assert_eq!(method, "roo/host/summarize");
        record.lock().unwrap().push(params.clone());
        Ok(json!({"text": "  Summary text. ", "cost": 0.05, "outputTokens": 4}))
    }));
    let mut messages = turns(5);
    messages[0]["content"] = json!("Start <command name=\"prr\">/prr #1</command>");
    let result = server.call(
        "roo/context/condense",
        json!({"messages": messages, "automatic": true, "taskId": "t1",
               "metadata": {"tag": 7},
               "environmentDetails": "<environment_details>env</environment_details>",
               "foldedFileSections": ["<system-reminder>folded</system-reminder>", "  "]}),
    );
    assert_eq!(result["changed"], true, "{result}");
    assert_eq!(result["summary"], "Summary text.");
    assert_eq!(result["cost"], 0.05);
    let id = result["condenseId"].as_str().unwrap().to_owned();
    let history = result["messages"].as_array().unwrap();
    assert_eq!(history.len(), 6);
    for (before, after) in messages.iter().zip(history) {
        let mut expected = before.clone();
        expected["condenseParent"] = json!(id);
        assert_eq!(after, &expected);
    }
    let summary = &history[5];
    assert_eq!(summary["isSummary"], true);
    assert_eq!(summary["ts"], 105);
    let texts: Vec<&str> = summary["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts.len(), 4, "{texts:?}");
    assert_eq!(texts[0], "## Conversation Summary\nSummary text.");
    assert!(texts[1].contains("<command name=\"prr\">/prr #1</command>"));
    assert_eq!(texts[2], "<system-reminder>folded</system-reminder>");
    assert_eq!(texts[3], "<environment_details>env</environment_details>");
    assert!(result["summaryTokens"].as_u64().unwrap() > 0);

    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0]["trigger"], "automatic");
    assert_eq!(seen[0]["taskId"], "t1");
    assert_eq!(seen[0]["metadata"], json!({"tag": 7}));
    let request = seen[0]["messages"].as_array().unwrap();
    assert_eq!(request.len(), 6, "the history and the instructions");
    assert!(
        request[5]["content"]
            .as_str()
            .unwrap()
            .contains("Your task is to create a detailed summary of the conversation")
    );
}

#[test]
fn condense_failures_leave_the_history_alone() {
    let (_fixture, mut server) = server();
    let asked = Arc::new(Mutex::new(0));
    let count = asked.clone();
    server.set_host(Box::new(move |_, _| {
        *count.lock().unwrap() += 1;
        Err((-32601, "no summarizer".into()))
    }));
    // Guards: nothing is asked.
    let result = server.call("roo/context/condense", json!({"messages": turns(1)}));
    assert_eq!(result["changed"], false);
    assert!(result.get("messages").is_none());
    assert_eq!(result["error"], "Not enough messages to condense context");
    let mut recent = turns(3);
    recent[1]["isSummary"] = json!(true);
    let result = server.call("roo/context/condense", json!({"messages": recent}));
    assert_eq!(
        result["error"],
        "Context was condensed recently; skipping this attempt"
    );
    assert_eq!(*asked.lock().unwrap(), 0);

    // No summarizer: the original's invalid-handler error, and the next call asks again.
    for expected in 1..=2 {
        let result = server.call("roo/context/condense", json!({"messages": turns(4)}));
        assert_eq!(
            result["error"],
            "API handler for condensing context is invalid"
        );
        assert_eq!(*asked.lock().unwrap(), expected);
    }

    // A provider error, and an empty answer.
    server.set_host(Box::new(|_, _| {
        Ok(json!({"text": "", "cost": 0.5, "error": {"message": "boom", "status": 500}}))
    }));
    let result = server.call("roo/context/condense", json!({"messages": turns(4)}));
    assert_eq!(result["error"], "Condensing API call failed: boom");
    assert_eq!(result["errorDetails"], "Error: boom\n\nHTTP Status: 500");
    assert_eq!(result["cost"], 0.5);
    server.set_host(Box::new(|_, _| Ok(json!({"text": "   ", "cost": 0.1}))));
    let result = server.call("roo/context/condense", json!({"messages": turns(4)}));
    assert_eq!(result["error"], "Failed to condense context");
    assert_eq!(result["cost"], 0.1);
}

#[test]
fn truncate_hides_an_even_share_of_the_visible_messages() {
    let (_fixture, mut server) = server();
    let messages = turns(5);
    let result = server.call(
        "roo/history/truncate",
        json!({"messages": messages, "fraction": 0.5}),
    );
    assert_eq!(result["changed"], true);
    assert_eq!(result["messagesRemoved"], 2);
    let id = result["truncationId"].as_str().unwrap();
    let history = result["messages"].as_array().unwrap();
    assert_eq!(history.len(), 6);
    assert_eq!(history[0], messages[0]);
    assert_eq!(history[1]["truncationParent"], id);
    assert_eq!(history[2]["truncationParent"], id);
    assert_eq!(
        history[3],
        json!({"role": "user", "content": "[Sliding window truncation: 2 messages hidden to reduce context]",
               "ts": 102, "isTruncationMarker": true, "truncationId": id})
    );
    assert_eq!(history[4], messages[3]);
    assert_eq!(result["visibleIndices"], json!([0, 4, 5]));

    // Again on the result: the hidden messages and the marker are not counted again.
    let again = server.call(
        "roo/history/truncate",
        json!({"messages": history, "fraction": 1.0}),
    );
    assert_eq!(again["messagesRemoved"], 2);
    assert_eq!(
        again["messages"].as_array().unwrap().len(),
        7,
        "a second marker, at the end"
    );
    assert_eq!(again["visibleIndices"], json!([0]));

    // An odd share rounds down to nothing: unchanged, no marker, still an id.
    let result = server.call(
        "roo/history/truncate",
        json!({"messages": turns(3), "fraction": 0.5}),
    );
    assert_eq!(result["changed"], false);
    assert_eq!(result["messages"], json!(turns(3)));
    assert_eq!(result["truncationId"].as_str().unwrap().len(), 36);
    let error = server
        .request(
            "roo/history/truncate",
            json!({"messages": [], "fraction": "half"}),
        )
        .unwrap_err();
    assert_eq!(error["code"], -32602);
}

#[test]
fn cleanup_clears_only_dangling_tags() {
    let (_fixture, mut server) = server();
    let messages = json!([
        {"role": "user", "content": "a", "ts": 1, "condenseParent": "gone", "x": 1},
        {"role": "assistant", "content": "b", "ts": 2, "condenseParent": "s1"},
        {"role": "user", "content": "c", "ts": 3, "truncationParent": "m-gone"},
        {"role": "user", "content": "summary", "ts": 4, "isSummary": true, "condenseId": "s1"}
    ]);
    let result = server.call("roo/history/cleanup", json!({"messages": messages}));
    assert_eq!(result["changed"], true);
    assert_eq!(result["changedIndices"], json!([0, 2]));
    assert_eq!(
        result["messages"][0],
        json!({"role": "user", "content": "a", "ts": 1, "x": 1})
    );
    assert_eq!(result["messages"][1], messages[1]);
    assert_eq!(
        result["messages"][2],
        json!({"role": "user", "content": "c", "ts": 3})
    );
    let clean = server.call(
        "roo/history/cleanup",
        json!({"messages": [messages[1], messages[3]]}),
    );
    assert_eq!(clean["changed"], false);
    assert_eq!(clean["changedIndices"], json!([]));
}

#[test]
fn the_summarize_request_helpers_answer_like_the_original() {
    let (_fixture, mut server) = server();
    let messages = json!([
        {"role": "assistant", "content": [
            {"type": "text", "text": "reading"},
            {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "a.ts", "range": {"start": 1}}},
            {"type": "tool_use", "id": "t2", "name": "list_files", "input": {}}], "ts": 5},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": true, "content": [
                {"type": "text", "text": "no such file"}, {"type": "image", "source": {}}]}], "ts": 6, "extra": 1}
    ]);
    let result = server.call(
        "roo/history/toolBlocksAsText",
        json!({"messages": messages}),
    );
    assert_eq!(result["changed"], true);
    assert_eq!(
        result["messages"][0]["content"],
        json!([{"type": "text", "text": "reading"},
               {"type": "text", "text": "[Tool Use: read_file]\npath: a.ts\nrange: {\n  \"start\": 1\n}"},
               {"type": "text", "text": "[Tool Use: list_files]\n"}])
    );
    assert_eq!(
        result["messages"][1],
        json!({"role": "user", "content": [{"type": "text", "text": "[Tool Result (Error)]\nno such file\n[Image]"}], "ts": 6, "extra": 1})
    );

    let result = server.call(
        "roo/history/injectSyntheticToolResults",
        json!({"messages": messages}),
    );
    assert_eq!(result["changed"], true);
    let added = &result["messages"][2];
    assert_eq!(added["role"], "user");
    assert_eq!(
        added["content"],
        json!([{"type": "tool_result", "tool_use_id": "t2", "content": "Context condensation triggered. Tool execution deferred."}])
    );
    assert!(added["ts"].as_u64().unwrap() > 1_700_000_000_000);
    let answered = server.call(
        "roo/history/injectSyntheticToolResults",
        json!({"messages": result["messages"]}),
    );
    assert_eq!(answered["changed"], false);

    let result = server.call(
        "roo/history/commandBlocks",
        json!({"message": {"role": "user", "content": [
            {"type": "text", "text": "a <command name=\"x\">/x</command>"},
            {"type": "text", "text": "<command>\nmulti\n</command> b"}]}}),
    );
    assert_eq!(
        result["text"],
        "<command name=\"x\">/x</command>\n<command>\nmulti\n</command>"
    );
    let none = server.call(
        "roo/history/commandBlocks",
        json!({"message": {"role": "user", "content": "plain"}}),
    );
    assert_eq!(none["text"], "");
}
