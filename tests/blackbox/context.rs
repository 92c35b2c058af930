//! Black-box tests of `roo/context/*` over stdio with a scripted test host answering
//! `roo/host/summarize`: success, host error, timeout, cancellation, an emergency condense that a
//! rewind undoes, zero-progress recovery on a 4 MB tool result, and an impossible budget.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

const SUMMARIZE: &str = "roo/host/summarize";

fn conversation(turns: usize, chars: usize) -> Vec<Value> {
    let mut messages = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "<task>refactor</task>"}], "ts": 1000}),
    ];
    for turn in 1..turns {
        let role = if turn % 2 == 1 { "assistant" } else { "user" };
        messages.push(json!({"role": role, "content": format!("turn {turn} {}", "word ".repeat(chars / 5)), "ts": 1000 + turn, "providerField": {"keep": [1.0, 2]}}));
    }
    messages
}

fn fixture() -> Fixture {
    Fixture::new(&[(
        "src/shapes.ts",
        "export function area(width: number, height: number): number {\n  const product = width * height;\n  // more\n  return product;\n}\n",
    )])
}

/// A host that answers every summarize request with `reply` and records the params.
fn answering_host(server: &mut Server, reply: Value) -> Arc<Mutex<Vec<Value>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    server.set_host(Box::new(move |method, params| {
        assert_eq!(method, SUMMARIZE);
        record.lock().unwrap().push(params.clone());
        Ok(reply.clone())
    }));
    seen
}

#[test]
fn context_manual_condense_asks_the_host_and_returns_the_summarized_history() {
    let fixture = fixture();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let seen = answering_host(
        &mut server,
        json!({"text": "  What happened so far.  ", "cost": 0.25, "outputTokens": 12}),
    );
    let messages = conversation(8, 400);
    let result = server.call(
        "roo/context/manage",
        json!({
            "trigger": "manual",
            "messages": messages,
            "systemPrompt": "You are Roo.",
            "contextWindow": 200000,
            "filesReadByRoo": ["src/shapes.ts"],
            "environmentDetails": "<environment_details>ignored on manual runs</environment_details>",
            "taskId": "task-1"
        }),
    );
    assert_eq!(result["changed"], true, "{result}");
    assert_eq!(result["action"], "condensed");
    assert_eq!(result["summary"], "What happened so far.");
    let condense_id = result["condenseId"].as_str().unwrap();
    assert_eq!(condense_id.len(), 36, "UUID v4: {condense_id}");
    assert_eq!(&condense_id[14..15], "4");

    let events = result["events"].as_array().unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["say"], "condense_context");
    assert_eq!(events[0]["contextCondense"]["condenseId"], condense_id);
    assert_eq!(events[0]["contextCondense"]["cost"], 0.25);
    assert!(
        events[0]["contextCondense"]["newContextTokens"]
            .as_u64()
            .unwrap()
            < events[0]["contextCondense"]["prevContextTokens"]
                .as_u64()
                .unwrap()
    );

    let history = result["messages"].as_array().unwrap();
    assert_eq!(history.len(), messages.len() + 1);
    for (before, after) in messages.iter().zip(history) {
        let mut expected = before.clone();
        expected["condenseParent"] = json!(condense_id);
        assert_eq!(after, &expected, "only tagged");
    }
    let summary = history.last().unwrap();
    assert_eq!(summary["isSummary"], true);
    assert_eq!(summary["ts"], 1008);
    assert_eq!(
        summary["content"][0]["text"],
        "## Conversation Summary\nWhat happened so far."
    );
    let rendered = summary["content"].to_string();
    assert!(
        rendered.contains("shapes.ts") && rendered.contains("area"),
        "{rendered}"
    );
    assert!(!rendered.contains("environment_details"));

    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    let request = &seen[0];
    assert!(
        request["systemPrompt"]
            .as_str()
            .unwrap()
            .starts_with("You are a helpful AI assistant tasked with summarizing conversations.")
    );
    assert_eq!(request["taskId"], "task-1");
    assert_eq!(request["trigger"], "manual");
    let sent = request["messages"].as_array().unwrap();
    assert_eq!(sent.len(), messages.len() + 1);
    assert_eq!(
        sent[1],
        json!({"role": "assistant", "content": messages[1]["content"]})
    );
    assert!(
        sent.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .starts_with("Your task is to create a detailed summary of the conversation")
    );
}

