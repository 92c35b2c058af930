//! Black-box tests of the history held in the sidecar (issue 29): `roo/history/open|change|
//! read|flush|close` and `roo/context/manage` with a `history` reference, against a reference
//! host written here from the digest's definition in docs/protocol.md (not the server's code):
//! the host applies the ops it is sent, as a JavaScript host would, and checks the digest.
//! One file on purpose: every case is checked against the one reference `Host` defined here,
//! with the shared `open_inline`, `append`, `read_all` and `manage_params`.

use serde_json::{Map, Value, json};
use sha2::{Digest, Sha256};

use crate::harness::{Fixture, Server, assert_invalid_field};

const TAGS: [&str; 6] = [
    "condenseParent",
    "condenseId",
    "isSummary",
    "truncationParent",
    "truncationId",
    "isTruncationMarker",
];

fn first8(bytes: &[u8]) -> u64 {
    u64::from_be_bytes(bytes[..8].try_into().unwrap())
}

/// The host's side: its copy of the history and the digest computed from scratch.
#[derive(Clone, Debug, Default)]
struct Host {
    messages: Vec<Value>,
}

impl Host {
    fn content(message: &Value) -> u64 {
        let untagged: Map<String, Value> = message
            .as_object()
            .unwrap()
            .iter()
            .filter(|(k, _)| !TAGS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        first8(&Sha256::digest(
            serde_json::to_string(&untagged).unwrap().as_bytes(),
        ))
    }

    fn digest(&self) -> String {
        let mut sum = 0u64;
        for (index, message) in self.messages.iter().enumerate() {
            let mut head = Sha256::new();
            head.update(Self::content(message).to_be_bytes());
            for tag in TAGS {
                if let Some(value) = message.get(tag) {
                    head.update(format!("{tag}={value}\n").as_bytes());
                }
            }
            let head = first8(&head.finalize());
            let mut term = Sha256::new();
            term.update((index as u64).to_be_bytes());
            term.update(head.to_be_bytes());
            sum = sum.wrapping_add(first8(&term.finalize()));
        }
        format!("{sum:016x}")
    }

    /// Applies ops as a JavaScript host does (`splice`, `push`, assignment, `delete`).
    fn apply(&mut self, ops: &[Value]) {
        for op in ops {
            match op["op"].as_str().unwrap() {
                "append" => self
                    .messages
                    .extend(op["messages"].as_array().unwrap().iter().cloned()),
                "removeLast" => {
                    self.messages.pop();
                }
                "replace" => {
                    self.messages[op["index"].as_u64().unwrap() as usize] = op["message"].clone()
                }
                "truncate" => self
                    .messages
                    .truncate(op["length"].as_u64().unwrap() as usize),
                "reset" => self.messages = op["messages"].as_array().unwrap().clone(),
                "insert" => self.messages.insert(
                    op["index"].as_u64().unwrap() as usize,
                    op["message"].clone(),
                ),
                "setTags" => {
                    let tags = op["tags"].as_object().unwrap();
                    for range in op["ranges"].as_array().unwrap() {
                        let (start, end) = (range[0].as_u64().unwrap(), range[1].as_u64().unwrap());
                        for message in &mut self.messages[start as usize..end as usize] {
                            let fields = message.as_object_mut().unwrap();
                            for tag in TAGS {
                                match tags.get(tag) {
                                    Some(value) => {
                                        fields.insert(tag.into(), value.clone());
                                    }
                                    None => {
                                        fields.shift_remove(tag);
                                    }
                                }
                            }
                        }
                    }
                }
                other => panic!("unknown op {other}"),
            }
        }
    }

    /// Checks an answer's state against this copy.
    fn agrees(&self, answer: &Value) {
        assert_eq!(answer["length"], self.messages.len(), "{answer}");
        assert_eq!(answer["digest"], self.digest(), "{answer}");
    }
}

fn turn(index: usize, words: usize) -> Value {
    let role = if index.is_multiple_of(2) {
        "user"
    } else {
        "assistant"
    };
    json!({"role": role, "content": [{"type": "text", "text": format!("turn {index} {}", "word ".repeat(words))}],
           "ts": 1000 + index, "providerField": {"keep": [1.5, 2]}})
}

fn open_inline(server: &mut Server, task: &str, messages: &[Value]) -> Value {
    server.call(
        "roo/history/open",
        json!({"taskId": task, "messages": messages}),
    )
}

fn append(server: &mut Server, task: &str, base: &Value, messages: Vec<Value>) -> Value {
    server.call(
        "roo/history/change",
        json!({"taskId": task, "baseVersion": base, "ops": [{"op": "append", "messages": messages}]}),
    )
}

fn read_all(server: &mut Server, task: &str) -> Vec<Value> {
    server.call("roo/history/read", json!({"taskId": task}))["messages"]
        .as_array()
        .unwrap()
        .clone()
}

/// Replaces the random ids a run makes (`condenseId`, `truncationId` and the tags naming them)
/// by their order of appearance, so two runs compare.
fn normalize_ids(messages: &[Value]) -> Vec<Value> {
    let mut ids: Vec<String> = Vec::new();
    let mut name = |id: &str| {
        let at = ids.iter().position(|i| i == id).unwrap_or_else(|| {
            ids.push(id.to_owned());
            ids.len() - 1
        });
        json!(format!("id{at}"))
    };
    messages
        .iter()
        .map(|message| {
            let mut message = message.clone();
            for tag in [
                "condenseId",
                "condenseParent",
                "truncationId",
                "truncationParent",
            ] {
                if let Some(Value::String(id)) = message.get(tag).cloned() {
                    message[tag] = name(&id);
                }
            }
            message
        })
        .collect()
}

/// `roo/context/manage` params: `base` with the history sent whole (an array) or by reference.
fn manage_params(mut base: Value, history: Value) -> Value {
    match history {
        Value::Array(messages) => base["messages"] = json!(messages),
        reference => base["history"] = reference,
    }
    base
}

#[test]
fn a_held_history_condensed_answers_ops_that_rebuild_what_the_full_form_returns() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    server.set_host(Box::new(|_, _| {
        Ok(json!({"text": "What happened.", "cost": 0.1}))
    }));
    let messages: Vec<Value> = (0..9).map(|i| turn(i, 50)).collect();
    let mut host = Host {
        messages: messages[..5].to_vec(),
    };
    let opened = open_inline(&mut server, "t1", &host.messages);
    host.agrees(&opened);
    let changed = append(
        &mut server,
        "t1",
        &opened["version"],
        messages[5..].to_vec(),
    );
    host.apply(&[json!({"op": "append", "messages": messages[5..]})]);
    host.agrees(&changed);
    assert_eq!(changed["durable"], false);

