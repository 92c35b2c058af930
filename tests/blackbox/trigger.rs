//! Black-box tests of issue 32 over the wire: the trigger counts the unsent batch (a 40k-token
//! tool batch arriving at 70 % of a 128k window is condensed before it is sent), the
//! calibration learns from `lastRequest` and survives a restart when the host gives a
//! `storageDir`, the termination guard keeps a failing summarizer from being asked on every
//! request, and a `messageCount` past the end is refused naming the field.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::harness::Server;

const SUMMARIZE: &str = "roo/host/summarize";

/// A history that was sent (the provider counted it), then one tool batch: the assistant's
/// call and a tool result of about `batch_tokens` o200k tokens, then a short user message.
fn history_with_batch(batch_tokens: usize) -> (Vec<Value>, usize) {
    let mut messages =
        vec![json!({"role": "user", "content": "<task>refactor the parser</task>", "ts": 1})];
    for turn in 1..10 {
        let role = if turn % 2 == 1 { "assistant" } else { "user" };
        messages.push(json!({"role": role, "content": format!("turn {turn} {}", "step ".repeat(200)), "ts": 1 + turn}));
    }
    let sent = messages.len();
    messages.push(json!({"role": "assistant", "ts": 20, "content": [
        {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "src/big.log"}}]}));
    messages.push(json!({"role": "user", "ts": 21, "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "word ".repeat(batch_tokens)}]}));
    messages.push(json!({"role": "user", "ts": 22, "content": "go on"}));
    (messages, sent)
}

fn recording_host(server: &mut Server, reply: Value) -> Arc<Mutex<Vec<Value>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    server.set_host(Box::new(move |method, params| {
        assert_eq!(method, SUMMARIZE);
        record.lock().unwrap().push(params.clone());
        Ok(reply.clone())
    }));
    seen
}

/// The replay of the issue: the last request was 89,600 tokens (70 % of 128k) by the
/// provider's count; a 40k-token tool batch arrives. Today's rule (`totalTokens` plus the last
/// message) sees 70 % and does nothing, and the request overflows; with `lastRequest` every
/// message since is counted and the history is condensed before it is sent.
#[test]
fn a_40k_tool_batch_at_70_percent_of_a_128k_window_is_condensed_before_it_is_sent() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let seen = recording_host(
        &mut server,
        json!({"text": "The user asked to refactor the parser.", "cost": 0.1}),
    );
    let (messages, sent) = history_with_batch(40_000);
    let base = json!({"trigger": "automatic", "messages": messages, "contextWindow": 128000,
        "maxTokens": 8192, "systemPrompt": "You are Roo.", "taskId": "replay"});

    let mut old = base.clone();
    old["totalTokens"] = json!(89_600);
    let today = server.call("roo/context/manage", old);
    assert_eq!(today["action"], "none", "{today}");
    assert!(
        today["prevContextTokens"].as_u64().unwrap() < 90_000,
        "{today}"
    );
    assert!(seen.lock().unwrap().is_empty());

    let mut new = base.clone();
    new["lastRequest"] = json!({"inputTokens": 89_600, "messageCount": sent});
    new["provider"] = json!("anthropic");
    new["modelId"] = json!("claude-sonnet-4-5");
    let result = server.call("roo/context/manage", new);
    assert_eq!(result["action"], "condensed", "{result}");
    let prev = result["prevContextTokens"].as_u64().unwrap();
    assert!(
        prev >= 89_600 + 40_000,
        "the whole batch, calibrated: {prev}"
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
    let calibration = &result["calibration"];
    assert_eq!(calibration["family"], "claude", "{result}");
    assert!(
        calibration["ratios"]["prose"].as_f64().unwrap() > 1.0,
        "{calibration}"
    );

    // willManage says the same before the request: every new message counted.
    let plan = server.call(
        "roo/context/willManage",
        json!({"totalTokens": 0, "lastRequest": {"inputTokens": 89_600}, "contextWindow": 128000,
               "maxTokens": 8192, "newMessages": messages[sent..]}),
    );
    assert_eq!(plan["willManage"], true, "{plan}");
    assert!(
        plan["prevContextTokens"].as_u64().unwrap() >= 129_600,
        "{plan}"
    );
    let old_plan = server.call(
        "roo/context/willManage",
        json!({"totalTokens": 89_600, "contextWindow": 128000, "maxTokens": 8192,
               "lastMessage": messages.last()}),
    );
    assert_eq!(old_plan["willManage"], false, "{old_plan}");
}

/// A summarizer that fails does not get asked again on the next request: the guard waits for
/// max(5 % of the window, 4096) new tokens since the attempt.
#[test]
fn a_failing_summarizer_is_not_asked_again_until_the_context_grew() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let seen = recording_host(&mut server, json!({"text": "", "cost": 0.0}));
    let (mut messages, sent) = history_with_batch(20_000);
    let call = |server: &mut Server, messages: &Vec<Value>, input: u64, count: usize| {
        server.call(
            "roo/context/manage",
            json!({"trigger": "automatic", "messages": messages, "contextWindow": 128000,
                   "maxTokens": 8192, "autoCondenseContextPercent": 50, "taskId": "guarded",
                   "lastRequest": {"inputTokens": input, "messageCount": count}}),
        )
    };
    let first = call(&mut server, &messages, 60_000, sent);
    assert_eq!(first["error"], "Failed to condense context", "{first}");
    assert_eq!(seen.lock().unwrap().len(), 1);
    // The request went out; one short message later the summarizer is not asked again.
    let prev = first["prevContextTokens"].as_u64().unwrap();
    messages.push(json!({"role": "assistant", "content": "ok", "ts": 30}));
    let count = messages.len() - 1;
    let second = call(&mut server, &messages, prev, count);
    assert_eq!(second["action"], "none", "{second}");
    assert_eq!(seen.lock().unwrap().len(), 1, "asked again after {second}");
    // The pre-check plans the same: no condense yet for this task, one for a task without it.
    let plan = |server: &mut Server, task: &str| {
        server.call(
            "roo/context/willManage",
            json!({"totalTokens": 0, "lastRequest": {"inputTokens": prev}, "contextWindow": 128000,
                   "maxTokens": 8192, "autoCondenseContextPercent": 50, "taskId": task,
                   "newMessages": [messages.last()]}),
        )
    };
    assert_eq!(plan(&mut server, "guarded")["shouldCondense"], false);
    assert_eq!(plan(&mut server, "other")["shouldCondense"], true);
    // After 6,400 (5 % of 128k) more tokens it may ask again.
    messages.push(json!({"role": "user", "content": "word ".repeat(7_000), "ts": 31}));
    let third = call(&mut server, &messages, prev + 10, count + 1);
    assert_eq!(seen.lock().unwrap().len(), 2, "{third}");
}

