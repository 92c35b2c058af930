//! The floor of a round trip: a JSON-RPC responder on the server's stdio framing that does no
//! work. It reads each `Content-Length` frame, parses it (as the server must, to find the id) and
//! answers a request with the bytes in `TRIVIAL_RESULT` (default `null`; `initialize` gets empty
//! capabilities), flushing each answer as the server does. `editors/vscode/scripts/bench-roundtrip.mjs`
//! drives it and the real server from the same Node client, so their ratio is what the server's
//! framework, handler and writer add to the pipes and the framing (issue 29).
//!
//! Run: `cargo build --release -p roo-context --example trivial_responder`.

use std::io::{BufRead, BufReader, Read, Write};

fn main() -> std::io::Result<()> {
    let result = std::env::var("TRIVIAL_RESULT").unwrap_or_else(|_| "null".to_owned());
    let mut input = BufReader::new(std::io::stdin().lock());
    let mut output = std::io::stdout().lock();
    let mut header = String::new();
    loop {
        let mut length = None;
        loop {
            header.clear();
            if input.read_line(&mut header)? == 0 {
                return Ok(());
            }
            let line = header.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(value) = line.strip_prefix("Content-Length:") {
                length = value.trim().parse::<usize>().ok();
            }
        }
        let Some(length) = length else { continue };
        let mut body = vec![0; length];
        input.read_exact(&mut body)?;
        let message: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
        let Some(id) = message.get("id") else {
            if message["method"] == "exit" {
                return Ok(());
            }
            continue;
        };
        let answer = match message["method"].as_str() {
            Some("initialize") => r#"{"capabilities":{}}"#,
            Some("shutdown") => "null",
            _ => result.as_str(),
        };
        let reply = format!(r#"{{"jsonrpc":"2.0","result":{answer},"id":{id}}}"#);
        write!(output, "Content-Length: {}\r\n\r\n{reply}", reply.len())?;
        output.flush()?;
    }
}