    let params = |history: Value| {
        manage_params(
            json!({"trigger": "manual", "systemPrompt": "You are Roo.",
                   "contextWindow": 200000, "taskId": "t1"}),
            history,
        )
    };
    let held = server.call(
        "roo/context/manage",
        params(json!({"taskId": "t1", "version": changed["version"]})),
    );
    assert_eq!(held["changed"], true, "{held}");
    assert!(
        held.get("messages").is_none(),
        "no array on the wire: {held}"
    );
    let changes = &held["history"];
    assert_eq!(changes["baseVersion"], changed["version"]);
    let ops = changes["ops"].as_array().unwrap();
    let kinds: Vec<&str> = ops.iter().map(|op| op["op"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["insert", "setTags"], "{changes}");
    assert_eq!(ops[1]["ranges"], json!([[0, 9]]));
    host.apply(ops);
    host.agrees(changes);
    assert_eq!(read_all(&mut server, "t1"), host.messages);

    let full = server.call("roo/context/manage", params(json!(messages)));
    let full_messages = full["messages"].as_array().unwrap();
    assert_eq!(normalize_ids(&host.messages), normalize_ids(full_messages));
    assert_eq!(held["summary"], full["summary"]);
}

#[test]
fn a_held_history_truncated_gets_its_marker_inserted_in_the_middle() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let messages: Vec<Value> = (0..11).map(|i| turn(i, 400)).collect();
    let mut host = Host {
        messages: messages.clone(),
    };
    let opened = open_inline(&mut server, "t2", &messages);
    let params = |history: Value| {
        manage_params(
            json!({"trigger": "automatic", "contextWindow": 7000, "maxTokens": 500,
                   "autoCondenseContext": false, "taskId": "t2"}),
            history,
        )
    };
    let held = server.call(
        "roo/context/manage",
        params(json!({"taskId": "t2", "version": opened["version"]})),
    );
    assert_eq!(held["action"], "truncated", "{held}");
    let ops = held["history"]["ops"].as_array().unwrap();
    let insert = ops.iter().find(|op| op["op"] == "insert").unwrap();
    let at = insert["index"].as_u64().unwrap() as usize;
    assert!(at > 0 && at < messages.len(), "marker inside: {insert}");
    host.apply(ops);
    host.agrees(&held["history"]);
    let full = server.call("roo/context/manage", params(json!(messages)));
    assert_eq!(
        normalize_ids(&host.messages),
        normalize_ids(full["messages"].as_array().unwrap())
    );
    // Under the budget nothing changes, and nothing but numbers crossed the wire.
    let again = server.call(
        "roo/context/manage",
        params(json!({"taskId": "t2", "version": held["history"]["version"]})),
    );
    assert_eq!(again["changed"], false, "{again}");
    assert_eq!(again["history"]["ops"], json!([]));
    host.agrees(&again["history"]);
}

fn out_of_sync(error: &Value) -> &Value {
    assert_eq!(error["code"], -32010, "{error}");
    &error["data"]
}

