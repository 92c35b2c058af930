//! Black-box tests of issue 30 over stdio: the continuation-shaped `roo/host/summarize` (asked
//! per request and by the `prefixReuseCondense` setting), its fallback to the standalone
//! request on a tool-call answer and when the replay does not fit, `cacheImpact` in results, an
//! emergency that never waits, and a deferred condense applied in the next batch.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::harness::Server;

const SUMMARIZE: &str = "roo/host/summarize";

/// A history ending with the newest user message (tool blocks native).
fn conversation(turns: usize, chars: usize) -> Vec<Value> {
    let mut messages = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "<task>refactor</task>"}], "ts": 1000}),
    ];
    for turn in 1..turns {
        let role = if turn % 2 == 1 { "assistant" } else { "user" };
        messages.push(json!({"role": role, "content": format!("turn {turn} {}", "word ".repeat(chars / 5)), "ts": 1000 + turn}));
    }
    messages
}

/// A host that answers with `reply(params)` and records every request.
fn host(
    server: &mut Server,
    reply: impl Fn(&Value) -> Value + Send + 'static,
) -> Arc<Mutex<Vec<Value>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    server.set_host(Box::new(move |method, params| {
        assert_eq!(method, SUMMARIZE);
        record.lock().unwrap().push(params.clone());
        Ok(reply(params))
    }));
    seen
}

fn is_continuation(request: &Value) -> bool {
    request["shape"] == "continuation"
}

#[test]
fn a_continuation_replays_the_last_request_and_keeps_the_unsent_message_after_the_summary() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let seen = host(
        &mut server,
        |_| json!({"text": "The summary.", "cost": 0.01}),
    );
    let messages = conversation(9, 2000);
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": messages, "systemPrompt": "You are Roo.",
               "contextWindow": 200000, "cache": {"prefixReuse": true}}),
    );
    assert_eq!(result["action"], "condensed", "{result}");
    assert_eq!(result["prefixReuse"], json!({"shape": "continuation"}));
    let impact = &result["cacheImpact"];
    assert_eq!(impact["firstChangedIndex"], 0, "{impact}");
    assert_eq!(
        impact["savedTokensPerRequest"].as_u64().unwrap(),
        result["prevContextTokens"].as_u64().unwrap()
            - result["newContextTokens"].as_u64().unwrap()
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    let request = &seen[0];
    assert!(is_continuation(request), "{request}");
    assert_eq!(request["systemPrompt"], "");
    assert_eq!(request["continuation"]["replayMessages"], 8);
    assert_eq!(request["continuation"]["cacheBreakpoints"], "asLastRequest");
    let appended = request["messages"].as_array().unwrap();
    assert_eq!(appended.len(), 1, "only the instructions are appended");
    let blocks = appended[0]["content"].as_array().unwrap();
    assert!(
        blocks[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("Your task is to create a detailed summary")
    );
    assert!(
        blocks.last().unwrap()["text"]
            .as_str()
            .unwrap()
            .contains("Do not call any tool")
    );
    // The newest message was not in the last request: it follows the summary untouched.
    let history = result["messages"].as_array().unwrap();
    assert_eq!(history.len(), 10);
    assert_eq!(history[8]["isSummary"], true);
    assert_eq!(history[9], messages[8]);
}

#[test]
fn the_initialize_setting_asks_for_continuations_and_a_request_can_opt_out() {
    let mut server = Server::start_in_process(&[], json!({"prefixReuseCondense": true}));
    let seen = host(
        &mut server,
        |_| json!({"text": "The summary.", "cost": 0.01}),
    );
    let base =
        json!({"trigger": "manual", "messages": conversation(9, 2000), "contextWindow": 200000});
    let result = server.call("roo/context/manage", base.clone());
    assert_eq!(result["prefixReuse"]["shape"], "continuation", "{result}");
    let mut opted_out = base;
    opted_out["cache"] = json!({"prefixReuse": false});
    let result = server.call("roo/context/manage", opted_out);
    assert_eq!(result["action"], "condensed");
    assert_eq!(result.get("prefixReuse"), None, "{result}");
    let seen = seen.lock().unwrap();
    assert!(is_continuation(&seen[0]));
    assert!(
        seen[1].get("shape").is_none(),
        "today's request: {}",
        seen[1]
    );
}

#[test]
fn a_tool_call_answer_falls_back_to_the_standalone_request_once() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let seen = host(&mut server, |request| {
        if is_continuation(request) {
            json!({"text": "", "cost": 0.02, "toolCall": true})
        } else {
            json!({"text": "The summary.", "cost": 0.03})
        }
    });
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": conversation(9, 2000), "contextWindow": 200000,
               "cache": {"prefixReuse": true}}),
    );
    assert_eq!(result["action"], "condensed", "{result}");
    assert_eq!(
        result["prefixReuse"],
        json!({"shape": "standalone", "fallback": "toolCallAnswer"})
    );
    assert_eq!(result["cost"], 0.05);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    assert!(is_continuation(&seen[0]));
    assert!(
        seen[1]["systemPrompt"]
            .as_str()
            .unwrap()
            .starts_with("You are a helpful AI assistant tasked with summarizing")
    );

    // Two tool calls: the one fallback was used, the condense fails and nothing changes.
    drop(seen);
    let mut server = Server::start_in_process(&[], Value::Null);
    let seen = host(&mut server, |_| json!({"text": "", "toolCall": true}));
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": conversation(9, 2000), "contextWindow": 200000,
               "cache": {"prefixReuse": true}}),
    );
    assert_eq!(result["changed"], false, "{result}");
    assert_eq!(
        result["error"],
        "Condensing API call failed: the model answered with a tool call instead of a summary"
    );
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn a_replay_too_large_for_the_summarizer_is_sent_standalone_and_said_so() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let seen = host(
        &mut server,
        |_| json!({"text": "The summary.", "cost": 0.01}),
    );
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": conversation(21, 4000), "contextWindow": 200000,
               "summarizer": {"contextWindow": 12000, "maxTokens": 1000},
               "cache": {"prefixReuse": true}}),
    );
    assert_eq!(result["action"], "condensed", "{result}");
    assert_eq!(
        result["prefixReuse"],
        json!({"shape": "standalone", "fallback": "replayTooLarge"})
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 1);
    assert!(!is_continuation(&seen[0]));
    assert!(
        result["requestDegradation"]["messagesOmitted"]
            .as_u64()
            .unwrap()
            > 0
    );
}

