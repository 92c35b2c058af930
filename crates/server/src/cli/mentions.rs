//! `roo-context mentions [--workspace DIR] 'text'`: runs `roo/mentions/parse` without an editor
//! and prints the result as JSON. There is no host, so `@problems`, `@terminal` and URLs get the
//! original's error text for their section (and a `hostUnavailable` diagnostic).

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use roo_context_protocol::mentions::{MentionOptions, ParseMentionsParams};
use roo_context_protocol::workspace::Settings;

use crate::handlers::mentions;
use crate::state::SharedState;

/// Arguments of `roo-context mentions`.
#[derive(clap::Args, Debug)]
pub struct MentionsArgs {
    /// Workspace folder (default: the current folder). Mention paths are relative to it.
    #[arg(long, short = 'w')]
    workspace: Option<PathBuf>,
    /// List ignored folder entries with a lock instead of hiding them.
    #[arg(long)]
    show_ignored: bool,
    /// The mode skills are chosen for (`skills-<mode>` folders win; default `code`).
    #[arg(long)]
    mode: Option<String>,
    /// The message; `-` or nothing reads it from stdin.
    text: Option<String>,
}

/// Runs the command: exit code 0 on success, 2 on usage errors.
pub fn run(args: MentionsArgs) -> ExitCode {
    let workspace = match super::workspace_folder(args.workspace.as_deref(), "mentions") {
        Ok(folder) => folder,
        Err(code) => return code,
    };
    let text = match args.text.as_deref() {
        Some(text) if text != "-" => text.to_owned(),
        _ => {
            let mut text = String::new();
            if let Err(error) = std::io::stdin().read_to_string(&mut text) {
                eprintln!("roo-context mentions: cannot read stdin: {error}");
                return ExitCode::from(2);
            }
            text
        }
    };
    let state = Arc::new(SharedState::new(
        std::slice::from_ref(&workspace),
        Settings::default(),
    ));
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("roo-context mentions: cannot start the runtime: {error}");
            return ExitCode::from(1);
        }
    };
    let params = ParseMentionsParams {
        text,
        options: MentionOptions {
            show_roo_ignored_files: Some(args.show_ignored),
            current_mode: args.mode,
            ..MentionOptions::default()
        },
    };
    match runtime.block_on(mentions::parse(
        &state,
        mentions::Services::default(),
        params,
    )) {
        Ok(result) => {
            out!(
                "{}",
                serde_json::to_string_pretty(&result).unwrap_or_default()
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("roo-context mentions: {error}");
            ExitCode::from(1)
        }
    }
}