#[test]
fn a_stale_base_an_unknown_task_and_an_unreported_change_are_caught_and_one_reset_mends_them() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let error = server
        .request(
            "roo/history/change",
            json!({"taskId": "nobody", "baseVersion": 1, "ops": []}),
        )
        .unwrap_err();
    assert_eq!(out_of_sync(&error)["server"], Value::Null);

    let mut host = Host {
        messages: (0..4).map(|i| turn(i, 3)).collect(),
    };
    let opened = open_inline(&mut server, "t3", &host.messages);
    let v2 = append(&mut server, "t3", &opened["version"], vec![turn(4, 3)]);
    host.apply(&[json!({"op": "append", "messages": [turn(4, 3)]})]);
    // A truncate on the old base is refused with the server's state.
    let error = server
        .request(
            "roo/history/change",
            json!({"taskId": "t3", "baseVersion": opened["version"], "ops": [{"op": "truncate", "length": 1}]}),
        )
        .unwrap_err();
    let data = out_of_sync(&error);
    assert_eq!(data["server"]["version"], v2["version"]);
    host.agrees(&data["server"]);
    // A batch that is wrong part way applies nothing, naming the op and field.
    let error = server
        .request(
            "roo/history/change",
            json!({"taskId": "t3", "baseVersion": v2["version"],
                   "ops": [{"op": "append", "messages": [turn(5, 1)]}, {"op": "truncate", "length": 99}]}),
        )
        .unwrap_err();
    assert_eq!(error["code"], -32602);
    assert!(
        error["message"].as_str().unwrap().contains("ops[1].length"),
        "{error}"
    );
    assert_eq!(read_all(&mut server, "t3"), host.messages);

    // The host edits its last message in place and reports nothing (the env-details rewrite):
    // its digest no longer matches the server's, which the next answer shows.
    host.messages[4]["content"][0]["text"] = json!("rewritten environment details");
    let state = server.call(
        "roo/history/read",
        json!({"taskId": "t3", "from": 0, "to": 0}),
    );
    assert_ne!(state["digest"], host.digest());
    // One reset mends it.
    let reset = server.call(
        "roo/history/change",
        json!({"taskId": "t3", "baseVersion": state["version"], "ops": [{"op": "reset", "messages": host.messages}]}),
    );
    host.agrees(&reset);
    // The host may send its own content digests; a wrong count is refused.
    let error = server
        .request(
            "roo/history/change",
            json!({"taskId": "t3", "baseVersion": reset["version"],
                   "ops": [{"op": "append", "messages": [turn(5, 1)], "contentDigests": []}]}),
        )
        .unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("ops[0].contentDigests"),
        "{error}"
    );
    // A manage naming another version is refused, never answered against the current one.
    let error = server
        .request(
            "roo/context/manage",
            json!({"trigger": "manual", "contextWindow": 100000, "history": {"taskId": "t3", "version": 1}}),
        )
        .unwrap_err();
    host.agrees(&out_of_sync(&error)["server"]);
}

#[test]
fn an_append_while_the_summary_is_written_stays_after_the_summary() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let mut host = Host {
        messages: (0..6).map(|i| turn(i, 40)).collect(),
    };
    let opened = open_inline(&mut server, "t4", &host.messages);
    let manage = server.send_request(
        "roo/context/manage",
        json!({"trigger": "manual", "contextWindow": 200000, "taskId": "t4",
               "history": {"taskId": "t4", "version": opened["version"]}}),
    );
    let summarize = server.host_request("roo/host/summarize");
    // The user sends a message while the model writes the summary.
    let appended = append(&mut server, "t4", &opened["version"], vec![turn(6, 2)]);
    host.apply(&[json!({"op": "append", "messages": [turn(6, 2)]})]);
    host.agrees(&appended);
    server.send(
        &json!({"jsonrpc": "2.0", "id": summarize["id"], "result": {"text": "So far.", "cost": 0}}),
    );
    let result = server.response(manage);
    let changes = &result["result"]["history"];
    host.apply(changes["ops"].as_array().unwrap());
    host.agrees(changes);
    let roles: Vec<bool> = host
        .messages
        .iter()
        .map(|m| m.get("isSummary").is_some())
        .collect();
    assert_eq!(
        roles,
        [false, false, false, false, false, false, true, false]
    );
    assert_eq!(host.messages[7], turn(6, 2));
    // An append sent before the host saw the condense's answer (on the older base) applies too.
    let late = append(&mut server, "t4", &appended["version"], vec![turn(7, 2)]);
    host.apply(&[json!({"op": "append", "messages": [turn(7, 2)]})]);
    host.agrees(&late);
}

