//! The frame guard on one connection: every kind of refused body gets its answer (with the
//! request's id whenever it can be read) and the next ordinary request is served; nesting of any
//! depth, in params or inside a history, never stops the server; `exit` ends the process while
//! the client keeps stdin open.

use serde_json::{Value, json};

use crate::raw::{RawServer, elements, frame_bytes, lenient, span};

/// The deepest total nesting (the message object counts as one) the server accepts.
const MAX_NESTING: usize = 127;

/// What a refused body must get back.
enum Expect {
    /// An error with this code and this id.
    Error(i64, Value),
    /// Nothing (no reply is possible, e.g. a malformed response or header).
    Nothing,
}

#[test]
fn every_refused_body_is_answered_and_serving_goes_on() {
    let mut server = RawServer::start();
    let deep_params = format!(
        r#"{{"jsonrpc":"2.0","id":113,"method":"roo/tokens/count","params":{{"text":"x","d":{}{}}}}}"#,
        "[".repeat(300),
        "]".repeat(300)
    );
    let deep_history = format!(
        r#"{{"jsonrpc":"2.0","id":"deep","method":"roo/history/effective","params":{{"messages":[{{"role":"assistant","content":[{{"type":"tool_use","id":"t","name":"n","input":{}1{}}}]}}]}}}}"#,
        r#"{"a":"#.repeat(200),
        "}".repeat(200)
    );
    let cases: Vec<(&str, Vec<u8>, Expect)> = vec![
        (
            "invalid JSON in params",
            frame_bytes(br#"{"jsonrpc":"2.0","id":101,"method":"roo/tokens/count","params":{bad}}"#),
            Expect::Error(-32700, json!(101)),
        ),
        (
            "invalid UTF-8",
            frame_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":102,\"method\":\"roo/tokens/count\",\"params\":{\"text\":\"\xff\xfe\"}}"),
            Expect::Error(-32700, json!(102)),
        ),
        (
            "truncated body",
            frame_bytes(br#"{"jsonrpc":"2.0","id":103,"method":"roo/tokens/count","params":{"text":"ab"#),
            Expect::Error(-32700, json!(103)),
        ),
        (
            "short surrogate escape",
            frame_bytes(br#"{"jsonrpc":"2.0","id":104,"method":"roo/tokens/count","params":{"text":"\ud83"}}"#),
            Expect::Error(-32700, json!(104)),
        ),
        (
            "bad hex escape",
            frame_bytes(br#"{"jsonrpc":"2.0","id":"s105","method":"roo/tokens/count","params":{"text":"\uZZZZ"}}"#),
            Expect::Error(-32700, json!("s105")),
        ),
        (
            "raw control character",
            frame_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":106,\"method\":\"roo/tokens/count\",\"params\":{\"text\":\"a\x01b\"}}"),
            Expect::Error(-32700, json!(106)),
        ),
        (
            "empty body",
            frame_bytes(b""),
            Expect::Error(-32700, Value::Null),
        ),
        (
            "whitespace body",
            frame_bytes(b" \r\n\t "),
            Expect::Error(-32700, Value::Null),
        ),
        (
            "byte-order mark",
            frame_bytes(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}"),
            Expect::Error(-32700, Value::Null),
        ),
        (
            "batch",
            frame_bytes(br#"[{"jsonrpc":"2.0","id":107,"method":"roo/tokens/count"}]"#),
            Expect::Error(-32600, Value::Null),
        ),
        ("string", frame_bytes(br#""hello""#), Expect::Error(-32600, Value::Null)),
        ("number", frame_bytes(b"42"), Expect::Error(-32600, Value::Null)),
        ("null", frame_bytes(b"null"), Expect::Error(-32600, Value::Null)),
        (
            "missing jsonrpc",
            frame_bytes(br#"{"id":108,"method":"roo/tokens/count"}"#),
            Expect::Error(-32600, json!(108)),
        ),
        (
            "wrong jsonrpc",
            frame_bytes(br#"{"jsonrpc":"1.0","id":109,"method":"roo/tokens/count"}"#),
            Expect::Error(-32600, json!(109)),
        ),
        (
            "method not a string",
            frame_bytes(br#"{"jsonrpc":"2.0","id":110,"method":7}"#),
            Expect::Error(-32600, json!(110)),
        ),
        (
            "fractional id",
            frame_bytes(br#"{"jsonrpc":"2.0","id":1.5,"method":"roo/tokens/count"}"#),
            Expect::Error(-32600, Value::Null),
        ),
        (
            "object id",
            frame_bytes(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"roo/tokens/count"}"#),
            Expect::Error(-32600, Value::Null),
        ),
        (
            "duplicate id",
            frame_bytes(br#"{"jsonrpc":"2.0","id":111,"id":112,"method":"roo/tokens/count"}"#),
            Expect::Error(-32600, Value::Null),
        ),
        (
            "params nested 300 deep",
            frame_bytes(deep_params.as_bytes()),
            Expect::Error(-32600, json!(113)),
        ),
        (
            "history with a tool input nested 200 deep",
            frame_bytes(deep_history.as_bytes()),
            Expect::Error(-32600, json!("deep")),
        ),
        (
            "bare nesting 100 000 deep",
            frame_bytes("[".repeat(100_000).as_bytes()),
            Expect::Error(-32700, Value::Null),
        ),
        (
            "closed nesting 100 000 deep",
            frame_bytes(format!("{}{}", "[".repeat(100_000), "]".repeat(100_000)).as_bytes()),
            Expect::Error(-32600, Value::Null),
        ),
        (
            "a response nested 200 deep",
            frame_bytes(
                format!(
                    r#"{{"jsonrpc":"2.0","id":77,"result":{}{}}}"#,
                    "[".repeat(200),
                    "]".repeat(200)
                )
                .as_bytes(),
            ),
            Expect::Nothing,
        ),
        (
            "a response that is neither result nor error",
            frame_bytes(br#"{"jsonrpc":"2.0","id":5}"#),
            Expect::Nothing,
        ),
        ("garbage header", b"Hello there\r\n\r\n".to_vec(), Expect::Nothing),
        (
            "header without Content-Length",
            b"Content-Type: x\r\n\r\n".to_vec(),
            Expect::Nothing,
        ),
        (
            "invalid Content-Length",
            b"Content-Length: lots\r\n\r\n".to_vec(),
            Expect::Nothing,
        ),
    ];
    for (kind, bytes, expect) in cases {
        server.send_raw(&bytes);
        match expect {
            Expect::Error(code, id) => {
                let reply = server.next_body();
                let value = lenient(&reply);
                assert_eq!(value["error"]["code"], code, "{kind}: {value}");
                assert_eq!(value["id"], id, "{kind}: {value}");
            }
            Expect::Nothing => {}
        }
        // The very next answer is the ordinary request's: nothing else was sent for the case.
        server.assert_alive();
    }
    // An id holding a lone surrogate comes back as the host wrote it.
    server.send_body(
        br#"{"jsonrpc":"2.0","id":"r\ud800","method":"roo/tokens/count","params":{bad}}"#,
    );
    let reply = server.next_body();
    assert_eq!(
        span(&reply, &["id"]),
        br#""r\ud800""#,
        "{}",
        String::from_utf8_lossy(&reply)
    );
    server.assert_alive();
    // Served with a lone surrogate id too.
    server.send_body(
        br#"{"jsonrpc":"2.0","id":"q\udc00","method":"roo/tokens/count","params":{"text":"a"}}"#,
    );
    let reply = server.next_body();
    assert_eq!(span(&reply, &["id"]), br#""q\udc00""#);
    assert!(lenient(&reply)["result"]["total"].as_u64().unwrap() > 0);
}

/// `[[…1…]]` or `{"a":{"a":…1…}}` nested `depth` levels.
fn nested(depth: usize, objects: bool) -> String {
    if objects {
        format!("{}1{}", r#"{"a":"#.repeat(depth), "}".repeat(depth))
    } else {
        format!("{}1{}", "[".repeat(depth), "]".repeat(depth))
    }
}

#[test]
fn any_nesting_depth_is_answered_and_serving_goes_on() {
    let mut server = RawServer::start();
    for depth in 1..=2000 {
        for objects in [false, true] {
            let value = nested(depth, objects);
            // In params: message(1) + params(2) + the value.
            let id = server.fresh_id();
            server.send_body(
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"roo/tokens/count","params":{{"blocks":[{{"type":"tool_use","id":"t","name":"n","input":{value}}}]}}}}"#
                )
                .as_bytes(),
            );
            let reply = lenient(&server.next_body());
            assert_eq!(reply["id"], id, "depth {depth}");
            // message, params, blocks, block: 4 levels above the value.
            if 4 + depth <= MAX_NESTING {
                assert!(
                    reply["result"]["total"].as_u64().unwrap() > 0,
                    "depth {depth}: {reply}"
                );
            } else {
                assert_eq!(reply["error"]["code"], -32600, "depth {depth}: {reply}");
            }
            // Inside a history: message, params, messages, message, content, block.
            let message = format!(
                r#"{{"role":"assistant","content":[{{"type":"tool_use","id":"t","name":"n","input":{value}}}]}}"#
            );
            let id = server.fresh_id();
            server.send_body(
                format!(
                    r#"{{"jsonrpc":"2.0","id":{id},"method":"roo/history/effective","params":{{"messages":[{message}]}}}}"#
                )
                .as_bytes(),
            );
            let body = server.next_body();
            let reply = lenient(&body);
            assert_eq!(reply["id"], id, "depth {depth}");
            if 6 + depth <= MAX_NESTING {
                let returned = elements(span(&body, &["result", "messages"]));
                assert_eq!(returned, [message.as_bytes()], "depth {depth}");
            } else {
                assert_eq!(reply["error"]["code"], -32600, "depth {depth}: {reply}");
            }
        }
    }
    server.assert_alive();
}

#[test]
fn exit_ends_the_process_while_the_client_keeps_stdin_open() {
    // The paused-clock unit test in main.rs shows that nothing waits; here the real binary
    // must end on its own (stdin stays open until after `wait`) with every answer flushed.
    let mut server = RawServer::start();
    server.assert_alive();
    let shutdown = server.call("shutdown", "null");
    assert!(lenient(&shutdown).get("error").is_none());
    server.send_body(br#"{"jsonrpc":"2.0","method":"exit"}"#);
    let status = server.wait();
    assert!(status.success(), "{status:?}");
}
