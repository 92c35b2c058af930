//! Hostile inputs for every language (issue 25): nested openers of every kind (comments,
//! brackets, template and JSX tags, strings, Python's operator runs) at a given size, each run in
//! a child process so a crash, the peak memory (VmHWM) and the time are measured one at a time.
//!
//! `cargo run --release -p roo-context-fold --example hostile` prints the worst case per
//! language for 64 KiB inputs; `-- --bytes N` changes the size, `-- --lang NAME` keeps one
//! language, `-- --all` prints every input, not only the worst per language;
//! `HOSTILE_ALL_READERS=1` runs the outline and folding ranges too. Figures are in
//! BENCHMARKS.md. Linux only (it reads `/proc/self/status`). This is the in-process parse (no
//! worker); `cargo run --release -p roo-context --example hostile_workers` runs the same inputs
//! through the server's capped parse workers.

use std::process::Command;
use std::time::Instant;

use roo_context_fold::{Language, OutlineOptions, document_symbols, folding_ranges, outline};

#[path = "hostile_inputs/mod.rs"]
mod hostile_inputs;

use hostile_inputs::{LANGUAGES, PATTERNS, describe, input, outcome, peak_rss_kib};

/// Child: run the readers on one input on a 2 MiB stack (a tokio blocking thread's) and
/// print `milliseconds peak_kib diagnostics`.
fn child(extension: &str, pattern: usize, bytes: usize) {
    let language = Language::from_extension(extension).expect("known extension");
    let source = input(pattern, bytes);
    let started = Instant::now();
    let diagnostics = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || {
            let options = OutlineOptions::default();
            // One request: documentSymbol (what an editor sends on opening a file); `--readers`
            // also runs the outline and folding ranges after it.
            let mut seen = Vec::new();
            seen.extend(document_symbols(language, &source, &options).diagnostics);
            if std::env::var_os("HOSTILE_ALL_READERS").is_some() {
                seen.extend(outline(language, &source, &options).diagnostics);
                seen.extend(folding_ranges(language, &source, &options).diagnostics);
            }
            outcome(&seen)
        })
        .expect("spawn")
        .join()
        .expect("no panic");
    println!(
        "{} {} {diagnostics}",
        started.elapsed().as_millis(),
        peak_rss_kib(),
    );
}

struct Run {
    pattern: usize,
    millis: u64,
    peak_kib: u64,
    outcome: String,
}

fn run_one(extension: &str, pattern: usize, bytes: usize) -> Run {
    let exe = std::env::current_exe().expect("own path");
    // The child may not take the machine: 8 GiB of address space at most.
    let output = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 8388608; exec \"$0\" \"$@\"")
        .arg(exe)
        .args([
            "--child",
            extension,
            &pattern.to_string(),
            &bytes.to_string(),
        ])
        .output()
        .expect("run child");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut fields = stdout.split_whitespace();
    match (fields.next(), fields.next(), fields.next()) {
        (Some(millis), Some(peak), Some(outcome)) if output.status.success() => Run {
            pattern,
            millis: millis.parse().unwrap_or(0),
            peak_kib: peak.parse().unwrap_or(0),
            outcome: outcome.to_owned(),
        },
        _ => Run {
            pattern,
            millis: 0,
            peak_kib: 0,
            outcome: format!("CRASH({})", output.status),
        },
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(
            &args[1],
            args[2].parse().expect("pattern"),
            args[3].parse().expect("bytes"),
        );
        return;
    }
    let value = |flag: &str| {
        args.iter()
            .position(|arg| arg == flag)
            .and_then(|at| args.get(at + 1))
            .cloned()
    };
    let bytes: usize = value("--bytes").map_or(64 * 1024, |b| b.parse().expect("--bytes N"));
    let only = value("--lang");
    let all = args.iter().any(|arg| arg == "--all");
    println!(
        "hostile inputs of {bytes} bytes, {} patterns",
        PATTERNS.len()
    );
    println!(
        "| language | worst input (time) | time ms | worst input (memory) | peak RSS MiB | outcome | crashes |"
    );
    println!("| --- | --- | ---: | --- | ---: | --- | ---: |");
    for extension in LANGUAGES {
        if only.as_deref().is_some_and(|only| only != *extension) {
            continue;
        }
        let runs: Vec<Run> = (0..PATTERNS.len())
            .map(|pattern| run_one(extension, pattern, bytes))
            .collect();
        if all {
            for run in &runs {
                println!(
                    "  {extension} {:<24} {:>6} ms {:>6} MiB {}",
                    describe(run.pattern),
                    run.millis,
                    run.peak_kib / 1024,
                    run.outcome
                );
            }
        }
        let crashes = runs
            .iter()
            .filter(|run| run.outcome.starts_with("CRASH"))
            .count();
        let slowest = runs.iter().max_by_key(|run| run.millis).expect("runs");
        let biggest = runs.iter().max_by_key(|run| run.peak_kib).expect("runs");
        println!(
            "| {extension} | `{}` | {} | `{}` | {} | {} | {crashes} |",
            describe(slowest.pattern),
            slowest.millis,
            describe(biggest.pattern),
            biggest.peak_kib / 1024,
            biggest.outcome,
        );
    }
}