#[test]
fn a_deferred_condense_waits_for_the_next_batch_and_an_emergency_never_waits() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let seen = host(
        &mut server,
        |_| json!({"text": "The summary.", "cost": 0.01}),
    );
    let params = |turns: usize, trigger: &str, window: u64| {
        json!({"trigger": trigger, "messages": conversation(turns, 2000), "contextWindow": window,
               "autoCondenseContextPercent": 10, "cache": {"defer": {}}})
    };
    // About 12k tokens (estimate), above the 10 % threshold of 100k: too little to break for.
    let waiting = server.call("roo/context/manage", params(21, "automatic", 100_000));
    assert_eq!(waiting["changed"], false, "{waiting}");
    assert_eq!(waiting["deferred"]["reason"], "freesTooLittle");
    assert_eq!(waiting["deferred"]["minFreedTokens"], 20000);
    assert_eq!(waiting["events"], json!([]));
    assert!(seen.lock().unwrap().is_empty(), "nothing was sent");
    // The next batch: the history grew, the condense frees enough and is made.
    let batch = server.call("roo/context/manage", params(61, "automatic", 100_000));
    assert_eq!(batch["action"], "condensed", "{batch}");
    assert_eq!(batch.get("deferred"), None);
    assert!(
        batch["cacheImpact"]["savedTokensPerRequest"]
            .as_u64()
            .unwrap()
            >= 20000
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
    // An emergency as small as the first never waits.
    // (76 % of a 16k window: the forced 75 % threshold, within budget, the same small gain.)
    let mut small = params(21, "emergency", 16_000);
    small["maxTokens"] = json!(1000);
    small["summarizer"] = json!({"contextWindow": 100000});
    let emergency = server.call("roo/context/manage", small);
    assert_eq!(emergency["action"], "condensed", "{emergency}");
    assert_eq!(emergency.get("deferred"), None);
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn truncations_carry_their_cache_impact_and_invalid_cache_fields_are_named() {
    let mut server = Server::start_in_process(&[], Value::Null);
    server.set_host(Box::new(|_, _| Err((-32601, "no".into()))));
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "automatic", "messages": conversation(21, 2000), "contextWindow": 8000,
               "maxTokens": 500, "cache": {"writeMultiplier": 2.0}}),
    );
    assert_eq!(result["action"], "truncated", "{result}");
    let impact = &result["cacheImpact"];
    assert_eq!(impact["firstChangedIndex"], 1, "{impact}");
    assert_eq!(
        impact["savedTokensPerRequest"].as_u64().unwrap(),
        result["prevContextTokens"].as_u64().unwrap()
            - result["newContextTokens"].as_u64().unwrap()
    );
    let truncated = server.call(
        "roo/history/truncate",
        json!({"fraction": 0.5, "messages": conversation(5, 400)}),
    );
    assert_eq!(truncated["changed"], true, "{truncated}");
    let impact = &truncated["cacheImpact"];
    assert_eq!(impact["firstChangedIndex"], 1, "{impact}");
    assert!(
        impact["keptPrefixTokens"].as_u64().unwrap() > 0,
        "the first message stays cached"
    );
    assert!(impact["savedTokensPerRequest"].as_u64().unwrap() > 0);
    for (cache, field) in [
        (json!({"writeMultiplier": -1}), "cache.writeMultiplier"),
        (
            json!({"defer": {"maxBreakEvenRequests": -2}}),
            "cache.defer.maxBreakEvenRequests",
        ),
        (json!({"ttl": 5}), "cache.ttl"),
    ] {
        let error = server
            .request(
                "roo/context/manage",
                json!({"trigger": "manual", "messages": [], "contextWindow": 100, "cache": cache}),
            )
            .unwrap_err();
        assert_eq!(error["code"], -32602, "{error}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("invalid params: field `{field}`")),
            "{message}"
        );
    }
}

