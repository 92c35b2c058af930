//! A guard in front of tower-lsp-server: it reads `Content-Length` frames from the real stdin,
//! answers malformed ones itself (-32700 / -32600, with the request's id whenever it can be read)
//! and forwards only messages the framework can decode, which would otherwise stop serving after
//! one bad frame (see ../shared/deps.md, pitfall 14): invalid JSON, too deep nesting, odd ids.
//! Lone surrogate escapes are encoded on the way in and decoded on the way out
//! (`core::wire_text`). All output reaches stdout through one writer, one whole frame at a time.
//!
//! ## Decision: A frame guard in front of the framework
//!
//! tower-lsp-server stops serving after one malformed frame. `framing.rs` reads `Content-Length`
//! frames itself, answers invalid UTF-8 / invalid JSON (-32700) and non-object, batch or
//! `jsonrpc`-less messages (-32600, with the id when readable), skips garbage headers with a log
//! line (a garbage line ending in `Content-Length:` is that header: the rest of a body whose length
//! lied is glued to the next frame's header, and reading on from there costs one frame instead of
//! every later one), and forwards only what the framework can decode, through an in-memory duplex.
//! The framework's output is re-framed and written by one writer, so our error replies never
//! interleave with its frames.
//!
//! ## Decision: Nesting is bounded at the guard
//!
//! serde_json (inside the framework) refuses more than 127 nested arrays/objects and the framework
//! then stops serving, so the guard counts nesting lexically (no recursion, strings skipped) and
//! answers a deeper message -32600 with its id. The message object is level 1, so a history's
//! `tool_use.input` may nest about 120 levels. Every refused body is answered with the request's id
//! when it can be read (a top-level `"id"` found by a tolerant lexical scan, even in invalid JSON);
//! two ids or an unreadable one give `null`.

use std::borrow::Cow;

use roo_context_core::wire_text;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt,
};

use tokio::sync::{Semaphore, mpsc};
use tower_lsp_server::jsonrpc::Response;

/// Most bytes of answers and notifications queued for stdout by default. Past it the server
/// stops reading the framework's output and stdin until the client reads what is queued, so a
/// client that stops reading cannot grow the server without bound.
pub const OUTPUT_QUEUE_BYTES: usize = 8 << 20;

/// The frames waiting for the one writer, bounded by their bytes: a sender waits while the
/// queue holds more than its limit (a frame larger than the limit waits for an empty queue).
#[derive(Clone)]
pub struct Outgoing {
    frames: mpsc::UnboundedSender<(Vec<u8>, u32)>,
    room: Arc<Semaphore>,
    limit: u32,
}

/// The writer's end of [`Outgoing`].
pub struct OutgoingFrames {
    frames: mpsc::UnboundedReceiver<(Vec<u8>, u32)>,
    room: Arc<Semaphore>,
}

/// A queue for the writer holding at most `limit` bytes (at least one frame).
pub fn outgoing(limit: usize) -> (Outgoing, OutgoingFrames) {
    let limit = limit.clamp(1, u32::MAX as usize >> 1) as u32;
    let (tx, rx) = mpsc::unbounded_channel();
    let room = Arc::new(Semaphore::new(limit as usize));
    (
        Outgoing {
            frames: tx,
            room: room.clone(),
            limit,
        },
        OutgoingFrames { frames: rx, room },
    )
}

impl Outgoing {
    /// Queues one frame, waiting while the queue is full. `Err` when the writer is gone.
    pub async fn send(&self, frame: Vec<u8>) -> Result<(), ()> {
        let cost = frame.len().clamp(1, self.limit as usize) as u32;
        let permit = self.room.acquire_many(cost).await.map_err(|_| ())?;
        permit.forget();
        self.frames.send((frame, cost)).map_err(|_| ())
    }

    /// Waits until the queue is at most three quarters full (the reader of stdin waits here
    /// before each frame: nothing more is read while the client does not read its answers).
    pub async fn wait_for_room(&self) {
        let _ = self.room.acquire_many((self.limit / 4).max(1)).await;
    }
}

/// Frames larger than this are refused with an error (docs/protocol.md): the body is not read
/// as one, the guard reads on at the next header it finds (the refused body's lines are skipped
/// as garbage), so a lying length cannot make it swallow the input that follows.
pub const MAX_FRAME_BYTES: usize = 256 << 20;
/// Header lines longer than this are treated as garbage.
const MAX_HEADER_LINE: usize = 8 * 1024;

/// Encodes one frame.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn error_frame(id: Value, code: i64, message: &str) -> Vec<u8> {
    let body = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    // The id (and a quoted field) may hold encoded lone surrogates: give back the host's bytes.
    frame(&wire_text::decode_json(body.to_string().as_bytes()))
}

