//! Command-line tools that reuse the server's handlers without a client.

/// `println!` that never panics: a reader that went away (`check … | head -1`) ends the output,
/// not the process with a panic. Defined before the modules, so they all see it.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
pub mod check;
pub mod demo;
pub mod fold;
pub mod mentions;
pub mod tokens;
pub mod watch;

/// The workspace folder a command works on: `--workspace`, else the current folder, made absolute.
/// On failure the message is printed (prefixed with the command) and the usage exit code (2)
/// returned.
pub fn workspace_folder(
    given: Option<&std::path::Path>,
    command: &str,
) -> Result<std::path::PathBuf, std::process::ExitCode> {
    let folder = match given.map_or_else(std::env::current_dir, |p| Ok(p.to_path_buf())) {
        Ok(dir) => std::path::absolute(&dir).unwrap_or(dir),
        Err(error) => {
            eprintln!("roo-context {command}: cannot determine the workspace folder: {error}");
            return Err(std::process::ExitCode::from(2));
        }
    };
    if !folder.is_dir() {
        eprintln!(
            "roo-context {command}: workspace folder {} does not exist",
            folder.display()
        );
        return Err(std::process::ExitCode::from(2));
    }
    Ok(folder)
}

/// The async runtime the server and the watching commands run on (two workers: the machine's
/// expected size, and enough for a sidecar).
pub fn runtime(command: &str) -> Result<tokio::runtime::Runtime, std::process::ExitCode> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|error| {
            eprintln!("roo-context {command}: cannot start the runtime: {error}");
            std::process::ExitCode::from(1)
        })
}