#[test]
fn cache_breakpoints_go_to_the_last_message_the_summary_and_spread_out() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let messages: Vec<Value> = (0..12)
        .map(|i| json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": format!("m{i}")}))
        .collect();
    let result = server.call(
        "roo/context/cacheBreakpoints",
        json!({"messages": messages}),
    );
    assert_eq!(result["effectiveIndices"], json!([2, 5, 8, 11]), "{result}");
    assert_eq!(result["storedIndices"], json!([2, 5, 8, 11]));
    // After a summary the effective history starts there: indices differ from stored ones.
    let mut condensed = messages.clone();
    for message in &mut condensed {
        message["condenseParent"] = json!("c1");
    }
    condensed
        .push(json!({"role": "user", "content": "summary", "isSummary": true, "condenseId": "c1"}));
    condensed.push(json!({"role": "assistant", "content": "after"}));
    let result = server.call(
        "roo/context/cacheBreakpoints",
        json!({"messages": condensed, "max": 2}),
    );
    assert_eq!(result["effectiveIndices"], json!([0, 1]), "{result}");
    assert_eq!(result["storedIndices"], json!([12, 13]));
    let error = server
        .request(
            "roo/context/cacheBreakpoints",
            json!({"messages": [], "max": 5}),
        )
        .unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid params: field `max`"),
        "{error}"
    );
}

#[test]
fn a_condense_now_carries_its_cache_impact() {
    let mut server = Server::start_in_process(&[], Value::Null);
    host(
        &mut server,
        |_| json!({"text": "The summary.", "cost": 0.01}),
    );
    let result = server.call(
        "roo/context/condense",
        json!({"messages": conversation(9, 2000)}),
    );
    assert_eq!(result["changed"], true, "{result}");
    let impact = &result["cacheImpact"];
    assert_eq!(impact["firstChangedIndex"], 0, "{impact}");
    assert_eq!(impact["keptPrefixTokens"], 0);
    assert_eq!(impact["rewriteTokens"], result["summaryTokens"]);
}