enum Header {
    Length(usize),
    Eof,
    Garbage(String),
}

async fn read_line_limited<R: AsyncBufRead + Unpin>(
    reader: &mut R,
    line: &mut Vec<u8>,
) -> std::io::Result<usize> {
    line.clear();
    let mut total = 0;
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(total);
        }
        let (chunk, done) = match available.iter().position(|b| *b == b'\n') {
            Some(i) => (&available[..=i], true),
            None => (available, false),
        };
        let take = chunk.len();
        // Keep the line's *end*: after a body whose Content-Length lied, the next frame's
        // header is glued to the end of the rest of that body (see `embedded_length`).
        line.extend_from_slice(&chunk[take.saturating_sub(MAX_HEADER_LINE)..]);
        if line.len() > 2 * MAX_HEADER_LINE {
            line.drain(..line.len() - MAX_HEADER_LINE);
        }
        reader.consume(take);
        total += take;
        if done {
            if line.len() > MAX_HEADER_LINE {
                line.drain(..line.len() - MAX_HEADER_LINE);
            }
            return Ok(total);
        }
    }
}

/// The `Content-Length` header at the end of a garbage line: a body shorter or longer than its
/// header said leaves its rest (usually without a newline) in front of the next frame's header,
/// and reading on from there keeps every later frame instead of losing them all.
fn embedded_length(text: &str) -> Option<&str> {
    const NAME: &str = "content-length:";
    let lower = text.to_ascii_lowercase();
    let at = lower.rfind(NAME)?;
    Some(&text[at + NAME.len()..])
}

async fn read_header<R: AsyncBufRead + Unpin>(reader: &mut R) -> std::io::Result<Header> {
    let mut length: Option<Result<usize, String>> = None;
    let mut line = Vec::new();
    let mut saw_any = false;
    loop {
        let n = read_line_limited(reader, &mut line).await?;
        if n == 0 {
            return Ok(if saw_any {
                Header::Garbage("end of input inside a header".into())
            } else {
                Header::Eof
            });
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if !saw_any {
                continue; // stray blank line between frames
            }
            return Ok(match length {
                Some(Ok(n)) => Header::Length(n),
                Some(Err(e)) => Header::Garbage(e),
                None => Header::Garbage("header without Content-Length".into()),
            });
        }
        saw_any = true;
        match text.split_once(':') {
            Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                length = Some(
                    value
                        .trim()
                        .parse::<usize>()
                        .map_err(|_| format!("invalid Content-Length {:?}", value.trim())),
                );
            }
            Some((name, _)) if name.trim().eq_ignore_ascii_case("content-type") => {}
            _ if embedded_length(text).is_some() => {
                tracing::warn!("skipping bytes before a Content-Length header");
                let value = embedded_length(text).expect("checked");
                length = Some(
                    value
                        .trim()
                        .parse::<usize>()
                        .map_err(|_| format!("invalid Content-Length {:?}", value.trim())),
                );
            }
            _ => {
                return Ok(Header::Garbage(format!(
                    "not a header line: {:?}",
                    text.chars().take(80).collect::<String>()
                )));
            }
        }
    }
}

/// The deepest nesting of arrays and objects (the message object itself counts as one) that
/// the framework parses: serde_json stops at 128 levels, and the framework stops serving on a
/// body it cannot parse, so deeper bodies are refused here.
pub const MAX_NESTING: usize = 127;

/// What to do with one frame's body.
#[derive(Debug, PartialEq)]
pub enum Verdict<'a> {
    /// Well-formed: forward this body (lone surrogates encoded, see `wire_text`).
    Forward(Cow<'a, [u8]>),
    /// Malformed: send this error frame back instead.
    Reject(Vec<u8>),
    /// Malformed with no possible reply (e.g. a bad response): log and drop.
    Drop(String),
}

/// The parts of a message the guard looks at; everything else (params, result) is validated by
/// the parser but never built, so a 50 MB history costs one allocation-free pass here.
#[derive(serde::Deserialize)]
struct Envelope {
    jsonrpc: Option<Value>,
    method: Option<Value>,
    id: Option<Value>,
    #[allow(dead_code)]
    params: Option<serde::de::IgnoredAny>,
    #[allow(dead_code)]
    result: Option<serde::de::IgnoredAny>,
    #[allow(dead_code)]
    error: Option<serde::de::IgnoredAny>,
}

fn skip_whitespace(bytes: &[u8], mut at: usize) -> usize {
    while bytes.get(at).is_some_and(|b| b.is_ascii_whitespace()) {
        at += 1;
    }
    at
}

