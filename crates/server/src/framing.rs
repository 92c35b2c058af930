//! A guard in front of tower-lsp-server: it reads `Content-Length` frames from the real stdin,
//! answers malformed ones itself (-32700 / -32600, `"id": null` when no id can be read) and
//! forwards only well-formed messages to the framework, which would otherwise stop serving after
//! one bad frame (see ../shared/deps.md, pitfall 14). All output reaches stdout through one
//! writer, one whole frame at a time.

use serde_json::{Value, json};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt,
};
use tokio::sync::mpsc;
use tower_lsp_server::jsonrpc::Response;

/// Frames larger than this are refused (the body is skipped).
const MAX_FRAME_BYTES: usize = 1 << 30;
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
    frame(body.to_string().as_bytes())
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
        if line.len() < MAX_HEADER_LINE {
            let room = MAX_HEADER_LINE - line.len();
            line.extend_from_slice(&chunk[..take.min(room)]);
        }
        reader.consume(take);
        total += take;
        if done {
            return Ok(total);
        }
    }
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
            _ => {
                return Ok(Header::Garbage(format!(
                    "not a header line: {:?}",
                    text.chars().take(80).collect::<String>()
                )));
            }
        }
    }
}

/// What to do with one frame's body.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// Well-formed: forward to the framework.
    Forward,
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

/// Judges one frame body. Public for unit tests.
pub fn judge(body: &[u8]) -> Verdict {
    let Ok(text) = std::str::from_utf8(body) else {
        return Verdict::Reject(error_frame(
            Value::Null,
            -32700,
            "Parse error: invalid UTF-8",
        ));
    };
    if !text.trim_start().starts_with('{') {
        // Not an object: invalid JSON (-32700) or a valid non-object such as a batch (-32600).
        return match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Err(e) => Verdict::Reject(error_frame(
                Value::Null,
                -32700,
                &format!("Parse error: {e}"),
            )),
            Ok(_) => Verdict::Reject(error_frame(
                Value::Null,
                -32600,
                "Invalid Request: a message must be a JSON object (batches are not supported)",
            )),
        };
    }
    let envelope: Envelope = match serde_json::from_str(text) {
        Ok(envelope) => envelope,
        Err(e) if e.is_data() => {
            return Verdict::Reject(error_frame(
                Value::Null,
                -32600,
                &format!("Invalid Request: {e}"),
            ));
        }
        Err(e) => {
            return Verdict::Reject(error_frame(
                Value::Null,
                -32700,
                &format!("Parse error: {e}"),
            ));
        }
    };
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
            None | Some(Value::Null | Value::String(_)) => Verdict::Forward,
            Some(Value::Number(n)) if n.is_i64() => Verdict::Forward,
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
            Ok(_) => Verdict::Forward,
            Err(e) => Verdict::Drop(format!("invalid response from client: {e}")),
        },
    }
}

/// Pumps stdin into the framework's input, answering malformed frames through `replies`.
/// Returns when stdin closes; dropping `to_server` then ends the framework's loop.
pub async fn pump_input<R, W>(stdin: R, mut to_server: W, replies: mpsc::UnboundedSender<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = tokio::io::BufReader::with_capacity(64 * 1024, stdin);
    loop {
        let length = match read_header(&mut reader).await {
            Ok(Header::Length(n)) => n,
            Ok(Header::Eof) | Err(_) => break,
            Ok(Header::Garbage(reason)) => {
                tracing::warn!(%reason, "skipping malformed frame header");
                continue;
            }
        };
        if length > MAX_FRAME_BYTES {
            tracing::warn!(length, "frame too large; skipping its body");
            let skipped = tokio::io::copy(
                &mut (&mut reader).take(length as u64),
                &mut tokio::io::sink(),
            )
            .await;
            if skipped.map_or(true, |n| n < length as u64) {
                break;
            }
            let _ = replies.send(error_frame(
                Value::Null,
                -32600,
                "Invalid Request: frame too large",
            ));
            continue;
        }
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).await.is_err() {
            break;
        }
        match judge(&body) {
            Verdict::Forward => {
                if to_server.write_all(&frame(&body)).await.is_err() {
                    break;
                }
            }
            Verdict::Reject(reply) => {
                tracing::warn!("rejected a malformed message");
                let _ = replies.send(reply);
            }
            Verdict::Drop(reason) => tracing::warn!(%reason, "dropped a message"),
        }
    }
    let _ = to_server.shutdown().await;
}

/// Splits the framework's output into whole frames and queues them for the writer.
pub async fn pump_output<R: AsyncRead + Unpin>(
    from_server: R,
    frames: mpsc::UnboundedSender<Vec<u8>>,
) {
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
        if frames.send(frame(&body)).is_err() {
            break;
        }
    }
}

/// Writes queued frames to stdout until every sender is gone.
pub async fn write_output<W: AsyncWrite + Unpin>(
    mut stdout: W,
    mut frames: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(frame) = frames.recv().await {
        if stdout.write_all(&frame).await.is_err() || stdout.flush().await.is_err() {
            break;
        }
    }
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

    #[test]
    fn well_formed_messages_are_forwarded() {
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","id":1,"method":"x","params":{}}"#),
            Verdict::Forward
        );
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","method":"n"}"#),
            Verdict::Forward
        );
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","id":"a","result":null}"#),
            Verdict::Forward
        );
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
