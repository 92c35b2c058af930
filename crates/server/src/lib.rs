//! The roo-context sidecar as a library: [`run`] serves one client on any pair of byte streams
//! (the binary gives it stdin/stdout; tests can give it an in-memory duplex), and [`cli`] holds the
//! command-line tools the binary dispatches to.
//!
//! ## Decision: `exit` ends at once
//!
//! When the framework stops, the stdin reader is stopped too (it may be blocked on a client that
//! keeps stdin open); the writer then drains and the process ends. Only a client that stops reading
//! stdout can delay it (2 s grace).

mod atomic_file;
mod baselines;
pub mod cli;
pub(crate) mod context_memory;
mod counting;
mod documents;
mod framing;
mod handlers;
mod histories;
mod host_call;
mod journal_file;
pub mod logging;
mod lsp_edge;
pub mod parse_worker;
mod rpc;
mod server;
mod state;
pub mod stdio;
pub mod stdio_client;
mod tracker;
mod watcher;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Requests the framework runs at once; heavy work is bounded separately by `rpc::blocking`.
const HANDLERS_IN_FLIGHT: usize = 256;

/// Serves one client on a pair of byte streams until `exit` or the end of its input: the
/// process's stdin/stdout in `roo-context serve`, an in-memory duplex in tests. `shutdown_requested`
/// is set when the client sent `shutdown` (the exit code's rule).
pub async fn run<I, O>(
    input: I,
    output: O,
    log: Option<logging::LogHandle>,
    shutdown_requested: Arc<AtomicBool>,
) where
    I: tokio::io::AsyncRead + Unpin + Send + 'static,
    O: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    serve(
        input,
        output,
        log,
        shutdown_requested,
        framing::OUTPUT_QUEUE_BYTES,
    )
    .await
}

/// [`run`] with the output queue's bound in bytes (tests use a small one).
async fn serve<I, O>(
    input: I,
    output: O,
    log: Option<logging::LogHandle>,
    shutdown_requested: Arc<AtomicBool>,
    output_queue_bytes: usize,
) where
    I: tokio::io::AsyncRead + Unpin + Send + 'static,
    O: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (service, socket) = server::Backend::service(log, shutdown_requested);
    let (to_server, server_input) = tokio::io::duplex(64 * 1024);
    let (server_output, from_server) = tokio::io::duplex(64 * 1024);
    let (frames_tx, frames_rx) = framing::outgoing(output_queue_bytes);
    let writer = tokio::spawn(framing::write_output(output, frames_rx));
    let framework_output = tokio::spawn(framing::pump_output(from_server, frames_tx.clone()));
    let reader = tokio::spawn(framing::pump_input(input, to_server, frames_tx));
    // Many handlers may wait at once (heavy ones queue for a blocking-pool slot in
    // `rpc::blocking`); the framework's default of 4 let four heavy requests starve the rest.
    tower_lsp_server::Server::new(server_input, server_output, socket)
        .concurrency_level(HANDLERS_IN_FLIGHT)
        .serve(service)
        .await;
    // The framework has stopped (`exit`, or the input ended). Stop reading the client, which
    // may keep its end open for ever, then flush what the framework wrote: the reader and the
    // framework's output pump hold senders of the writer's queue, and a client that no longer
    // reads its output (the queue full, the pump waiting for room) must not keep the process
    // alive.
    reader.abort();
    let _ = reader.await;
    let _ = tokio::time::timeout(WRITER_GRACE, async {
        let _ = framework_output.await;
        let _ = writer.await;
    })
    .await;
}

