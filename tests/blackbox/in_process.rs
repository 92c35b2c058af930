//! The server as a library: `roo_context::run` serves a client over an in-memory duplex stream,
//! in this process, with the same framing and answers as the binary over stdio.

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};

use crate::harness::{Fixture, file_uri};

async fn send(to_server: &mut DuplexStream, message: Value) {
    let body = message.to_string();
    let frame = format!("Content-Length: {}\r\n\r\n{body}", body.len());
    to_server.write_all(frame.as_bytes()).await.unwrap();
}

/// Reads frames until the response with `id`.
async fn response(from_server: &mut DuplexStream, buffer: &mut Vec<u8>, id: i64) -> Value {
    loop {
        while let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let header = String::from_utf8_lossy(&buffer[..end]).to_string();
            let length: usize = header
                .lines()
                .find_map(|l| l.strip_prefix("Content-Length: "))
                .and_then(|n| n.trim().parse().ok())
                .expect("a Content-Length header");
            if buffer.len() < end + 4 + length {
                break;
            }
            let body: Value = serde_json::from_slice(&buffer[end + 4..end + 4 + length]).unwrap();
            buffer.drain(..end + 4 + length);
            if body["id"] == id {
                return body;
            }
        }
        let mut chunk = [0u8; 8192];
        let n = from_server.read(&mut chunk).await.unwrap();
        assert!(n > 0, "the server closed its output before answering {id}");
        buffer.extend_from_slice(&chunk[..n]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_library_serves_a_client_over_an_in_memory_duplex() {
    let fixture = Fixture::new(&[(".rooignore", "secret.txt\n"), ("a.txt", "a")]);
    let (mut to_server, server_input) = tokio::io::duplex(64 * 1024);
    let (server_output, mut from_server) = tokio::io::duplex(64 * 1024);
    let shutdown_requested = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let serving = tokio::spawn(roo_context::run(
        server_input,
        server_output,
        None,
        shutdown_requested.clone(),
    ));
    let mut buffer = Vec::new();
    let root = file_uri(fixture.root());
    send(
        &mut to_server,
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"capabilities": {}, "workspaceFolders": [{"uri": root, "name": "ws"}]}}),
    )
    .await;
    let initialized = response(&mut from_server, &mut buffer, 1).await;
    assert_eq!(initialized["result"]["serverInfo"]["name"], "roo-context");
    send(
        &mut to_server,
        json!({"jsonrpc": "2.0", "id": 2, "method": "roo/ignore/validateAccess",
        "params": {"paths": ["secret.txt", "a.txt"]}}),
    )
    .await;
    let access = response(&mut from_server, &mut buffer, 2).await;
    assert_eq!(access["result"]["results"][0]["allowed"], false, "{access}");
    assert_eq!(access["result"]["results"][1]["allowed"], true, "{access}");
    send(
        &mut to_server,
        json!({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}),
    )
    .await;
    response(&mut from_server, &mut buffer, 3).await;
    send(&mut to_server, json!({"jsonrpc": "2.0", "method": "exit"})).await;
    serving.await.unwrap();
    assert!(shutdown_requested.load(std::sync::atomic::Ordering::SeqCst));
}

/// The in-process server of the harness ends when its client closes the input: its output
/// closes too (so nothing serves on after the test, and a leak would show here as a deadline).
#[test]
fn the_harness_in_process_server_ends_when_its_input_closes() {
    let fixture = Fixture::new(&[("a.txt", "a")]);
    let mut server = crate::harness::Server::start_in_process(&[fixture.root()], Value::Null);
    let access = server.call(
        "roo/ignore/validateAccess",
        json!({"paths": [fixture.path("a.txt")]}),
    );
    assert_eq!(access["results"][0]["allowed"], true, "{access}");
    server.close_stdin();
    let end = roo_context::stdio_client::Client::next_message(&mut server);
    assert!(
        matches!(end, Err(roo_context::stdio_client::ClientError::Closed)),
        "{end:?}"
    );
}