/// The index just past the string starting at `bytes[at] == b'"'`, when it is closed.
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut at = at + 1;
    loop {
        at += memchr::memchr2(b'"', b'\\', bytes.get(at..)?)?;
        if bytes[at] == b'"' {
            return Some(at + 1);
        }
        at += 2;
    }
}

/// The index just past the JSON value starting at `bytes[at]`, by its lexical shape only
/// (containers by bracket counting, so any depth costs no stack).
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'[' | b'{' => {
            let mut depth = 0usize;
            let mut i = at;
            while i < bytes.len() {
                match bytes[i] {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'[' | b'{' => depth += 1,
                    b']' | b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => {
            let len = bytes[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
                .unwrap_or(bytes.len() - at);
            Some(at + len)
        }
    }
}

/// The request's `id` when it can be read from a body the guard refuses: the value of the one
/// top-level `"id"` key seen before anything unreadable, if it is a number or a string.
fn readable_id(bytes: &[u8]) -> Value {
    let mut at = skip_whitespace(bytes, 0);
    if bytes.get(at) != Some(&b'{') {
        return Value::Null;
    }
    at += 1;
    let mut found: Option<&[u8]> = None;
    loop {
        at = skip_whitespace(bytes, at);
        if bytes.get(at) != Some(&b'"') {
            break;
        }
        let Some(key_end) = string_end(bytes, at) else {
            break;
        };
        let key = &bytes[at..key_end];
        at = skip_whitespace(bytes, key_end);
        if bytes.get(at) != Some(&b':') {
            break;
        }
        at = skip_whitespace(bytes, at + 1);
        let Some(end) = value_end(bytes, at) else {
            break;
        };
        if key == b"\"id\"" {
            if found.is_some() {
                return Value::Null; // two ids: neither is the request's
            }
            found = Some(&bytes[at..end]);
        }
        at = skip_whitespace(bytes, end);
        if bytes.get(at) != Some(&b',') {
            break;
        }
        at += 1;
    }
    // A string id may hold a lone surrogate: read it encoded, like any body.
    match found.and_then(|raw| serde_json::from_slice::<Value>(&wire_text::encode_json(raw)).ok()) {
        Some(id @ Value::String(_)) => id,
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => Value::Number(n),
        _ => Value::Null,
    }
}

/// Whether arrays and objects nest deeper than `limit` anywhere in `bytes` (strings skipped).
fn nests_deeper_than(bytes: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'"' => match string_end(bytes, at) {
                Some(end) => {
                    at = end;
                    continue;
                }
                None => return false, // unterminated: the parser reports it
            },
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    false
}

/// Judges one frame body. Public for unit tests.
pub fn judge(body: &[u8]) -> Verdict<'_> {
    let reject =
        |code: i64, message: &str| Verdict::Reject(error_frame(readable_id(body), code, message));
    if std::str::from_utf8(body).is_err() {
        return reject(-32700, "Parse error: invalid UTF-8");
    }
    // Lone surrogate escapes (legal JSON, written by JavaScript) become characters serde_json
    // can hold; the output pump turns them back.
    let encoded = wire_text::encode_json(body);
    let text = std::str::from_utf8(&encoded).expect("encoding keeps UTF-8 valid");
    if !text.trim_start().starts_with('{') {
        // Not an object: invalid JSON (-32700) or a valid non-object such as a batch (-32600).
        return match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Err(e) => reject(-32700, &format!("Parse error: {e}")),
            Ok(_) => reject(
                -32600,
                "Invalid Request: a message must be a JSON object (batches are not supported)",
            ),
        };
    }
    let envelope: Envelope = match serde_json::from_str(text) {
        Ok(envelope) => envelope,
        Err(e) if e.is_data() => return reject(-32600, &format!("Invalid Request: {e}")),
        Err(e) => return reject(-32700, &format!("Parse error: {e}")),
    };
    // Valid JSON from here on (the envelope parse checks the whole body without recursing).
    if nests_deeper_than(text.as_bytes(), MAX_NESTING) {
        if envelope.method.is_none() {
            // A response (e.g. to `roo/host/summarize`) is never answered; its request times out.
            return Verdict::Drop(format!("a response nests deeper than {MAX_NESTING} levels"));
        }
        return reject(
            -32600,
            &format!(
                "Invalid Request: the message nests arrays and objects deeper than {MAX_NESTING} levels"
            ),
        );
    }
    let id = match &envelope.id {
        Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
        _ => Value::Null,
    };
    if envelope.jsonrpc.as_ref().and_then(Value::as_str) != Some("2.0") {
        return Verdict::Reject(error_frame(
            id,
            -32600,
            "Invalid Request: field `jsonrpc` must be \"2.0\"",
        ));
    }
    match &envelope.method {
        // The framework's `Request` takes a string method and an id that is an integer, a string
        // or null; anything else would stop it, so it is answered here.
        Some(Value::String(_)) => match &envelope.id {
            None | Some(Value::Null | Value::String(_)) => Verdict::Forward(encoded),
            Some(Value::Number(n)) if n.is_i64() => Verdict::Forward(encoded),
            Some(_) => Verdict::Reject(error_frame(
                Value::Null,
                -32600,
                "Invalid Request: field `id` must be an integer, a string or null",
            )),
        },
        Some(_) => Verdict::Reject(error_frame(
            id,
            -32600,
            "Invalid Request: field `method` must be a string",
        )),
        None => match serde_json::from_str::<Response>(text) {
            Ok(_) => Verdict::Forward(encoded),
            Err(e) => Verdict::Drop(format!("invalid response from client: {e}")),
        },
    }
}

