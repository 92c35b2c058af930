//! A heavy request never starves the others: heavy work takes one of a bounded number of
//! blocking-pool slots, quick requests take none, and `$/cancelRequest` stops the work and frees
//! its slot. `roo/debug/hold` (test-only) holds a slot until cancelled, so the tests depend on
//! the order of answers, never on timing.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

const SLOTS: usize = 2;

fn server_with_slots(fixture: &Fixture) -> Server {
    let slots = SLOTS.to_string();
    let mut server = Server::spawn_with_env(&[
        ("ROO_CONTEXT_DEBUG_METHODS", "1"),
        ("ROO_CONTEXT_HEAVY_SLOTS", &slots),
    ]);
    server.initialize(&[fixture.root()], Value::Null).unwrap();
    server
}

fn cancel(server: &mut Server, id: i64) {
    server.notify("$/cancelRequest", json!({"id": id}));
}

#[test]
fn quick_requests_are_answered_while_more_heavy_requests_than_slots_are_in_flight() {
    let fixture = Fixture::new(&[(".rooignore", "secret.txt\n")]);
    let mut server = server_with_slots(&fixture);
    // Far more than the framework's old limit of four handlers in flight.
    let holds: Vec<i64> = (0..8)
        .map(|_| server.send_request("roo/debug/hold", json!({})))
        .collect();
    let access = server.call(
        "roo/ignore/validateAccess",
        json!({"paths": ["secret.txt", "a.txt"]}),
    );
    assert_eq!(access["results"][0]["allowed"], false);
    assert_eq!(access["results"][1]["allowed"], true);
    let status = server.call("roo/workspace/status", json!({}));
    assert_eq!(status["folders"].as_array().unwrap().len(), 1);
    // Small batches and number-only checks run on the blocking pool without a heavy slot.
    let protection = server.call("roo/protect/check", json!({"paths": [".roomodes"]}));
    assert_eq!(protection["results"][0]["isProtected"], true);
    let filtered = server.call(
        "roo/ignore/filterPaths",
        json!({"paths": ["secret.txt", "a.txt"]}),
    );
    assert_eq!(filtered["paths"], json!(["a.txt"]));
    let will = server.call(
        "roo/context/willManage",
        json!({"totalTokens": 95, "contextWindow": 100}),
    );
    assert_eq!(will["willManage"], true);
    let classified = server.call(
        "roo/context/classifyError",
        json!({"error": {"status": 400, "error": {"type": "error", "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 210000 tokens > 200000 maximum"}}}}),
    );
    assert_eq!(classified["isContextWindowError"], true);
    for id in holds {
        cancel(&mut server, id);
        assert_eq!(server.response(id)["error"]["code"], -32800);
    }
}

#[test]
fn a_cancelled_heavy_request_answers_32800_and_frees_its_slot() {
    let fixture = Fixture::new(&[("a.txt", "x")]);
    let mut server = server_with_slots(&fixture);
    let holds: Vec<i64> = (0..SLOTS)
        .map(|_| server.send_request("roo/debug/hold", json!({})))
        .collect();
    // Over the inline batch size, so this one needs a blocking-pool slot: it waits for one.
    let paths: Vec<String> = (0..300).map(|i| format!("src/f{i}.ts")).collect();
    let heavy = server.send_request("roo/ignore/validateAccess", json!({"paths": paths}));
    // Quick requests still go through while every slot is taken.
    server.call("roo/workspace/status", json!({}));
    for &id in &holds {
        cancel(&mut server, id);
    }
    for &id in &holds {
        let response = server.response(id);
        assert_eq!(response["error"]["code"], -32800, "{response}");
    }
    // Only a hold that really stopped gives its slot back; otherwise this never comes.
    let response = server.response(heavy);
    assert_eq!(
        response["result"]["results"].as_array().map(Vec::len),
        Some(300),
        "{response}"
    );
}
