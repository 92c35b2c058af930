//! State changes apply in the order the client sent them, although the framework may run
//! handlers concurrently: hundreds of interleaved updates and queries, written at once.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

#[test]
fn interleaved_settings_updates_and_queries_apply_in_client_order() {
    let fixture = Fixture::new(&[]);
    let mut server = Server::start(&[fixture.root()], Value::Null);
    const ROUNDS: usize = 400;
    let mut batch = Vec::new();
    let mut ids = Vec::new();
    for round in 0..ROUNDS {
        let update = json!({"jsonrpc": "2.0", "method": "roo/settings/update",
            "params": {"extraProtectedPatterns": [format!("marker-{round}.txt")]}});
        batch.extend(crate::harness::frame(&update.to_string()));
        let id = 10_000 + round as i64;
        let query = json!({"jsonrpc": "2.0", "id": id, "method": "roo/protect/check",
            "params": {"paths": [format!("marker-{round}.txt"), format!("marker-{}.txt", round + 1)]}});
        batch.extend(crate::harness::frame(&query.to_string()));
        ids.push(id);
    }
    server.send_raw(&batch);
    for (round, id) in ids.into_iter().enumerate() {
        let response = server.response(id);
        let results = &response["result"]["results"];
        assert_eq!(
            results[0]["isProtected"], true,
            "round {round}: own marker must be protected"
        );
        assert_eq!(
            results[1]["isProtected"], false,
            "round {round}: a later update leaked in"
        );
    }
    let status = server.call("roo/workspace/status", json!({}));
    assert_eq!(
        status["settings"]["extraProtectedPatterns"],
        json!([format!("marker-{}.txt", ROUNDS - 1)])
    );
}