#[test]
fn context_host_error_keeps_the_history_and_reports_error_details() {
    let mut server = Server::start_in_process(&[], Value::Null);
    answering_host(
        &mut server,
        json!({"text": "", "cost": 0.01, "error": {"message": "500 \"Internal server error\"", "status": 500, "body": {"detail": "upstream"}}}),
    );
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": conversation(6, 100), "contextWindow": 100000}),
    );
    assert_eq!(result["changed"], false);
    assert!(
        result.get("messages").is_none(),
        "the host keeps its history: {result}"
    );
    assert_eq!(
        result["error"],
        "Condensing API call failed: 500 \"Internal server error\""
    );
    assert_eq!(
        result["errorDetails"],
        "Error: 500 \"Internal server error\"\n\nHTTP Status: 500\n\nResponse Body:\n{\n  \"detail\": \"upstream\"\n}"
    );
    assert_eq!(result["cost"], 0.01);
    assert_eq!(
        result["events"],
        json!([{"say": "condense_context_error", "text": "Condensing API call failed: 500 \"Internal server error\""}])
    );

    // A JSON-RPC error response is a failed call too.
    server.set_host(Box::new(|_, _| {
        Err((-32000, "provider unreachable".into()))
    }));
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": conversation(6, 100), "contextWindow": 100000}),
    );
    assert_eq!(
        result["error"],
        "Condensing API call failed: provider unreachable"
    );
    assert_eq!(result["errorDetails"], "Error: provider unreachable");
}

#[test]
fn context_host_timeout_returns_the_history_unchanged_and_tells_the_host() {
    let mut server = Server::start_in_process(&[], Value::Null);
    server.leave_unanswered(SUMMARIZE);
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": conversation(6, 100), "contextWindow": 100000, "timeoutMs": 200}),
    );
    assert_eq!(result["changed"], false);
    assert!(result.get("messages").is_none());
    assert_eq!(
        result["error"],
        "Condensing API call failed: the host did not answer within 200 ms"
    );
    assert_eq!(result["events"][0]["say"], "condense_context_error");
    let request_id = server.unanswered[0]["params"]["requestId"].clone();
    let notice = server.notification("roo/host/cancelSummarize");
    assert_eq!(
        notice,
        json!({"requestId": request_id, "reason": "timeout"})
    );
    let cancel = server.notification("$/cancelRequest");
    assert_eq!(cancel, json!({"id": server.unanswered[0]["id"]}));
}

#[test]
fn context_cancel_request_cancels_an_in_flight_condense() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let id = server.send_request(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": conversation(6, 100), "contextWindow": 100000}),
    );
    let summarize = server.host_request(SUMMARIZE);
    server.notify("$/cancelRequest", json!({"id": id}));
    let response = server.response(id);
    assert_eq!(response["error"]["code"], -32800, "{response}");
    let notice = server.notification("roo/host/cancelSummarize");
    assert_eq!(notice["requestId"], summarize["params"]["requestId"]);
    assert_eq!(notice["reason"], "cancelled");
    // Our caller cancelled, so the host's own request is cancelled by its id too.
    let cancel = server.notification("$/cancelRequest");
    assert_eq!(cancel, json!({"id": summarize["id"]}));
    // A late answer is ignored and the server keeps serving.
    server.send(
        &json!({"jsonrpc": "2.0", "id": summarize["id"], "result": {"text": "late", "cost": 1}}),
    );
    let classified = server.call(
        "roo/context/classifyError",
        json!({"error": {"status": 400, "message": "maximum context length exceeded"}}),
    );
    assert_eq!(classified["isContextWindowError"], true);
}