/// Pumps stdin into the framework's input, answering malformed frames through `replies`.
/// Returns when stdin closes; dropping `to_server` then ends the framework's loop.
/// Before each frame it waits for room in the output queue (backpressure).
pub async fn pump_input<R, W>(stdin: R, mut to_server: W, replies: Outgoing)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = tokio::io::BufReader::with_capacity(64 * 1024, stdin);
    loop {
        replies.wait_for_room().await;
        let length = match read_header(&mut reader).await {
            Ok(Header::Length(n)) => n,
            Ok(Header::Eof) | Err(_) => break,
            Ok(Header::Garbage(reason)) => {
                tracing::warn!(%reason, "skipping malformed frame header");
                continue;
            }
        };
        if length > MAX_FRAME_BYTES {
            tracing::warn!(length, "frame too large; reading on at the next header");
            let message = format!(
                "Invalid Request: Content-Length {length} is over the largest frame \
                 ({MAX_FRAME_BYTES} bytes); the body is skipped up to the next header"
            );
            let _ = replies
                .send(error_frame(Value::Null, -32600, &message))
                .await;
            continue;
        }
        // Read as it arrives: a length that lies costs what was sent, not what it announced.
        let mut body = Vec::with_capacity(length.min(64 * 1024));
        match (&mut reader)
            .take(length as u64)
            .read_to_end(&mut body)
            .await
        {
            Ok(n) if n == length => {}
            _ => break,
        }
        match judge(&body) {
            Verdict::Forward(body) => {
                let header = format!("Content-Length: {}\r\n\r\n", body.len());
                if to_server.write_all(header.as_bytes()).await.is_err()
                    || to_server.write_all(&body).await.is_err()
                {
                    break;
                }
            }
            Verdict::Reject(reply) => {
                tracing::warn!("rejected a malformed message");
                let _ = replies.send(reply).await;
            }
            Verdict::Drop(reason) => tracing::warn!(%reason, "dropped a message"),
        }
    }
    let _ = to_server.shutdown().await;
}

/// Splits the framework's output into whole frames and queues them for the writer; while the
/// queue is full it reads nothing, so the framework's own bounded queues stop it in turn.
pub async fn pump_output<R: AsyncRead + Unpin>(from_server: R, frames: Outgoing) {
    let mut reader = tokio::io::BufReader::new(from_server);
    loop {
        let length = match read_header(&mut reader).await {
            Ok(Header::Length(n)) => n,
            _ => break,
        };
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).await.is_err() {
            break;
        }
        // Encoded lone surrogates go back out as the escapes the host wrote.
        if frames
            .send(frame(&wire_text::decode_json(&body)))
            .await
            .is_err()
        {
            break;
        }
    }
}