#[test]
fn a_persisted_history_reopens_from_its_file_and_journal_and_the_file_is_the_agents_format() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let storage = tempfile::tempdir().unwrap();
    let dir = storage.path().to_str().unwrap();
    let mut host = Host {
        messages: (0..3).map(|i| turn(i, 5)).collect(),
    };
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let opened = server.call(
        "roo/history/open",
        json!({"taskId": "t5", "messages": host.messages, "persist": "sidecar", "storageDir": dir}),
    );
    let mut version = opened["version"].clone();
    for i in 3..40 {
        let answer = append(&mut server, "t5", &version, vec![turn(i, 200)]);
        assert_eq!(answer["durable"], true);
        host.messages.push(turn(i, 200));
        version = answer["version"].clone();
    }
    host.agrees(&server.call(
        "roo/history/read",
        json!({"taskId": "t5", "from": 0, "to": 0}),
    ));
    drop(server);
    // A new server (the old one gone without a flush) opens it from disk.
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let reopened = server.call(
        "roo/history/open",
        json!({"taskId": "t5", "source": "file", "persist": "sidecar", "storageDir": dir,
               "expect": {"length": host.messages.len(), "digest": host.digest()}}),
    );
    host.agrees(&reopened);
    let closed = server.call("roo/history/close", json!({"taskId": "t5"}));
    host.agrees(&closed);
    let file = std::fs::read(storage.path().join("api_conversation_history.json")).unwrap();
    assert_eq!(
        file,
        serde_json::to_vec(&host.messages).unwrap(),
        "compact, key order kept, no trailing newline"
    );
    // A wrong expectation is -32010 with what the file holds.
    let error = server
        .request(
            "roo/history/open",
            json!({"taskId": "t5", "source": "file", "storageDir": dir,
                   "expect": {"length": 1, "digest": "0000000000000000"}}),
        )
        .unwrap_err();
    host.agrees(&out_of_sync(&error)["server"]);
}

#[test]
fn a_kill_during_a_stream_of_appends_loses_no_acknowledged_append() {
    let storage = tempfile::tempdir().unwrap();
    let dir = storage.path().to_str().unwrap().to_owned();
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let mut server = Server::start(&[fixture.root()], Value::Null);
    let opened = server.call(
        "roo/history/open",
        json!({"taskId": "k", "messages": [], "persist": "sidecar", "storageDir": dir}),
    );
    // Acknowledged appends, then a burst whose answers are never read: the kill lands among
    // them (wherever it lands, what was acknowledged must be there).
    let mut version = opened["version"].clone();
    let mut acknowledged = 0;
    for i in 0..200 {
        version = append(&mut server, "k", &version, vec![turn(i, 30)])["version"].clone();
        acknowledged += 1;
    }
    for i in 200..400 {
        server.send_request(
            "roo/history/change",
            json!({"taskId": "k", "baseVersion": opened["version"], "ops": [{"op": "append", "messages": [turn(i, 30)]}]}),
        );
    }
    server.kill();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let reopened = server.call(
        "roo/history/open",
        json!({"taskId": "k", "source": "file", "persist": "sidecar", "storageDir": dir}),
    );
    let messages = read_all(&mut server, "k");
    assert!(messages.len() >= acknowledged, "{reopened}");
    for (i, message) in messages.iter().enumerate() {
        assert_eq!(message, &turn(i, 30), "message {i}: in order, none partial");
    }
    let host = Host { messages };
    host.agrees(&reopened);
}

#[test]
fn count_effective_and_verify_by_reference_answer_as_the_full_form() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let mut messages: Vec<Value> = (0..7).map(|i| turn(i, 20)).collect();
    messages[2]["condenseParent"] = json!("gone");
    let opened = open_inline(&mut server, "t6", &messages);
    let reference = json!({"taskId": "t6", "version": opened["version"]});
    let full = server.call("roo/tokens/count", json!({"messages": messages}));
    let held = server.call("roo/tokens/count", json!({"history": reference}));
    assert_eq!(full, held);
    let full = server.call("roo/history/effective", json!({"messages": messages}));
    let held = server.call("roo/history/effective", json!({"history": reference}));
    assert_eq!(
        held["messages"],
        json!([]),
        "nothing of the history crosses the wire"
    );
    assert_eq!(full["sourceIndices"], held["sourceIndices"]);
    assert_eq!(full["changed"], held["changed"]);
    let summary = "## 1. Previous Conversation\nturn 0 was about words.";
    let full = server.call(
        "roo/context/verifySummary",
        json!({"summary": summary, "messages": messages}),
    );
    let held = server.call(
        "roo/context/verifySummary",
        json!({"summary": summary, "history": reference}),
    );
    assert_eq!(full, held);
    // A stale version is refused by every by-reference method.
    for method in ["roo/tokens/count", "roo/history/effective"] {
        let error = server
            .request(method, json!({"history": {"taskId": "t6", "version": 99}}))
            .unwrap_err();
        assert_eq!(error["code"], -32010, "{method}: {error}");
    }
    let error = server
        .request(
            "roo/context/verifySummary",
            json!({"summary": summary, "messages": messages, "history": reference}),
        )
        .unwrap_err();
    assert!(
        error["message"].as_str().unwrap().contains("`messages`"),
        "{error}"
    );
}