/// How long the last frames may take to reach a client that stopped reading.
const WRITER_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// `exit` ends serving while the client keeps its input open. The clock is tokio's paused
    /// (virtual) clock: it only moves when every task waits on a timer, so any wait for the
    /// input to close or for a grace period shows up as elapsed virtual time.
    #[tokio::test(start_paused = true)]
    async fn exit_ends_serving_at_once_with_the_input_still_open() {
        let (mut client_input, server_input) = tokio::io::duplex(64 * 1024);
        let (server_output, mut client_output) = tokio::io::duplex(64 * 1024);
        // A client that waits for each answer, sends `exit`, and keeps its end open.
        let client = tokio::spawn(async move {
            let mut written = Vec::new();
            let steps = [
                (
                    r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}"#,
                    Some(r#""id":1"#),
                ),
                (
                    r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#,
                    None,
                ),
                (
                    r#"{"jsonrpc":"2.0","id":2,"method":"shutdown"}"#,
                    Some(r#""id":2"#),
                ),
                (r#"{"jsonrpc":"2.0","method":"exit"}"#, None),
            ];
            for (body, answer) in steps {
                client_input
                    .write_all(&framing::frame(body.as_bytes()))
                    .await
                    .unwrap();
                while let Some(answer) = answer {
                    if String::from_utf8_lossy(&written).contains(answer) {
                        break;
                    }
                    let mut chunk = [0u8; 4096];
                    let n = client_output.read(&mut chunk).await.unwrap();
                    assert!(n > 0, "the server closed its output before answering");
                    written.extend_from_slice(&chunk[..n]);
                }
            }
            client_output.read_to_end(&mut written).await.unwrap();
            (client_input, written)
        });
        let shutdown_requested = Arc::new(AtomicBool::new(false));
        let start = tokio::time::Instant::now();
        run(
            server_input,
            server_output,
            None,
            shutdown_requested.clone(),
        )
        .await;
        let elapsed = start.elapsed();
        assert!(
            elapsed < WRITER_GRACE / 2,
            "exit waited {elapsed:?} of virtual time"
        );
        assert!(shutdown_requested.load(Ordering::SeqCst));
        let (client_input, written) = client.await.unwrap();
        assert!(String::from_utf8_lossy(&written).contains(r#""id":2"#));
        drop(client_input); // held open until here
    }
    /// A client that sends requests without reading its output stops being read: the server
    /// holds a bounded queue of answers, not all of them (issue 25: 100k requests grew it from
    /// 10 MB to 869 MB). Once the client reads again, every request is answered. The clock is
    /// paused: the long sleep returns only when every task of the runtime waits, so "the server
    /// stopped reading" is an event here, not a timing guess.
    #[tokio::test(start_paused = true)]
    async fn a_client_that_does_not_read_its_output_stops_being_read_until_it_does() {
        const REQUESTS: usize = 20_000;
        const QUEUE: usize = 16 * 1024;
        let (mut client_input, server_input) = tokio::io::duplex(4 * 1024);
        let (server_output, mut client_output) = tokio::io::duplex(4 * 1024);
        let sent = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = sent.clone();
        let client = tokio::spawn(async move {
            for id in 0..REQUESTS {
                // Before `initialize`, every request is answered with an error at once.
                let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"roo/x"}}"#);
                client_input
                    .write_all(&framing::frame(body.as_bytes()))
                    .await
                    .unwrap();
                counter.fetch_add(1, Ordering::SeqCst);
            }
            client_input
        });
        let server = tokio::spawn(serve(
            server_input,
            server_output,
            None,
            Arc::new(AtomicBool::new(false)),
            QUEUE,
        ));
        tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        let written_while_not_reading = sent.load(Ordering::SeqCst);
        assert!(
            written_while_not_reading < REQUESTS / 4,
            "{written_while_not_reading} of {REQUESTS} requests were read by a server whose \
             answers nobody read"
        );
        // Reading again: every request is answered, in bounded memory.
        let mut answers = 0;
        let mut pending = Vec::new();
        while answers < REQUESTS {
            let mut chunk = [0u8; 64 * 1024];
            let n = client_output.read(&mut chunk).await.unwrap();
            assert!(n > 0, "output closed after {answers} answers");
            pending.extend_from_slice(&chunk[..n]);
            answers += pending
                .windows(15)
                .filter(|w| w == b"Content-Length:")
                .count();
            let keep = pending.len().saturating_sub(14);
            pending.drain(..keep);
        }
        drop(client.await.unwrap());
        server.await.unwrap();
    }
}