#[test]
fn context_emergency_condense_carries_condense_id_and_rewind_removes_its_summary() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let seen = answering_host(
        &mut server,
        json!({"text": "Emergency summary.", "cost": 0.1}),
    );
    let messages = conversation(8, 2000);
    let result = server.call(
        "roo/context/manage",
        json!({
            "trigger": "emergency",
            "messages": messages,
            "contextWindow": 5000,
            "maxTokens": 500,
            "summarizer": {"contextWindow": 100000},
            "customCondensingPrompt": "Keep it short.",
            "environmentDetails": "<environment_details>cwd: /w</environment_details>",
            "profileThresholds": {"default": 100},
        }),
    );
    assert_eq!(result["action"], "condensed", "{result}");
    assert_eq!(result["budget"]["threshold"], 75.0);
    assert_eq!(result["budget"]["thresholdSource"], "forced");
    let condense_id = result["condenseId"].clone();
    assert_eq!(
        result["events"][0]["contextCondense"]["condenseId"],
        condense_id
    );
    assert_eq!(
        seen.lock().unwrap()[0]["messages"]
            .as_array()
            .unwrap()
            .last()
            .unwrap()["content"],
        "Keep it short."
    );
    let history = result["messages"].clone();
    assert!(
        history.as_array().unwrap().last().unwrap()["content"]
            .to_string()
            .contains("cwd: /w")
    );

    let ui = json!([
        {"ts": 1000, "type": "say", "say": "text", "text": "refactor"},
        {"ts": 9000, "type": "say", "say": "condense_context", "contextCondense": result["events"][0]["contextCondense"]}
    ]);
    let rewound = server.call(
        "roo/history/rewind",
        json!({"uiMessages": ui, "apiMessages": history, "ts": 9000}),
    );
    assert_eq!(rewound["removedCondenseIds"], json!([condense_id]));
    assert_eq!(
        rewound["apiMessages"],
        json!(messages),
        "the summary is gone and the tags cleared"
    );
}

#[test]
fn context_zero_progress_shrinks_a_4mb_tool_result_and_fits() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let huge = "0123456789abcdef ".repeat(4 * 1024 * 1024 / 17);
    let messages = json!([
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "execute_command", "input": {"command": "cat dump"}}], "ts": 1},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": huge}], "ts": 2}
    ]);
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "automatic", "messages": messages, "contextWindow": 200000, "maxTokens": 8192, "autoCondenseContext": false}),
    );
    assert_eq!(result["changed"], true, "{}", result["error"]);
    assert_eq!(result["action"], "truncated");
    assert_eq!(result["messagesRemoved"], 0);
    assert_eq!(result["toolResultsShrunk"], 1);
    assert!(result.get("error").is_none());
    let new_tokens = result["newContextTokens"].as_u64().unwrap();
    assert!(new_tokens <= result["budget"]["allowedTokens"].as_u64().unwrap());
    assert!(new_tokens < result["prevContextTokens"].as_u64().unwrap());
    let history = result["messages"].as_array().unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0], messages[0]);
    let block = &history[1]["content"][0];
    assert_eq!(block["type"], "tool_result");
    assert_eq!(block["tool_use_id"], "toolu_1");
    let text = block["content"].as_str().unwrap();
    assert!(text.ends_with("characters removed to fit the context budget]"));
    assert!(huge.starts_with(text.split("\n[Tool result truncated").next().unwrap()));
    let event = &result["events"][0];
    assert_eq!(event["say"], "sliding_window_truncation");
    assert_eq!(event["contextTruncation"]["messagesRemoved"], 0);
    assert_eq!(
        event["contextTruncation"]["truncationId"],
        result["truncationId"]
    );
}

#[test]
fn context_impossible_budget_returns_the_controlled_error() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let messages = json!([
        {"role": "user", "content": "word ".repeat(20000), "ts": 1},
        {"role": "assistant", "content": "ok", "ts": 2}
    ]);
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "automatic", "messages": messages, "contextWindow": 10000, "maxTokens": 1000, "autoCondenseContext": false}),
    );
    assert_eq!(result["changed"], false);
    assert!(result.get("messages").is_none());
    let prev = result["prevContextTokens"].as_u64().unwrap();
    assert_eq!(
        result["error"],
        format!(
            "Context window recovery failed: the conversation ({prev} tokens) exceeds the available budget (8000 tokens) and no messages can be removed or tool results shrunk further. Reduce the size of individual tool outputs or start a new task."
        )
    );
    assert_eq!(
        result["errorDetails"],
        "Fallback truncation removed 0 messages and no eligible textual tool_result could be shrunk below its floor."
    );
    assert_eq!(
        result["events"],
        json!([{"say": "condense_context_error", "text": result["error"]}])
    );
}

#[test]
fn context_will_manage_uses_thresholds_and_the_last_message() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let base = json!({"totalTokens": 59990, "lastMessageTokens": 10, "contextWindow": 100000, "maxTokens": 30000, "autoCondenseContext": false});
    assert_eq!(
        server.call("roo/context/willManage", base.clone())["willManage"],
        false
    );
    let mut over = base.clone();
    over["totalTokens"] = json!(59991);
    let result = server.call("roo/context/willManage", over);
    assert_eq!(result["willManage"], true);
    assert_eq!(result["allowedTokens"], 60000);
    let with_profile = json!({"totalTokens": 50000, "lastMessage": {"role": "user", "content": "Hello world"}, "contextWindow": 100000, "autoCondenseContextPercent": 90, "profileThresholds": {"p": 50}, "currentProfileId": "p"});
    let result = server.call("roo/context/willManage", with_profile);
    assert_eq!(result["willManage"], true);
    assert_eq!(result["prevContextTokens"], 50003);
    assert_eq!(result["threshold"], 50.0);
}

