//! `roo-context watch`: tracks files as one in-memory task and prints every change the agent
//! did not make (`modified`, `deleted`, `renamed`), one line each, through the same watcher,
//! debounce and fingerprints as the server. For debugging, the demo and the benchmark.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use roo_context_core::tracker::RecordSource;
use roo_context_protocol::workspace::Settings;

use crate::state::SharedState;
use crate::tracker::FileTracker;
use crate::watcher;

/// Arguments of `roo-context watch`.
#[derive(clap::Args, Debug)]
pub struct WatchArgs {
    /// Workspace folder (default: the current folder). Relative paths are relative to it.
    #[arg(long, short = 'w')]
    workspace: Option<PathBuf>,
    /// Print each change as the JSON of its `roo/files/didChange` notification.
    #[arg(long)]
    json: bool,
    /// Files to track.
    #[arg(required = true)]
    paths: Vec<String>,
}

/// `VmRSS` and `VmHWM` of this process in KiB (0 where unavailable).
fn memory_kib() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Runs the command until interrupted.
pub fn run(args: WatchArgs) -> ExitCode {
    let workspace = match super::workspace_folder(args.workspace.as_deref(), "watch") {
        Ok(folder) => folder,
        Err(code) => return code,
    };
    let runtime = match super::runtime("watch") {
        Ok(runtime) => runtime,
        Err(code) => return code,
    };
    runtime.block_on(async move {
        let started = Instant::now();
        let state = std::sync::Arc::new(SharedState::new(
            std::slice::from_ref(&workspace),
            Settings::default(),
        ));
        let (tracker, mut changes) = FileTracker::start(state.clone());
        let (news, mut watcher_news) = tokio::sync::mpsc::unbounded_channel();
        let _watcher = watcher::start(state, news, Some(tracker.sink()));
        let mut watched = 0;
        for path in &args.paths {
            match tracker
                .track("cli", None, path, RecordSource::ReadTool, None, None, false)
                .await
            {
                Ok((Ok(()), _)) => watched += 1,
                Ok((Err(reason), _)) => eprintln!(
                    "not watched ({}): {path}",
                    roo_context_protocol::wire_name(&reason)
                ),
                Err(error) => eprintln!("cannot track {path}: {error}"),
            }
        }
        if watched == 0 {
            eprintln!("roo-context watch: nothing to watch");
            return ExitCode::from(2);
        }
        // The recursive watch is up and what was tracked meanwhile compared: nothing is missed.
        while let Some(news) = watcher_news.recv().await {
            if let watcher::WatcherNews::Watching { rescanned, .. } = news {
                if let Some(rescanned) = rescanned {
                    let _ = rescanned.await;
                }
                break;
            }
        }
        let (rss, hwm) = memory_kib();
        eprintln!(
            "ready ms={} files={watched} rss_kib={rss} hwm_kib={hwm} workspace={}",
            started.elapsed().as_millis(),
            workspace.display()
        );
        let mut stdout = std::io::stdout();
        loop {
            tokio::select! {
                change = changes.recv() => {
                    let Some(change) = change else { return ExitCode::SUCCESS };
                    let line = if args.json {
                        serde_json::to_string(&change).unwrap_or_default()
                    } else {
                        let kind = roo_context_protocol::wire_name(&change.kind);
                        match &change.new_path {
                            Some(to) => format!("{kind:<9}{} -> {to}", change.path),
                            None => format!("{kind:<9}{}", change.path),
                        }
                    };
                    if writeln!(stdout, "{line}").and_then(|()| stdout.flush()).is_err() {
                        return ExitCode::SUCCESS;
                    }
                }
                _ = tokio::signal::ctrl_c() => return ExitCode::SUCCESS,
            }
        }
    })
}
