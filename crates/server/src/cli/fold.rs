//! `roo-context fold`: the folded view (definitions only) of files and folders, as the summary of
//! a condensed conversation carries it. Folders are walked with .gitignore and the access rule.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use roo_context_fold::{Language, OutlineCache};
use roo_context_protocol::fold::FoldContextParams;
use roo_context_protocol::workspace::Settings;

use crate::documents::Documents;
use crate::handlers::fold;
use crate::state::SharedState;

/// Arguments of `roo-context fold`.
#[derive(clap::Args, Debug)]
pub struct FoldArgs {
    /// Workspace folder (default: the current folder). Relative paths are relative to it.
    #[arg(long, short = 'w')]
    workspace: Option<PathBuf>,
    /// Budget in UTF-16 code units.
    #[arg(long, default_value_t = roo_context_fold::DEFAULT_MAX_CHARS)]
    max_chars: usize,
    /// Definitions spanning fewer lines are left out (the original's minimum, 4; 0 keeps all).
    #[arg(long, default_value_t = 4)]
    min_component_lines: u32,
    /// Print the protocol's JSON result instead of the text.
    #[arg(long)]
    json: bool,
    /// Files and folders, most recently read first.
    #[arg(required = true)]
    paths: Vec<String>,
}

/// Expands folders into the supported source files below them (sorted, .gitignore respected).
fn expand(workspace: &Path, paths: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for path in paths {
        let absolute = workspace.join(path);
        if !absolute.is_dir() {
            out.push(path.clone());
            continue;
        }
        let mut files: Vec<String> = ignore::WalkBuilder::new(&absolute)
            .require_git(false)
            .build()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
            .filter(|e| Language::from_path(&e.path().to_string_lossy()).is_some())
            .filter_map(|e| {
                e.path()
                    .strip_prefix(workspace)
                    .ok()
                    .map(|p| p.to_string_lossy().into_owned())
            })
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

/// Runs the command.
pub fn run(args: FoldArgs) -> ExitCode {
    let workspace = match super::workspace_folder(args.workspace.as_deref(), "fold") {
        Ok(folder) => folder,
        Err(code) => return code,
    };
    let state = SharedState::new(std::slice::from_ref(&workspace), Settings::default());
    let policy = state.policy();
    let params = FoldContextParams {
        paths: expand(&workspace, &args.paths),
        cwd: None,
        max_chars: Some(args.max_chars),
        min_component_lines: Some(args.min_component_lines),
        edited_paths: None,
        prioritize: None,
    };
    let result = fold::fold_context(
        &state,
        &policy,
        &Documents::default(),
        &OutlineCache::new(crate::parse_worker::outline_options()),
        &params,
    );
    if args.json {
        out!(
            "{}",
            serde_json::to_string_pretty(&result).unwrap_or_default()
        );
    } else {
        if !result.content.is_empty() {
            out!("{}", result.content);
        }
        for diagnostic in &result.diagnostics {
            eprintln!(
                "note: {}: {} ({})",
                diagnostic.path,
                diagnostic.message,
                roo_context_protocol::wire_name(&diagnostic.kind)
            );
        }
        eprintln!(
            "{} file(s) folded, {} skipped, {} characters",
            result.files_processed, result.files_skipped, result.character_count
        );
    }
    ExitCode::SUCCESS
}