#[test]
fn a_rewind_by_reference_answers_a_truncate_and_the_cleared_tags() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let api = vec![
        json!({"role": "user", "content": "task", "ts": 100, "condenseParent": "c1"}),
        json!({"role": "assistant", "content": "working", "ts": 200, "condenseParent": "c1"}),
        json!({"role": "user", "content": "the summary", "ts": 300, "isSummary": true, "condenseId": "c1"}),
        json!({"role": "assistant", "content": "after", "ts": 400}),
    ];
    let ui = json!([
        {"ts": 100, "type": "say", "say": "text", "text": "task"},
        {"ts": 300, "type": "say", "say": "condense_context", "contextCondense": {"summary": "the summary", "cost": 0}},
    ]);
    let mut host = Host {
        messages: api.clone(),
    };
    let opened = open_inline(&mut server, "t7", &api);
    let full = server.call(
        "roo/history/rewind",
        json!({"uiMessages": ui, "apiMessages": api, "ts": 300}),
    );
    let held = server.call(
        "roo/history/rewind",
        json!({"uiMessages": ui, "history": {"taskId": "t7", "version": opened["version"]}, "ts": 300}),
    );
    assert_eq!(held["apiMessages"], json!([]));
    let ops = held["history"]["ops"].as_array().unwrap();
    assert_eq!(ops[0], json!({"op": "truncate", "length": 2}), "{ops:?}");
    host.apply(ops);
    host.agrees(&held["history"]);
    assert_eq!(json!(host.messages), full["apiMessages"]);
    assert_eq!(read_all(&mut server, "t7"), host.messages);
    // An append on the base before the rewind no longer applies.
    let error = server
        .request(
            "roo/history/change",
            json!({"taskId": "t7", "baseVersion": opened["version"], "ops": [{"op": "append", "messages": [turn(9, 1)]}]}),
        )
        .unwrap_err();
    assert_eq!(error["code"], -32010, "{error}");
}

/// Red team (class g/e, a version other than the one named): a task opened again while its
/// condense waits for the summary starts a new history; the old condense must not land in it
/// (its base length may even be past the new history's end).
#[test]
fn a_condense_pending_across_a_reopen_is_dropped_never_applied_to_the_new_history() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let old: Vec<Value> = (0..6).map(|i| turn(i, 40)).collect();
    let opened = open_inline(&mut server, "t9", &old);
    // Bring the old history to version 3, so the reopened one reaches that number again.
    let v2 = append(&mut server, "t9", &opened["version"], vec![turn(6, 2)]);
    let v3 = append(&mut server, "t9", &v2["version"], vec![turn(7, 2)]);
    let manage = server.send_request(
        "roo/context/manage",
        json!({"trigger": "manual", "contextWindow": 200000, "taskId": "t9",
               "history": {"taskId": "t9", "version": v3["version"]}}),
    );
    let summarize = server.host_request("roo/host/summarize");
    // The host opens the task again with another history and brings it to version 3 too.
    let mut host = Host {
        messages: vec![
            json!({"role": "user", "content": "new task", "ts": 1}),
            json!({"role": "assistant", "content": "ok", "ts": 2}),
        ],
    };
    let reopened = open_inline(&mut server, "t9", &host.messages);
    host.agrees(&reopened);
    let mut version = reopened["version"].clone();
    for i in 0..2 {
        let message = json!({"role": "user", "content": format!("more {i}"), "ts": 3 + i});
        let answer = append(&mut server, "t9", &version, vec![message.clone()]);
        host.apply(&[json!({"op": "append", "messages": [message]})]);
        host.agrees(&answer);
        version = answer["version"].clone();
    }
    server.send(
        &json!({"jsonrpc": "2.0", "id": summarize["id"], "result": {"text": "So far.", "cost": 0}}),
    );
    let result = server.response(manage);
    // Dropped with -32010 (the history it ran on is gone), and the new history is untouched.
    let error = result
        .get("error")
        .unwrap_or_else(|| panic!("applied: {result}"));
    host.agrees(&out_of_sync(error)["server"]);
    assert_eq!(read_all(&mut server, "t9"), host.messages);
}

