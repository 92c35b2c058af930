//! `roo-context tokens` and `roo-context history effective`: token counts and the effective
//! history of stored conversation files, without a client.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use roo_context_core::wire_text;
use roo_context_protocol::context::TokenCountMode;
use roo_context_protocol::history::{CountTokensParams, EffectiveHistoryParams};
use serde_json::Value;

use crate::handlers::{Handler, Snapshot};
use crate::state::SharedState;
use roo_context_protocol::requests;

/// Arguments of `roo-context tokens`.
#[derive(clap::Args, Debug)]
pub struct TokensArgs {
    /// Apply the original's estimate rules (×1.5, rounded up) instead of the exact count.
    #[arg(long)]
    estimate: bool,
    /// The file to count, or `-` (the default) for stdin.
    #[arg(default_value = "-")]
    file: String,
}

/// Arguments of `roo-context history`.
#[derive(clap::Args, Debug)]
pub struct HistoryArgs {
    #[command(subcommand)]
    command: HistoryCommand,
}

#[derive(clap::Subcommand, Debug)]
enum HistoryCommand {
    /// Print the effective history (what the model sees) of an api_conversation_history.json.
    Effective {
        /// The stored history file.
        file: PathBuf,
    },
}

fn read_input(file: &str) -> std::io::Result<Vec<u8>> {
    if file == "-" {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes)?;
        Ok(bytes)
    } else {
        std::fs::read(file)
    }
}

/// Runs `roo-context tokens`.
pub fn run_tokens(args: TokensArgs) -> ExitCode {
    let bytes = match read_input(&args.file) {
        Ok(bytes) => bytes,
        Err(error) => {
            eprintln!("roo-context tokens: cannot read {}: {error}", args.file);
            return ExitCode::from(2);
        }
    };
    // Invalid UTF-8 is counted as the host would see it after lossy decoding.
    // A U+FDD0 in the file is a character, not the mark of an encoded lone surrogate.
    let text = wire_text::encode_text(&String::from_utf8_lossy(&bytes)).into_owned();
    let params = CountTokensParams {
        text: Some(text),
        blocks: None,
        messages: None,
        history: None,
        mode: Some(if args.estimate {
            TokenCountMode::Estimate
        } else {
            TokenCountMode::Exact
        }),
        effective: None,
        provider: None,
        model_id: None,
    };
    let snapshot = Snapshot::detached(std::sync::Arc::new(SharedState::new(
        &[],
        Default::default(),
    )));
    match requests::TokensCount::handle(&snapshot, params) {
        Ok(result) => {
            out!("{}", result.total);
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("roo-context tokens: {error}");
            ExitCode::from(2)
        }
    }
}

/// Runs `roo-context history ...`.
pub fn run_history(args: HistoryArgs) -> ExitCode {
    match args.command {
        HistoryCommand::Effective { file } => {
            let parsed: Result<Value, String> = std::fs::read(&file)
                .map_err(|e| e.to_string())
                .and_then(|b| {
                    // JavaScript writes lone surrogates as escapes: read them like the server.
                    serde_json::from_slice(&wire_text::encode_json(&b)).map_err(|e| e.to_string())
                });
            let messages = match parsed {
                Ok(Value::Array(messages)) => messages,
                Ok(other) => {
                    eprintln!(
                        "roo-context history: {} must hold a JSON array of messages, found {}",
                        file.display(),
                        roo_context_core::conversation::json_type(&other)
                    );
                    return ExitCode::from(2);
                }
                Err(error) => {
                    eprintln!(
                        "roo-context history: cannot read {}: {error}",
                        file.display()
                    );
                    return ExitCode::from(2);
                }
            };
            let params = EffectiveHistoryParams {
                messages,
                history: None,
                include_since_last_summary: false,
            };
            let snapshot = Snapshot::detached(std::sync::Arc::new(SharedState::new(
                &[],
                Default::default(),
            )));
            match requests::HistoryEffective::handle(&snapshot, params) {
                Ok(result) => {
                    for diagnostic in &result.diagnostics {
                        eprintln!("note: {}", diagnostic.message);
                    }
                    let json = serde_json::to_string_pretty(&result.messages).unwrap_or_default();
                    let mut stdout = std::io::stdout().lock();
                    let _ = stdout.write_all(&wire_text::decode_json(json.as_bytes()));
                    let _ = stdout.write_all(b"\n");
                    ExitCode::SUCCESS
                }
                Err(error) => {
                    eprintln!("roo-context history: {error}");
                    ExitCode::from(2)
                }
            }
        }
    }
}