/// Zoo Code's opt-in denominator: with `useAvailableInputForContextPercent` the percentage is of
/// the window minus `maxTokens` (36,000 of 70,000 crosses 50 %; of 100,000 it does not).
#[test]
fn context_will_manage_can_measure_against_the_available_input() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let mut params = json!({"totalTokens": 34000, "lastMessageTokens": 2000, "contextWindow": 100000,
        "maxTokens": 30000, "autoCondenseContextPercent": 50});
    let whole = server.call("roo/context/willManage", params.clone());
    assert_eq!(
        (&whole["willManage"], &whole["contextPercent"]),
        (&json!(false), &json!(36.0))
    );
    params["useAvailableInputForContextPercent"] = json!(true);
    let available = server.call("roo/context/willManage", params.clone());
    assert_eq!(available["willManage"], true, "{available}");
    assert_eq!(available["shouldCondense"], true, "{available}");
    params["useAvailableInputForContextPercent"] = json!("yes");
    let error = server
        .request("roo/context/willManage", params)
        .expect_err("a string is not a boolean");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("useAvailableInputForContextPercent"),
        "{error}"
    );
}

/// The threshold fields are one type shared by `manage` and `willManage` (flattened into both);
/// a bad value still gets the one invalid-params form naming the field, and closed sets reject
/// values outside them the same way.
#[test]
fn invalid_threshold_and_mode_fields_are_named_in_the_one_error_form() {
    let fixture = fixture();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let cases = [
        (
            "roo/context/willManage",
            json!({"totalTokens": 1, "contextWindow": 100, "autoCondenseContextPercent": "x"}),
            "invalid params: field `autoCondenseContextPercent`: ",
        ),
        (
            "roo/context/willManage",
            json!({"totalTokens": 1, "contextWindow": 100, "profileThresholds": {"p": "b"}}),
            "invalid params: field `profileThresholds`: ",
        ),
        (
            "roo/context/manage",
            json!({"trigger": "manual", "messages": [], "contextWindow": 100, "currentProfileId": 3}),
            "invalid params: field `currentProfileId`: ",
        ),
        (
            "roo/context/willManage",
            json!({"totalTokens": 1, "contextWindow": 100, "tokenCountMode": "fast"}),
            "invalid params: field `tokenCountMode`: unknown variant `fast`",
        ),
        (
            "roo/tokens/count",
            json!({"text": "a", "mode": "nope"}),
            "invalid params: field `mode`: unknown variant `nope`",
        ),
    ];
    for (method, params, start) in cases {
        let error = server.request(method, params).unwrap_err();
        assert_eq!(error["code"], -32602, "{error}");
        let message = error["message"].as_str().unwrap();
        assert!(message.starts_with(start), "{method}: {message}");
    }
    // Valid threshold fields still apply: the profile's 50 % wins over the global 5 %.
    let answer = server.call(
        "roo/context/willManage",
        json!({"totalTokens": 10, "contextWindow": 100, "autoCondenseContextPercent": 5,
               "currentProfileId": "p", "profileThresholds": {"p": 50}}),
    );
    assert_eq!(answer["threshold"], 50.0, "{answer}");
}

/// Issue 29: `totalTokens` given and nothing due: the history is not counted, and the answer
/// says so (`modelFacingTokens: null`); without it the history is measured.
#[test]
fn context_manage_with_total_tokens_and_nothing_due_does_not_measure_the_history() {
    let fixture = fixture();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let messages = conversation(8, 400);
    let params = |total: Option<u64>| {
        let mut params =
            json!({"trigger": "automatic", "messages": messages, "contextWindow": 200000});
        if let Some(total) = total {
            params["totalTokens"] = json!(total);
        }
        params
    };
    let given = server.call("roo/context/manage", params(Some(5_000)));
    assert_eq!(given["action"], "none", "{given}");
    assert_eq!(given["budget"]["modelFacingTokens"], Value::Null, "{given}");
    let measured = server.call("roo/context/manage", params(None));
    assert!(
        measured["budget"]["modelFacingTokens"].as_u64().unwrap() > 0,
        "{measured}"
    );
}