/// Red team (class c): what the sidecar journaled and acknowledged (`durable: true`) is not in
/// the `.json` file yet; a later open from the file with `persist: host` (the host takes the
/// writing back) must still see it, never the file alone.
#[test]
fn an_open_from_file_with_persist_host_after_persist_sidecar_keeps_the_journaled_appends() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let storage = tempfile::tempdir().unwrap();
    let dir = storage.path().to_str().unwrap();
    // Big enough that an append goes to the journal, not into a new whole file.
    let mut host = Host {
        messages: (0..3).map(|i| turn(i, 20_000)).collect(),
    };
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let opened = server.call(
        "roo/history/open",
        json!({"taskId": "p1", "messages": host.messages, "persist": "sidecar", "storageDir": dir}),
    );
    let answer = append(&mut server, "p1", &opened["version"], vec![turn(3, 5)]);
    assert_eq!(answer["durable"], true);
    host.messages.push(turn(3, 5));
    let journal = storage.path().join("api_conversation_history.journal");
    assert!(
        std::fs::metadata(&journal).unwrap().len() > 200,
        "journaled"
    );
    drop(server);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let reopened = server.call(
        "roo/history/open",
        json!({"taskId": "p1", "source": "file", "persist": "host", "storageDir": dir}),
    );
    host.agrees(&reopened);
    // The same in one process: the sidecar's held copy is replaced by the host's open.
    let reopened = server.call(
        "roo/history/open",
        json!({"taskId": "p1", "source": "file", "persist": "sidecar", "storageDir": dir}),
    );
    let answer = append(&mut server, "p1", &reopened["version"], vec![turn(4, 5)]);
    assert_eq!(answer["durable"], true);
    host.messages.push(turn(4, 5));
    let again = server.call(
        "roo/history/open",
        json!({"taskId": "p1", "source": "file", "persist": "host", "storageDir": dir}),
    );
    host.agrees(&again);
}

/// Red team (class c): two tasks persisting into one folder would write one file and one
/// journal over each other; the second is refused, naming `storageDir`.
#[test]
fn two_tasks_persisting_into_one_storage_dir_are_refused() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let storage = tempfile::tempdir().unwrap();
    let dir = storage.path().to_str().unwrap();
    let link = storage.path().with_extension("link");
    std::os::unix::fs::symlink(storage.path(), &link).unwrap();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let a = vec![turn(0, 3)];
    server.call(
        "roo/history/open",
        json!({"taskId": "a", "messages": a, "persist": "sidecar", "storageDir": dir}),
    );
    for other in [dir.to_owned(), link.to_str().unwrap().to_owned()] {
        let error = server
            .request(
                "roo/history/open",
                json!({"taskId": "b", "messages": [turn(1, 3)], "persist": "sidecar", "storageDir": other}),
            )
            .unwrap_err();
        assert_eq!(error["code"], -32602, "{error}");
        assert!(
            error["message"].as_str().unwrap().contains("storageDir"),
            "{error}"
        );
    }
    // Task a's history is intact on disk, and after a's close the folder is free for b.
    server.call("roo/history/close", json!({"taskId": "a"}));
    let file = std::fs::read(storage.path().join("api_conversation_history.json")).unwrap();
    assert_eq!(file, serde_json::to_vec(&a).unwrap());
    server.call(
        "roo/history/open",
        json!({"taskId": "b", "messages": [turn(1, 3)], "persist": "sidecar", "storageDir": dir}),
    );
    // The same task opened again in its own folder is no conflict.
    server.call(
        "roo/history/open",
        json!({"taskId": "b", "source": "file", "persist": "sidecar", "storageDir": dir}),
    );
    std::fs::remove_file(&link).unwrap();
}

/// Red team (class e, a stale base let through): an append in flight from before the task was
/// opened again names a version of the old history; once the new one reaches that number the
/// append must still be refused, never land in the new history. Versions go on across a reopen
/// (and a close), so an old base is always below the new history's floor.
#[test]
fn an_append_on_a_base_of_the_history_before_a_reopen_is_refused() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    for reopen_after_close in [false, true] {
        let task = if reopen_after_close { "r2" } else { "r1" };
        let opened = open_inline(&mut server, task, &[turn(0, 2)]);
        let v2 = append(&mut server, task, &opened["version"], vec![turn(1, 2)]);
        let v3 = append(&mut server, task, &v2["version"], vec![turn(2, 2)]);
        if reopen_after_close {
            server.call("roo/history/close", json!({"taskId": task}));
        }
        let mut host = Host {
            messages: vec![json!({"role": "user", "content": "other", "ts": 1})],
        };
        let reopened = open_inline(&mut server, task, &host.messages);
        host.agrees(&reopened);
        let mut version = reopened["version"].clone();
        for i in 0..3 {
            let message = json!({"role": "assistant", "content": format!("new {i}"), "ts": 2 + i});
            let answer = append(&mut server, task, &version, vec![message.clone()]);
            host.apply(&[json!({"op": "append", "messages": [message]})]);
            version = answer["version"].clone();
        }
        let error = server
            .request(
                "roo/history/change",
                json!({"taskId": task, "baseVersion": v3["version"],
                       "ops": [{"op": "append", "messages": [turn(3, 2)]}]}),
            )
            .unwrap_err();
        host.agrees(&out_of_sync(&error)["server"]);
        assert_eq!(read_all(&mut server, task), host.messages);
    }
}