#[test]
fn calibration_learns_from_the_last_request_and_survives_a_restart() {
    let storage = tempfile::tempdir().unwrap();
    let (messages, sent) = history_with_batch(1_000);
    let params = |count: Option<usize>| {
        let mut last = json!({"inputTokens": 3_000});
        if let Some(count) = count {
            last["messageCount"] = json!(count);
        }
        json!({"trigger": "automatic", "messages": messages, "contextWindow": 200000,
               "provider": "acme", "modelId": "m1", "lastRequest": last,
               "storageDir": storage.path()})
    };
    let mut server = Server::start_in_process(&[], Value::Null);
    let learned = server.call("roo/context/manage", params(Some(sent)));
    assert_eq!(learned["calibration"]["observed"], true, "{learned}");
    assert_eq!(learned["calibration"]["observations"], 1);
    assert_eq!(learned["calibration"]["family"], "default");
    // The sent part is ~2,000 o200k tokens and the provider said 3,000: the prose ratio moved
    // most of the way (the prior keeps a fifth of the say after one request).
    assert!(
        learned["calibration"]["ratios"]["prose"].as_f64().unwrap() > 1.3,
        "{learned}"
    );
    assert!(
        storage
            .path()
            .join("roo-context/calibration.json")
            .is_file()
    );
    drop(server);

    let mut restarted = Server::start_in_process(&[], Value::Null);
    let again = restarted.call("roo/context/manage", params(None));
    assert_eq!(again["calibration"]["observed"], false, "{again}");
    assert_eq!(again["calibration"]["observations"], 1, "{again}");
}

#[test]
fn a_message_count_past_the_end_is_refused_naming_the_field() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let error = server
        .request(
            "roo/context/manage",
            json!({"trigger": "automatic", "messages": [{"role": "user", "content": "a"}],
                   "contextWindow": 1000, "lastRequest": {"inputTokens": 5, "messageCount": 9}}),
        )
        .unwrap_err();
    assert_eq!(error["code"], -32602, "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("lastRequest.messageCount"), "{message}");
    let error = server
        .request(
            "roo/context/willManage",
            json!({"totalTokens": 1, "contextWindow": 100, "lastRequest": {"inputTokens": "x"}}),
        )
        .unwrap_err();
    assert_eq!(error["code"], -32602, "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("lastRequest.inputTokens"), "{message}");
}

/// The count method gives the calibrated figure beside the exact one when the model is named;
/// without it the answer is today's.
#[test]
fn token_count_returns_the_calibrated_figure_beside_the_exact_one() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let text =
        "The user asked to refactor the parser and keep the public API unchanged. ".repeat(50);
    let plain = server.call("roo/tokens/count", json!({"text": text}));
    assert_eq!(plain.get("calibrated"), None, "{plain}");
    let named = server.call(
        "roo/tokens/count",
        json!({"text": text, "provider": "anthropic", "modelId": "claude-opus-4"}),
    );
    let exact = named["total"].as_u64().unwrap();
    assert_eq!(exact, plain["total"].as_u64().unwrap());
    let calibrated = named["calibrated"].as_u64().unwrap();
    assert_eq!(
        calibrated,
        (exact as f64 * 1.2).round() as u64,
        "prose prior of claude"
    );
}
