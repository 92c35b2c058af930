//! Bad input on the wire: malformed frames, invalid params, unknown methods and panics never end
//! the server, and every error names what is wrong.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server, frame};

fn still_serving(server: &mut Server) {
    let status = server.call("roo/workspace/status", json!({}));
    assert!(status["folders"].is_array());
}

#[test]
fn malformed_frames_get_errors_and_serving_goes_on() {
    let fixture = Fixture::new(&[]);
    let mut server = Server::start(&[fixture.root()], Value::Null);
    let cases: Vec<(Vec<u8>, i64)> = vec![
        (frame("{not json"), -32700),
        (frame("[1,2,3]"), -32600),
        (frame("\"just a string\""), -32600),
        (
            frame(r#"{"id": 99, "method": "roo/workspace/status"}"#),
            -32600,
        ),
        (frame(&"[".repeat(100_000)), -32700),
        (
            {
                let mut bytes = b"Content-Length: 4\r\n\r\n".to_vec();
                bytes.extend_from_slice(&[0xff, 0xfe, 0xfd, 0xfc]);
                bytes
            },
            -32700,
        ),
    ];
    for (bytes, code) in cases {
        server.send_raw(&bytes);
        let reply = server.next_reply();
        assert_eq!(reply["error"]["code"], code, "reply {reply}");
        still_serving(&mut server);
    }
    // A missing `jsonrpc` keeps the id in the error.
    server.send_raw(&frame(r#"{"id": 99, "method": "x"}"#));
    assert_eq!(server.next_reply()["id"], 99);
    // Garbage headers and a header without Content-Length are skipped.
    server.send_raw(b"Hello there\r\n\r\n");
    server.send_raw(b"Content-Type: x\r\n\r\n");
    still_serving(&mut server);
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn unknown_method_is_method_not_found() {
    let fixture = Fixture::new(&[]);
    let mut server = Server::start(&[fixture.root()], Value::Null);
    let error = server.request("roo/does/not/exist", json!({})).unwrap_err();
    assert_eq!(error["code"], -32601);
    still_serving(&mut server);
}

#[test]
fn invalid_params_name_the_offending_field() {
    let fixture = Fixture::new(&[]);
    let mut server = Server::start(&[fixture.root()], Value::Null);
    let error = server
        .request("roo/ignore/validateAccess", json!({"paths": ["ok", 3]}))
        .unwrap_err();
    assert_eq!(error["code"], -32602);
    assert!(
        error["message"].as_str().unwrap().contains("paths[1]"),
        "{error}"
    );

    let error = server
        .request("roo/ignore/validateAccess", json!({}))
        .unwrap_err();
    assert!(
        error["message"].as_str().unwrap().contains("`paths`"),
        "{error}"
    );

    let error = server
        .request("roo/ignore/validateCommand", json!({"command": {"x": 1}}))
        .unwrap_err();
    assert!(
        error["message"].as_str().unwrap().contains("command"),
        "{error}"
    );
    still_serving(&mut server);
}

#[test]
fn a_panicking_handler_returns_internal_error_and_the_server_keeps_serving() {
    let fixture = Fixture::new(&[]);
    let mut server = Server::spawn_with_env(&[("ROO_CONTEXT_DEBUG_METHODS", "1")]);
    server.initialize(&[fixture.root()], Value::Null).unwrap();
    let error = server
        .request("roo/debug/panic", json!({"message": "boom"}))
        .unwrap_err();
    assert_eq!(error["code"], -32603);
    assert!(error["message"].as_str().unwrap().contains("boom"));
    still_serving(&mut server);
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn debug_methods_are_absent_by_default() {
    let fixture = Fixture::new(&[]);
    let mut server = Server::start(&[fixture.root()], Value::Null);
    let error = server.request("roo/debug/panic", json!({})).unwrap_err();
    assert_eq!(error["code"], -32601);
}
