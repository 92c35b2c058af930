//! A byte-level JSON-RPC client for tests that must see the exact bytes the server writes (lone
//! surrogate escapes, which serde_json cannot parse) and send bodies no well-behaved client would.
//! It knows nothing of the server's own encoding: it reads JSON by its lexical shape only.

#![allow(dead_code)]

use std::io::Write;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;

use serde_json::Value;

use crate::harness::{DEADLINE, binary, frame, read_bodies};

/// Answers a server-to-client request: (method, lenient params, raw body) → raw `result` JSON.
pub type RawHost = Box<dyn FnMut(&str, &Value, &[u8]) -> String + Send>;

/// A running server spoken to in bytes.
pub struct RawServer {
    child: Child,
    stdin: Option<ChildStdin>,
    incoming: mpsc::Receiver<Vec<u8>>,
    next_id: i64,
    host: Option<RawHost>,
    /// Bodies of server-to-client requests seen so far.
    pub host_requests: Vec<Vec<u8>>,
}

/// Parses JSON that may hold lone surrogate escapes, reading each such escape as U+FFFD (good
/// enough to look at ids, numbers and structure; compare texts with [`span`] instead).
pub fn lenient(body: &[u8]) -> Value {
    let text = std::str::from_utf8(body).expect("server wrote UTF-8");
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let escape = &rest[at..];
        let unit = escape
            .strip_prefix("\\u")
            .and_then(|hex| hex.get(..4))
            .and_then(|hex| u32::from_str_radix(hex, 16).ok());
        match unit {
            Some(0xD800..=0xDFFF) => {
                out.push_str("\\ufffd");
                rest = &escape[6..];
            }
            _ => {
                let len = 1 + escape[1..].chars().next().map_or(0, char::len_utf8);
                out.push_str(&escape[..len]);
                rest = &escape[len..];
            }
        }
    }
    out.push_str(rest);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("server wrote invalid JSON ({e}): {text}"))
}

fn skip_ws(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() && bytes[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

fn string_end(bytes: &[u8], mut at: usize) -> usize {
    at += 1;
    loop {
        match bytes[at] {
            b'"' => return at + 1,
            b'\\' => at += 2,
            _ => at += 1,
        }
    }
}

/// The end of the JSON value that starts at `at`.
fn value_end(bytes: &[u8], at: usize) -> usize {
    match bytes[at] {
        b'"' => string_end(bytes, at),
        b'[' | b'{' => {
            let mut depth = 0;
            let mut i = at;
            loop {
                match bytes[i] {
                    b'"' => {
                        i = string_end(bytes, i);
                        continue;
                    }
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
        }
        _ => {
            let mut i = at;
            while i < bytes.len() && !matches!(bytes[i], b',' | b']' | b'}') {
                i += 1;
            }
            i
        }
    }
}

/// The raw bytes of the elements of the array that starts at `at`.
pub fn elements(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut at = skip_ws(bytes, 0);
    assert_eq!(bytes[at], b'[', "not an array");
    at = skip_ws(bytes, at + 1);
    if bytes[at] == b']' {
        return out;
    }
    loop {
        let end = value_end(bytes, at);
        out.push(&bytes[at..end]);
        at = skip_ws(bytes, end);
        if bytes[at] == b']' {
            return out;
        }
        at = skip_ws(bytes, at + 1);
    }
}

/// The raw bytes of `object.key` (one level), when present.
pub fn member<'a>(object: &'a [u8], key: &str) -> Option<&'a [u8]> {
    let mut at = skip_ws(object, 0);
    assert_eq!(object[at], b'{', "not an object");
    at = skip_ws(object, at + 1);
    while object[at] == b'"' {
        let key_end = string_end(object, at);
        let this = &object[at..key_end];
        at = skip_ws(object, key_end) + 1; // the colon
        at = skip_ws(object, at);
        let end = value_end(object, at);
        if this == format!("\"{key}\"").as_bytes() {
            return Some(&object[at..end]);
        }
        at = skip_ws(object, end);
        if object[at] == b',' {
            at = skip_ws(object, at + 1);
        }
    }
    None
}

/// The raw bytes at a path of keys inside a body.
pub fn span<'a>(body: &'a [u8], path: &[&str]) -> &'a [u8] {
    path.iter().fold(body, |bytes, key| {
        member(bytes, key).unwrap_or_else(|| {
            panic!(
                "no {key:?} in {}",
                String::from_utf8_lossy(&bytes[..bytes.len().min(400)])
            )
        })
    })
}

