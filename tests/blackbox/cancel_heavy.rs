//! `$/cancelRequest` reaches the remaining heavy paths: token counts, context management and its
//! threshold check, and symbols of an unopened file. A cancelled request answers -32800 and the
//! server goes on serving; a cancelled token count stops counting and gives its blocking-pool
//! slot back.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server, file_uri};

fn messages(count: usize) -> Vec<Value> {
    (0..count)
        .map(|i| {
            json!({
                "role": if i % 2 == 0 { "user" } else { "assistant" },
                "content": format!("message {i} says hello world {} ", i * 7919).repeat(5),
            })
        })
        .collect()
}

fn heavy_requests(fixture: &Fixture) -> Vec<(&'static str, Value)> {
    let long_message = json!({"role": "user", "content": "word ".repeat(20_000)});
    vec![
        ("roo/tokens/count", json!({"messages": messages(20)})),
        (
            "roo/context/willManage",
            json!({"totalTokens": 1000, "lastMessage": long_message, "contextWindow": 200000}),
        ),
        (
            "roo/context/manage",
            json!({"trigger": "automatic", "messages": messages(20), "contextWindow": 200000}),
        ),
        (
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": file_uri(&fixture.path("notes.md"))}}),
        ),
    ]
}

#[test]
fn each_heavy_request_cancelled_answers_32800_and_serving_goes_on() {
    let fixture = Fixture::new(&[("notes.md", "# One\n\ntext\n\n## Two\n\nmore\n")]);
    let mut server = Server::spawn_with_env(&[
        ("ROO_CONTEXT_DEBUG_METHODS", "1"),
        ("ROO_CONTEXT_HEAVY_SLOTS", "1"),
    ]);
    server.initialize(&[fixture.root()], Value::Null).unwrap();
    // The only slot is held: each heavy request waits for it, so its cancellation is certain to
    // come before its answer (a request answered without a slot would answer normally here).
    let hold = server.send_request("roo/debug/hold", json!({}));
    for (method, params) in heavy_requests(&fixture) {
        let id = server.send_request(method, params);
        server.notify("$/cancelRequest", json!({"id": id}));
        let response = server.response(id);
        assert_eq!(response["error"]["code"], -32800, "{method}: {response}");
    }
    server.notify("$/cancelRequest", json!({"id": hold}));
    assert_eq!(server.response(hold)["error"]["code"], -32800);
    // Serving goes on: every method answers normally afterwards.
    for (method, params) in heavy_requests(&fixture) {
        let response = server.request(method, params);
        assert!(response.is_ok(), "{method}: {response:?}");
    }
    let will = server.call(
        "roo/context/willManage",
        json!({"totalTokens": 1000, "lastMessageTokens": 10, "contextWindow": 200000}),
    );
    assert_eq!(will["prevContextTokens"], 1010, "{will}");
}

/// Enough distinct messages that counting them all takes far past the harness's deadline in a
/// debug build, while the count stops at the next message once cancelled.
const MANY_MESSAGES: usize = 150_000;

#[test]
fn a_cancelled_token_count_stops_and_frees_its_slot() {
    let fixture = Fixture::new(&[("src/small.ts", "export const small = 1;\n")]);
    let mut server = Server::spawn_with_env(&[("ROO_CONTEXT_HEAVY_SLOTS", "1")]);
    server
        .initialize(&[fixture.root()], json!({"warmTokenizer": false}))
        .unwrap();
    let heavy = server.send_request(
        "roo/tokens/count",
        json!({"messages": messages(MANY_MESSAGES)}),
    );
    // Let the count take the only slot and start (if it has not, the test passes trivially).
    std::thread::sleep(std::time::Duration::from_secs(1));
    server.notify("$/cancelRequest", json!({"id": heavy}));
    assert_eq!(server.response(heavy)["error"]["code"], -32800);
    // Needs the slot the cancelled count held: without stopping, this misses the deadline.
    let outline = server.call("roo/fold/outline", json!({"path": "src/small.ts"}));
    assert_eq!(outline["language"], "typescript", "{outline}");
}