/// Red team (class h, and the numbers of class a end to end): a message sent in a raw frame with
/// lone surrogates, a literal U+FDD0, unknown fields and numbers JavaScript writes its own way
/// digests as the host's bytes, and the agent's file holds those bytes, the tag appended.
#[test]
fn lone_surrogates_unknown_fields_and_javascript_numbers_round_trip_to_the_digest_and_the_file() {
    use crate::harness::frame;
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let storage = tempfile::tempdir().unwrap();
    let dir = storage.path().to_str().unwrap();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let msg = "{\"role\":\"user\",\"content\":\"a\\ud83d b \u{fdd0} \\ude00x\",\"ts\":1,\"zeta\":{\"b\":1,\"a\":[1e+21,0.000001]}}";
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":777,"method":"roo/history/open","params":{{"taskId":"s","messages":[{msg}],"persist":"sidecar","storageDir":{}}}}}"#,
        serde_json::to_string(dir).unwrap()
    );
    server.send_raw(&frame(&body));
    let r = server.response(777);
    let expect = {
        let content = first8(&Sha256::digest(msg.as_bytes()));
        let mut head = Sha256::new();
        head.update(content.to_be_bytes());
        let head = first8(&head.finalize());
        let mut term = Sha256::new();
        term.update(0u64.to_be_bytes());
        term.update(head.to_be_bytes());
        format!("{:016x}", first8(&term.finalize()))
    };
    assert_eq!(r["result"]["digest"], expect, "{r}");
    let body = r#"{"jsonrpc":"2.0","id":778,"method":"roo/history/change","params":{"taskId":"s","baseVersion":1,"ops":[{"op":"setTags","ranges":[[0,1]],"tags":{"condenseParent":"x\uDBFF"}}]}}"#;
    server.send_raw(&frame(body));
    let tagged = server.response(778);
    assert_eq!(tagged["result"]["durable"], true, "{tagged}");
    server.call("roo/history/close", json!({"taskId": "s"}));
    let file = std::fs::read(storage.path().join("api_conversation_history.json")).unwrap();
    let expected = format!(
        r#"[{},"condenseParent":"x\uDBFF"}}]"#,
        &msg[..msg.len() - 1]
    );
    assert_eq!(String::from_utf8(file).unwrap(), expected);
    let reopened = server.call(
        "roo/history/open",
        json!({"taskId": "s", "source": "file", "storageDir": dir}),
    );
    assert_eq!(reopened["digest"], tagged["result"]["digest"]);
}

/// Red team (class c): a host that sends its own `contentDigests` (one that differs from the
/// sidecar's computation: another writer, an old client) gets its appends acknowledged as
/// durable; a reopen from the file must still replay them, not drop them because the file's
/// recomputed digests no longer reproduce the journal's records.
#[test]
fn journaled_appends_survive_a_reopen_when_the_host_sent_its_own_content_digests() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let storage = tempfile::tempdir().unwrap();
    let dir = storage.path().to_str().unwrap();
    let messages: Vec<Value> = (0..3).map(|i| turn(i, 20_000)).collect();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let opened = server.call(
        "roo/history/open",
        json!({"taskId": "d1", "messages": messages, "persist": "sidecar", "storageDir": dir,
               "contentDigests": ["0000000000000001", "0000000000000002", "0000000000000003"]}),
    );
    let answer = append(&mut server, "d1", &opened["version"], vec![turn(3, 5)]);
    assert_eq!(answer["durable"], true);
    let answer = append(&mut server, "d1", &answer["version"], vec![turn(4, 5)]);
    assert_eq!(answer["durable"], true);
    drop(server);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let reopened = server.call(
        "roo/history/open",
        json!({"taskId": "d1", "source": "file", "persist": "sidecar", "storageDir": dir}),
    );
    assert_eq!(reopened["length"], 5, "{reopened}");
    assert!(
        !reopened["recovery"]
            .as_str()
            .unwrap_or_default()
            .contains("dropped"),
        "{reopened}"
    );
    let mut all = messages.clone();
    all.extend([turn(3, 5), turn(4, 5)]);
    assert_eq!(read_all(&mut server, "d1"), all);
}

/// Red team (class c): a failed open of a task into another folder leaves the task held and
/// persisting in its first folder; that folder stays the task's, so another task cannot
/// persist there too.
#[test]
fn a_failed_open_into_another_folder_keeps_the_first_folder_claimed() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    std::fs::write(second.path().join("api_conversation_history.json"), b"[{").unwrap();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let opened = server.call(
        "roo/history/open",
        json!({"taskId": "a", "messages": [turn(0, 3)], "persist": "sidecar",
               "storageDir": first.path().to_str().unwrap()}),
    );
    let error = server
        .request(
            "roo/history/open",
            json!({"taskId": "a", "source": "file", "persist": "sidecar",
                   "storageDir": second.path().to_str().unwrap()}),
        )
        .unwrap_err();
    assert_eq!(error["code"], -32602, "{error}");
    // Task a is still held, still persisting in the first folder.
    let answer = append(&mut server, "a", &opened["version"], vec![turn(1, 3)]);
    assert_eq!(answer["durable"], true);
    let error = server
        .request(
            "roo/history/open",
            json!({"taskId": "b", "messages": [turn(5, 3)], "persist": "sidecar",
                   "storageDir": first.path().to_str().unwrap()}),
        )
        .unwrap_err();
    assert!(
        error["message"].as_str().unwrap().contains("storageDir"),
        "{error}"
    );
}

