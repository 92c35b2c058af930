//! The `roo-context` binary: the command line over the library (the sidecar server by default).

use roo_context::{cli, logging, parse_worker};
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

fn main() -> ExitCode {
    // A parse worker (a child of this binary, see parse_worker.rs) starts before anything else:
    // no argument parsing, no logging, only jobs on stdin.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|arg| arg == parse_worker::SUBCOMMAND)
    {
        return parse_worker::serve_worker();
    }
    let cli = Cli::parse();
    let log = logging::init(&cli.log_level);
    // Every tree-sitter parse of the server and the command line runs in a capped worker.
    parse_worker::install(Arc::new(parse_worker::ParseWorkers::from_environment()));
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
    // Served on a worker, not on this thread: `block_on` polls its future here, outside the
    // pool, so every message handed between the framework and the tasks it spawns would cross
    // threads (a futex wake and a context switch each way).
    let serving = {
        // The streams register with this runtime's reactor.
        let _inside = runtime.enter();
        runtime.spawn(roo_context::run(
            roo_context::stdio::stdin(),
            roo_context::stdio::stdout(),
            Some(log),
            shutdown_requested.clone(),
        ))
    };
    let _ = runtime.block_on(serving);
    // A read of stdin may still be blocked on a thread of the runtime: do not wait for it.
    runtime.shutdown_background();
    roo_context::stdio::restore();
    if shutdown_requested.load(Ordering::SeqCst) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