/// Writes queued frames to stdout until every sender is gone.
pub async fn write_output<W: AsyncWrite + Unpin>(mut stdout: W, mut queue: OutgoingFrames) {
    while let Some((frame, cost)) = queue.frames.recv().await {
        if stdout.write_all(&frame).await.is_err() || stdout.flush().await.is_err() {
            break;
        }
        queue.room.add_permits(cost as usize);
    }
    // Senders waiting for room must not wait for ever on a writer that is gone.
    queue.room.close();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply_of(body: &[u8]) -> Value {
        match judge(body) {
            Verdict::Reject(frame) => {
                let text = String::from_utf8(frame).unwrap();
                let json = text.split("\r\n\r\n").nth(1).unwrap();
                serde_json::from_str(json).unwrap()
            }
            other => panic!("expected a rejection, got {other:?}"),
        }
    }

    fn forwarded(body: &[u8]) -> Vec<u8> {
        match judge(body) {
            Verdict::Forward(body) => body.into_owned(),
            other => panic!("expected forwarding, got {other:?}"),
        }
    }

    #[test]
    fn well_formed_messages_are_forwarded() {
        for body in [
            &br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{}}"#[..],
            br#"{"jsonrpc":"2.0","method":"n"}"#,
            br#"{"jsonrpc":"2.0","id":"a","result":null}"#,
        ] {
            assert_eq!(forwarded(body), body);
        }
    }

    #[test]
    fn lone_surrogates_are_forwarded_encoded() {
        let body = br#"{"jsonrpc":"2.0","id":"\ud800","method":"x","params":{"t":"a\ud83d b"}}"#;
        let encoded = forwarded(body);
        let value: Value = serde_json::from_slice(&encoded).unwrap();
        assert_eq!(
            wire_text::model_text(value["params"]["t"].as_str().unwrap()),
            "a\u{FFFD} b"
        );
        assert_eq!(&*wire_text::decode_json(value.to_string().as_bytes()), body);
    }

    #[test]
    fn nesting_is_limited_with_the_id_answered() {
        let nested = |depth: usize| {
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"x\",\"params\":{}{}}}",
                "[".repeat(depth),
                "]".repeat(depth)
            )
        };
        // The message object counts as one level.
        assert!(matches!(
            judge(nested(MAX_NESTING - 1).as_bytes()),
            Verdict::Forward(_)
        ));
        let refused = reply_of(nested(MAX_NESTING).as_bytes());
        assert_eq!(refused["error"]["code"], -32600);
        assert_eq!(refused["id"], 9);
        let strings = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":\"{}\\\"{}\"}}",
            "[{".repeat(500),
            "[".repeat(500)
        );
        assert!(matches!(judge(strings.as_bytes()), Verdict::Forward(_)));
    }

    #[test]
    fn a_too_deep_response_is_dropped_not_answered() {
        let body = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}{}}}",
            "[".repeat(200),
            "]".repeat(200)
        );
        assert!(matches!(judge(body.as_bytes()), Verdict::Drop(_)));
    }

    #[test]
    fn the_id_is_read_from_refused_bodies_when_possible() {
        assert_eq!(
            reply_of(br#"{"jsonrpc":"2.0","id":4,"method":"x","params":{bad}}"#)["id"],
            4
        );
        assert_eq!(reply_of(b"{\"id\":\"q\",\"x\":\"\xff\"}")["id"], "q");
        assert_eq!(
            reply_of(br#"{"jsonrpc":"1.0","id":5,"method":"x"}"#)["id"],
            5
        );
        assert_eq!(
            reply_of(br#"{"jsonrpc":"2.0","id":6,"method":"x","params":"\ud83"}"#)["id"],
            6
        );
        assert_eq!(
            reply_of(br#"{"jsonrpc":"2.0","params":[[[,"id":7}"#)["id"],
            Value::Null
        );
        assert_eq!(
            reply_of(br#"{"id":1,"id":2,"method":"x"}"#)["id"],
            Value::Null
        );
        assert_eq!(reply_of(br#"[{"id":1}]"#)["id"], Value::Null);
    }

    #[test]
    fn malformed_bodies_get_the_right_error() {
        assert_eq!(reply_of(b"{not json")["error"]["code"], -32700);
        assert_eq!(reply_of(b"\xff\xfe")["error"]["code"], -32700);
        assert_eq!(reply_of(b"[1,2]")["error"]["code"], -32600);
        assert_eq!(reply_of(b"\"str\"")["error"]["code"], -32600);
        let missing = reply_of(br#"{"id":7,"method":"x"}"#);
        assert_eq!(missing["error"]["code"], -32600);
        assert_eq!(missing["id"], 7);
        let deep = "[".repeat(10_000);
        assert_eq!(reply_of(deep.as_bytes())["error"]["code"], -32700);
        let deep_params = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{}}}",
            "[".repeat(10_000)
        );
        assert_eq!(reply_of(deep_params.as_bytes())["error"]["code"], -32700);
        assert_eq!(
            reply_of(br#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#)["error"]["code"],
            -32600
        );
        assert_eq!(
            reply_of(br#"{"jsonrpc":"2.0","id":{"a":1},"method":"x"}"#)["error"]["code"],
            -32600
        );
        assert_eq!(reply_of(br#"{"jsonrpc":"2.0","id":3,"method":7}"#)["id"], 3);
        assert_eq!(
            reply_of(br#"{"jsonrpc":"2.0","id":3,"id":4,"method":"x"}"#)["error"]["code"],
            -32600
        );
    }
}