impl RawServer {
    /// Spawns `roo-context serve`.
    pub fn spawn() -> RawServer {
        let mut child = Command::new(binary())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .env("ROO_CONTEXT_LOG", "error")
            .spawn()
            .expect("spawn roo-context");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || read_bodies(stdout, tx, |body| body));
        RawServer {
            stdin: child.stdin.take(),
            child,
            incoming: rx,
            next_id: 1,
            host: None,
            host_requests: Vec::new(),
        }
    }

    /// Spawns and initializes with no workspace folder.
    pub fn start() -> RawServer {
        RawServer::start_in(None)
    }

    /// Spawns and initializes, with one workspace folder when given.
    pub fn start_in(folder: Option<&std::path::Path>) -> RawServer {
        let mut server = RawServer::spawn();
        let folders = folder.map_or("null".to_owned(), |folder| {
            format!(
                r#"[{{"uri":"{}","name":"w"}}]"#,
                crate::harness::file_uri(folder)
            )
        });
        let body = server.call(
            "initialize",
            &format!(r#"{{"processId":null,"capabilities":{{}},"workspaceFolders":{folders}}}"#),
        );
        assert!(lenient(&body).get("result").is_some());
        server.send_body(br#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#);
        server
    }

    /// Installs the answerer of server-to-client requests.
    pub fn set_host(&mut self, host: RawHost) {
        self.host = Some(host);
    }

    /// Writes raw bytes.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to server");
        stdin.flush().expect("flush");
    }

    /// Frames and sends one body.
    pub fn send_body(&mut self, body: &[u8]) {
        self.send_raw(&frame_bytes(body));
    }

    /// A fresh request id.
    pub fn fresh_id(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// The next message that is not a server-to-client request (those are answered).
    pub fn next_body(&mut self) -> Vec<u8> {
        loop {
            let body = self
                .incoming
                .recv_timeout(DEADLINE)
                .expect("server sent nothing before the deadline (is it still alive?)");
            let value = lenient(&body);
            if let (Some(method), Some(id)) = (value.get("method"), value.get("id")) {
                let method = method.as_str().unwrap_or_default().to_owned();
                let result = match self.host.as_mut() {
                    Some(host) => host(&method, &value["params"], &body),
                    None => "null".to_owned(),
                };
                self.host_requests.push(body);
                let reply = format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#);
                self.send_body(reply.as_bytes());
                continue;
            }
            if value.get("id").is_none() {
                continue; // a notification
            }
            return body;
        }
    }

    /// Sends `{"jsonrpc":"2.0","id":N,"method":..,"params":PARAMS}` (params as raw JSON) and
    /// returns the raw response body.
    pub fn call(&mut self, method: &str, params: &str) -> Vec<u8> {
        let id = self.fresh_id();
        let body =
            format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"{method}","params":{params}}}"#);
        self.send_body(body.as_bytes());
        let response = self.next_body();
        assert_eq!(
            lenient(&response)["id"],
            id,
            "answer out of order: {}",
            String::from_utf8_lossy(&response)
        );
        response
    }

    /// The raw `result` of a call that must succeed.
    pub fn result(&mut self, method: &str, params: &str) -> Vec<u8> {
        let response = self.call(method, params);
        let value = lenient(&response);
        assert!(
            value.get("error").is_none(),
            "{method} failed: {}",
            String::from_utf8_lossy(&response)
        );
        member(&response, "result").unwrap().to_vec()
    }

    /// Fails unless an ordinary request is answered normally.
    pub fn assert_alive(&mut self) {
        let result = lenient(&self.result("roo/tokens/count", r#"{"text":"still here"}"#));
        assert!(result["total"].as_u64().unwrap() > 0);
    }

    /// Closes stdin.
    pub fn close_stdin(&mut self) {
        self.stdin.take();
    }

    /// Waits for the process to end.
    pub fn wait(&mut self) -> ExitStatus {
        self.child.wait().expect("wait")
    }
}

impl Drop for RawServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Frames a body given as bytes (for bodies that are not UTF-8).
pub fn frame_bytes(body: &[u8]) -> Vec<u8> {
    roo_context::stdio_client::frame(body)
}

/// `frame` of the text harness, re-exported for symmetry.
pub fn frame_text(body: &str) -> Vec<u8> {
    frame(body)
}
