//! The `roo-context` binary: the sidecar server (default) and its command-line tools.

mod baselines;
mod cli;
mod counting;
mod documents;
mod framing;
mod handlers;
mod host_call;
mod logging;
mod lsp_edge;
mod rpc;
mod server;
mod state;
mod tracker;
mod watcher;

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use clap::{Parser, Subcommand};

/// roo-context: the context engine sidecar for AI coding agents.
///
/// With no command (or `serve`) it speaks LSP-framed JSON-RPC on stdio; see docs/protocol.md.
#[derive(Parser, Debug)]
#[command(name = "roo-context", version, about, long_about = None)]
struct Cli {
    /// Log level or filter for stderr (`error`, `warn`, `info`, `debug`, `trace`).
    /// `ROO_CONTEXT_LOG` overrides it.
    #[arg(long, global = true, default_value = "warn")]
    log_level: String,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Serve JSON-RPC on stdin/stdout (the default).
    Serve,
    /// Check paths (or a shell command) against .rooignore and write protection.
    ///
    /// Exit code: 0 when everything may be read, 1 when something is blocked from reading
    /// (write protection alone does not change it), 2 on usage errors.
    Check(cli::check::CheckArgs),
    /// Parse @-mentions and slash commands of a message and print the result as JSON.
    ///
    /// Files, folders, commands and git mentions are resolved; host-only mentions (`@problems`,
    /// `@terminal`, URLs) get their error text, as with an editor that does not answer.
    Mentions(cli::mentions::MentionsArgs),
    /// Print the folded view (definitions only) of files and folders.
    Fold(cli::fold::FoldArgs),
    /// Count o200k_base tokens of a file or stdin (exact; `--estimate` for the original's rules).
    Tokens(cli::tokens::TokensArgs),
    /// Work with stored conversation histories.
    History(cli::tokens::HistoryArgs),
    /// A scripted host that shows the whole product on the bundled example workspace.
    Demo(cli::demo::DemoArgs),
    /// Track files and print each change the agent did not make (modified, deleted, renamed).
    ///
    /// Prints `ready ...` on stderr once watching, then one line per change on stdout.
    Watch(cli::watch::WatchArgs),
}

/// Requests the framework runs at once; heavy work is bounded separately by `rpc::blocking`.
const HANDLERS_IN_FLIGHT: usize = 256;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let log = logging::init(&cli.log_level);
    match cli.command.unwrap_or(Command::Serve) {
        Command::Serve => serve(log),
        Command::Check(args) => cli::check::run(args),
        Command::Mentions(args) => cli::mentions::run(args),
        Command::Fold(args) => cli::fold::run(args),
        Command::Tokens(args) => cli::tokens::run_tokens(args),
        Command::History(args) => cli::tokens::run_history(args),
        Command::Demo(args) => cli::demo::run(args),
        Command::Watch(args) => cli::watch::run(args),
    }
}

fn serve(log: logging::LogHandle) -> ExitCode {
    let runtime = match cli::runtime("serve") {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    let shutdown_requested = Arc::new(AtomicBool::new(false));
    runtime.block_on(serve_on(
        tokio::io::stdin(),
        tokio::io::stdout(),
        Some(log),
        shutdown_requested.clone(),
    ));
    // A read of stdin may still be blocked on a thread of the runtime: do not wait for it.
    runtime.shutdown_background();
    if shutdown_requested.load(Ordering::SeqCst) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Serves one client on a pair of byte streams until `exit` or the end of its input.
async fn serve_on<I, O>(
    input: I,
    output: O,
    log: Option<logging::LogHandle>,
    shutdown_requested: Arc<AtomicBool>,
) where
    I: tokio::io::AsyncRead + Unpin + Send + 'static,
    O: tokio::io::AsyncWrite + Unpin + Send + 'static,
{
    let (service, socket) = server::Backend::service(log, shutdown_requested);
    let (to_server, server_input) = tokio::io::duplex(64 * 1024);
    let (server_output, from_server) = tokio::io::duplex(64 * 1024);
    let (frames_tx, frames_rx) = tokio::sync::mpsc::unbounded_channel();
    let writer = tokio::spawn(framing::write_output(output, frames_rx));
    let framework_output = tokio::spawn(framing::pump_output(from_server, frames_tx.clone()));
    let reader = tokio::spawn(framing::pump_input(input, to_server, frames_tx));
    // Many handlers may wait at once (heavy ones queue for a blocking-pool slot in
    // `rpc::blocking`); the framework's default of 4 let four heavy requests starve the rest.
    tower_lsp_server::Server::new(server_input, server_output, socket)
        .concurrency_level(HANDLERS_IN_FLIGHT)
        .serve(service)
        .await;
    // The framework has stopped (`exit`, or the input ended). Flush what it wrote, then stop
    // reading the client, which may keep its end open for ever: the reader holds a sender of
    // the writer's queue, so waiting for it is what made `exit` take seconds.
    let _ = framework_output.await;
    reader.abort();
    let _ = reader.await;
    // Every sender is gone, so the writer ends once the queue is written; a client that no
    // longer reads its output must still not keep the process alive.
    let _ = tokio::time::timeout(WRITER_GRACE, writer).await;
}

/// How long the last frames may take to reach a client that stopped reading.
const WRITER_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

#[cfg(test)]
mod tests {
    use super::*;
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
        serve_on(
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
}
