//! `roo-context check`: access and write protection of paths, or vetting of a shell command, as
//! readable lines (or JSON). Exit code 0 = all readable (the command is allowed), 1 = something
//! blocked, 2 = usage error, 3 = the command is undecidable (ask the user).

use std::path::PathBuf;
use std::process::ExitCode;

use roo_context_protocol::access::{
    BlockKind, BlockedBy, CommandVerdict, PathVia, ProtectParams, ValidateAccessParams,
    ValidateCommandParams,
};
use roo_context_protocol::workspace::Settings;

use crate::handlers::{Handler, Snapshot};
use crate::state::SharedState;
use roo_context_protocol::requests;

/// Arguments of `roo-context check`.
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Workspace folder (default: the current folder). Relative paths are relative to it.
    #[arg(long, short = 'w')]
    workspace: Option<PathBuf>,
    /// Vet a shell command instead of paths.
    #[arg(long, short = 'c', conflicts_with = "paths")]
    command: Option<String>,
    /// Print JSON (the protocol's result objects) instead of text.
    #[arg(long)]
    json: bool,
    /// Paths to check.
    #[arg(required_unless_present = "command")]
    paths: Vec<String>,
}

fn describe(blocked: &BlockedBy) -> String {
    match (blocked.kind, &blocked.file, blocked.line) {
        (BlockKind::OutsideWorkspace, _, _) => "outside the workspace".to_owned(),
        (_, Some(file), Some(line)) => format!(
            "{file}:{line}: {}{}",
            blocked.pattern.as_deref().unwrap_or("?"),
            via_note(blocked)
        ),
        _ => format!(
            "implicit pattern {}{}",
            blocked.pattern.as_deref().unwrap_or("?"),
            via_note(blocked)
        ),
    }
}

fn via_note(blocked: &BlockedBy) -> String {
    match (blocked.via, &blocked.matched_path) {
        (Some(PathVia::Canonical), Some(target)) => format!(" (via symlink target {target})"),
        _ => String::new(),
    }
}

/// Runs the command.
pub fn run(args: CheckArgs) -> ExitCode {
    let workspace = match super::workspace_folder(args.workspace.as_deref(), "check") {
        Ok(folder) => folder,
        Err(code) => return code,
    };
    let state = SharedState::new(std::slice::from_ref(&workspace), Settings::default());
    for folder in state.status().folders {
        if let Some(error) = folder.last_error {
            eprintln!("roo-context check: {error}");
        }
    }
    let snapshot = Snapshot::detached(std::sync::Arc::new(state));

    if let Some(command) = args.command {
        let params = ValidateCommandParams {
            command: command.clone(),
            cwd: None,
        };
        let Ok(result) = requests::ValidateCommand::handle(&snapshot, params) else {
            return ExitCode::from(2);
        };
        if args.json {
            out!(
                "{}",
                serde_json::to_string_pretty(&result).unwrap_or_default()
            );
        } else {
            match (result.verdict, &result.blocked_path, &result.blocked_by) {
                (CommandVerdict::Blocked, Some(argument), Some(by)) => {
                    out!(
                        "blocked    {command}\n           argument {argument}: {}",
                        describe(by)
                    )
                }
                (CommandVerdict::Blocked, argument, _) => out!(
                    "blocked    {command}\n           argument {}",
                    argument.as_deref().unwrap_or("?")
                ),
                (CommandVerdict::Undecidable, _, _) => out!(
                    "undecidable {command}\n           {} ({}): {}",
                    result.snippet.as_deref().unwrap_or(""),
                    result.construct.as_deref().unwrap_or("?"),
                    result.reason.as_deref().unwrap_or("")
                ),
                (CommandVerdict::Allowed, _, _) => out!("allowed    {command}"),
            }
        }
        return match result.verdict {
            CommandVerdict::Allowed => ExitCode::SUCCESS,
            CommandVerdict::Blocked => ExitCode::from(1),
            CommandVerdict::Undecidable => ExitCode::from(3),
        };
    }

    let (Ok(access), Ok(protection)) = (
        requests::ValidateAccess::handle(
            &snapshot,
            ValidateAccessParams {
                paths: args.paths.clone(),
                cwd: None,
                compact: None,
            },
        ),
        requests::ProtectCheck::handle(
            &snapshot,
            ProtectParams {
                paths: args.paths.clone(),
                cwd: None,
            },
        ),
    ) else {
        return ExitCode::from(2);
    };
    let any_blocked = access.results.iter().any(|r| !r.allowed);
    if args.json {
        let combined: Vec<serde_json::Value> = access
            .results
            .iter()
            .zip(&protection.results)
            .map(|(a, p)| {
                serde_json::json!({
                    "path": a.path,
                    "allowed": a.allowed,
                    "blockedBy": a.blocked_by,
                    "isProtected": p.is_protected,
                    "protectedBy": p.pattern,
                })
            })
            .collect();
        out!(
            "{}",
            serde_json::to_string_pretty(&combined).unwrap_or_default()
        );
    } else {
        let width = args
            .paths
            .iter()
            .map(|p| p.chars().count())
            .max()
            .unwrap_or(0);
        for (a, p) in access.results.iter().zip(&protection.results) {
            let mut notes = Vec::new();
            if let Some(by) = &a.blocked_by {
                notes.push(format!("blocked by {}", describe(by)));
            }
            if let Some(pattern) = &p.pattern {
                notes.push(format!("write-protected by {pattern}"));
            }
            let verdict = match (a.allowed, p.is_protected) {
                (false, _) => "blocked",
                (true, true) => "protected",
                (true, false) => "allowed",
            };
            let path = &a.path;
            if notes.is_empty() {
                out!("{verdict:<10} {path}");
            } else {
                out!("{verdict:<10} {path:<width$}  {}", notes.join("; "));
            }
        }
    }
    if any_blocked {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