/// Red team (class f): an op field of the wrong type or out of range is named with its op
/// (`ops[1].index`), not only the op (serde reads an internally tagged enum from a buffer).
#[test]
fn a_malformed_op_field_is_named_with_its_op() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let opened = open_inline(&mut server, "f1", &[turn(0, 1)]);
    for (op, field) in [
        (
            json!({"op": "insert", "index": -1, "message": {"role": "user"}}),
            "ops[1].index",
        ),
        (json!({"op": "truncate", "length": 1e300}), "ops[1].length"),
        (
            json!({"op": "replace", "index": 1.8446744073709552e19, "message": {}}),
            "ops[1].index",
        ),
        (
            json!({"op": "setTags", "ranges": [[0, 1, 2]], "tags": {}}),
            "ops[1].ranges",
        ),
        (
            json!({"op": "setTags", "ranges": [[0, 1]], "tags": []}),
            "ops[1].tags",
        ),
        (json!({"op": "append", "messages": {}}), "ops[1].messages"),
        (
            json!({"op": "append", "messages": [], "contentDigests": "x"}),
            "ops[1].contentDigests",
        ),
        (
            json!({"op": "removeLast", "expectRole": 5}),
            "ops[1].expectRole",
        ),
        (
            json!({"op": "insert", "index": 0, "message": {}, "contentDigest": 7}),
            "ops[1].contentDigest",
        ),
    ] {
        let error = server
            .request(
                "roo/history/change",
                json!({"taskId": "f1", "baseVersion": opened["version"],
                       "ops": [{"op": "append", "messages": []}, op]}),
            )
            .unwrap_err();
        assert_invalid_field(&error, field);
    }
    assert_eq!(read_all(&mut server, "f1"), vec![turn(0, 1)]);
    // An inline open names its own fields (once spelled `messages.messages`).
    for (params, field) in [
        (json!({"taskId": "f2", "messages": [7]}), "messages"),
        (
            json!({"taskId": "f2", "messages": [turn(0, 1)], "contentDigests": ["x"]}),
            "contentDigests[0]",
        ),
    ] {
        let error = server.request("roo/history/open", params).unwrap_err();
        assert_invalid_field(&error, field);
    }
}

/// Red team (class c): the agent's file rewritten behind the sidecar's back while it persists
/// (an old code path of the host, a sync tool): the journal no longer continues the file, so a
/// reopen sets it aside; appends acknowledged `durable` after the rewrite must not go with it.
#[test]
fn appends_acknowledged_after_the_file_was_rewritten_behind_the_sidecars_back_survive() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let storage = tempfile::tempdir().unwrap();
    let dir = storage.path().to_str().unwrap();
    let mut messages: Vec<Value> = (0..3).map(|i| turn(i, 20_000)).collect();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let opened = server.call(
        "roo/history/open",
        json!({"taskId": "w1", "messages": messages, "persist": "sidecar", "storageDir": dir}),
    );
    let file = storage.path().join("api_conversation_history.json");
    // Someone else writes the file (here: the history without its last message).
    std::fs::write(&file, serde_json::to_vec(&messages[..2]).unwrap()).unwrap();
    let answer = append(&mut server, "w1", &opened["version"], vec![turn(3, 5)]);
    assert_eq!(answer["durable"], true);
    messages.push(turn(3, 5));
    drop(server);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let reopened = server.call(
        "roo/history/open",
        json!({"taskId": "w1", "source": "file", "persist": "sidecar", "storageDir": dir}),
    );
    assert_eq!(reopened["length"], 4, "{reopened}");
    assert_eq!(read_all(&mut server, "w1"), messages);
}

/// Red team (class c): a journal a load cannot use (it continues a file someone else replaced
/// after the sidecar's last append) is set aside; the open says so in `recovery`, never
/// silently.
#[test]
fn a_journal_set_aside_on_open_is_reported_in_recovery() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let storage = tempfile::tempdir().unwrap();
    let dir = storage.path().to_str().unwrap();
    let messages: Vec<Value> = (0..3).map(|i| turn(i, 20_000)).collect();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let opened = server.call(
        "roo/history/open",
        json!({"taskId": "w2", "messages": messages, "persist": "sidecar", "storageDir": dir}),
    );
    append(&mut server, "w2", &opened["version"], vec![turn(3, 5)]);
    drop(server);
    let file = storage.path().join("api_conversation_history.json");
    std::fs::write(&file, serde_json::to_vec(&messages[..2]).unwrap()).unwrap();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let reopened = server.call(
        "roo/history/open",
        json!({"taskId": "w2", "source": "file", "persist": "sidecar", "storageDir": dir}),
    );
    assert_eq!(reopened["length"], 2, "{reopened}");
    assert!(
        reopened["recovery"]
            .as_str()
            .is_some_and(|text| text.contains("moved to")),
        "{reopened}"
    );
}
