//! The hostile inputs of issue 25 through the server's parse workers (class 2b): for each
//! language, the worst time past the file's deadline and the worst peak memory of the server
//! process and of its worker, each input run in a fresh process (so its peaks are its own).
//! With `--overhead`, what the workers cost on ordinary files instead: the fold crate's fixtures
//! outlined in-process and through warm workers, one after another and on both cores. With
//! `--first-use`, the fixed cost a server pays once per language before a file's clock starts.
//!
//! ```sh
//! cargo build --release -p roo-context            # the worker is the release binary
//! cargo run --release -p roo-context --example hostile_workers              # the table
//! cargo run --release -p roo-context --example hostile_workers -- --overhead
//! cargo run --release -p roo-context --example hostile_workers -- --first-use
//! ```
//!
//! `--bytes N` (64 KiB), `--lang EXT`, `--patterns 0,19` (indexes into the shared table),
//! `--all` (every input, not only the worst per language),
//! `--worker PATH` (default: `roo-context` beside the examples folder). Linux only.

#[path = "../../fold/examples/hostile_inputs/mod.rs"]
mod hostile_inputs;

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use hostile_inputs::{LANGUAGES, PATTERNS, describe, input, outcome, peak_rss_kib};
use roo_context::parse_worker::{DEFAULT_MEMORY_LIMIT, ParseWorkers};
use roo_context_fold::{
    Isolation, Language, OutlineJob, OutlineOptions, document_symbols, outline, outline_many,
};

/// The server's default number of workers (the number of cores, 1 to 4).
fn slots() -> usize {
    std::thread::available_parallelism()
        .map_or(2, usize::from)
        .clamp(1, 4)
}

fn options_through(workers: &Arc<ParseWorkers>) -> OutlineOptions {
    OutlineOptions {
        isolation: Isolation::through(workers.clone(), 0),
        ..OutlineOptions::default()
    }
}

/// Child: one input through one worker; prints `millis parent_kib worker_kib outcome`.
fn child(worker: PathBuf, extension: &str, pattern: usize, bytes: usize) {
    let language = Language::from_extension(extension).expect("known extension");
    let source = input(pattern, bytes);
    // The server's configuration (one worker's share of the total), one job at a time.
    let workers = Arc::new(ParseWorkers::new(worker, slots(), DEFAULT_MEMORY_LIMIT));
    let options = options_through(&workers);
    // A warm worker, as the server keeps: started, with this language's query compiled (that
    // happens before the file's clock starts, so it is not time past the deadline).
    document_symbols(language, "x\n", &options);
    let started = Instant::now();
    let symbols = document_symbols(language, &source, &options);
    let millis = started.elapsed().as_millis();
    workers.shutdown();
    let outcome = outcome(&symbols.diagnostics);
    println!(
        "{millis} {} {} {outcome}",
        peak_rss_kib(),
        workers.peak_child_kib()
    );
}

struct Run {
    pattern: usize,
    millis: u64,
    parent_kib: u64,
    worker_kib: u64,
    outcome: String,
}

fn run_one(worker: &str, extension: &str, pattern: usize, bytes: usize) -> Run {
    let exe = std::env::current_exe().expect("own path");
    let output = Command::new(exe)
        .args([
            "--child",
            worker,
            extension,
            &pattern.to_string(),
            &bytes.to_string(),
        ])
        .output()
        .expect("run child");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let fields: Vec<&str> = stdout.split_whitespace().collect();
    match fields[..] {
        [millis, parent, worker, outcome] if output.status.success() => Run {
            pattern,
            millis: millis.parse().unwrap_or(0),
            parent_kib: parent.parse().unwrap_or(0),
            worker_kib: worker.parse().unwrap_or(0),
            outcome: outcome.to_owned(),
        },
        _ => Run {
            pattern,
            millis: 0,
            parent_kib: 0,
            worker_kib: 0,
            outcome: format!("CRASH({})", output.status),
        },
    }
}

/// Ordinary files: the fold crate's fixtures, outlined `rounds` times each.
fn overhead(worker: PathBuf, rounds: usize) {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fold/tests/fixtures");
    let mut files: Vec<(Language, String)> = std::fs::read_dir(&fixtures)
        .expect("fixtures")
        .flatten()
        .filter_map(|entry| {
            let path = entry.path();
            let language = Language::from_path(&path.to_string_lossy())?;
            Some((language, std::fs::read_to_string(&path).ok()?))
        })
        .collect();
    files.sort_by_key(|(language, _)| language.name());
    let bytes: usize = files.iter().map(|(_, source)| source.len()).sum();
    let workers = Arc::new(ParseWorkers::new(worker, slots(), DEFAULT_MEMORY_LIMIT));
    let here = OutlineOptions::default();
    let isolated = options_through(&workers);
    // Warm both: queries compiled here, workers started with theirs.
    for (language, source) in &files {
        outline(*language, source, &here);
        outline(*language, source, &isolated);
    }
    let time = |options: &OutlineOptions, threads: usize| {
        let started = Instant::now();
        std::thread::scope(|scope| {
            for thread in 0..threads {
                let files = &files;
                scope.spawn(move || {
                    for round in 0..rounds {
                        for (index, (language, source)) in files.iter().enumerate() {
                            if (round * files.len() + index) % threads == thread {
                                outline(*language, source, options);
                            }
                        }
                    }
                });
            }
        });
        started.elapsed()
    };
    let count = files.len() * rounds;
    println!(
        "{} fixture files ({} KiB), {rounds} rounds = {count} outlines",
        files.len(),
        bytes / 1024
    );
    // `outline` from a plain thread (a documentSymbol request): in-process, each call starts a
    // thread with the readers' 256 MiB stack; a worker runs it on its own main thread.
    println!("| mode | in-process | parse workers | ratio | per file added |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for threads in [1, 2] {
        // Alternate to spread the machine's noise over both.
        let mut best_here = Duration::MAX;
        let mut best_isolated = Duration::MAX;
        for _ in 0..3 {
            best_here = best_here.min(time(&here, threads));
            best_isolated = best_isolated.min(time(&isolated, threads));
        }
        let added = best_isolated.saturating_sub(best_here) / count as u32;
        println!(
            "| {threads} thread(s) | {:.1} ms | {:.1} ms | {:.2}x | {:.0} µs |",
            best_here.as_secs_f64() * 1e3,
            best_isolated.as_secs_f64() * 1e3,
            best_isolated.as_secs_f64() / best_here.as_secs_f64(),
            added.as_secs_f64() * 1e6
        );
    }
    // The folded context's cold path: `outline_many` on its grammar-stack threads (in-process,
    // no thread is started per file there).
    let jobs: Vec<OutlineJob<'_>> = (0..rounds)
        .flat_map(|_| files.iter())
        .map(|(language, source)| OutlineJob {
            language: *language,
            source,
        })
        .collect();
    let mut best_here = Duration::MAX;
    let mut best_isolated = Duration::MAX;
    for _ in 0..3 {
        let started = Instant::now();
        outline_many(&jobs, &here, 2);
        best_here = best_here.min(started.elapsed());
        let started = Instant::now();
        outline_many(&jobs, &isolated, 2);
        best_isolated = best_isolated.min(started.elapsed());
    }
    println!(
        "| outline_many, 2 threads | {:.1} ms | {:.1} ms | {:.2}x | {:.0} µs |",
        best_here.as_secs_f64() * 1e3,
        best_isolated.as_secs_f64() * 1e3,
        best_isolated.as_secs_f64() / best_here.as_secs_f64(),
        best_isolated.saturating_sub(best_here).as_secs_f64() * 1e6 / count as f64
    );
    workers.shutdown();
}

/// The fixed cost outside a file's clock: per language, a server's first parse of that language
/// (a fresh pool: the worker's exec and the query compile, then a one-line file), against the
/// same file through the now warm worker. Best of `rounds`, each round with fresh pools.
fn first_use(worker: PathBuf, rounds: usize) {
    println!("| language | first use ms (exec + query compile + parse) | warm ms |");
    println!("| --- | ---: | ---: |");
    let mut worst = (0u128, "");
    for extension in LANGUAGES {
        let language = Language::from_extension(extension).expect("known extension");
        let (mut cold, mut warm) = (u128::MAX, u128::MAX);
        for _ in 0..rounds {
            let workers = Arc::new(ParseWorkers::new(worker.clone(), 1, DEFAULT_MEMORY_LIMIT));
            let options = options_through(&workers);
            let started = Instant::now();
            document_symbols(language, "x\n", &options);
            cold = cold.min(started.elapsed().as_micros());
            let started = Instant::now();
            document_symbols(language, "x\n", &options);
            warm = warm.min(started.elapsed().as_micros());
            workers.shutdown();
        }
        if cold > worst.0 {
            worst = (cold, extension);
        }
        println!(
            "| {extension} | {:.1} | {:.1} |",
            cold as f64 / 1e3,
            warm as f64 / 1e3
        );
    }
    println!(
        "worst first use: {} ({:.1} ms)",
        worst.1,
        worst.0 as f64 / 1e3
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        child(
            PathBuf::from(&args[1]),
            &args[2],
            args[3].parse().expect("pattern"),
            args[4].parse().expect("bytes"),
        );
        return;
    }
    let value = |flag: &str| {
        args.iter()
            .position(|arg| arg == flag)
            .and_then(|at| args.get(at + 1))
            .cloned()
    };
    let worker = value("--worker").unwrap_or_else(|| {
        let exe = std::env::current_exe().expect("own path");
        let folder = exe
            .parent()
            .and_then(|p| p.parent())
            .expect("target folder");
        folder.join("roo-context").to_string_lossy().into_owned()
    });
    assert!(
        std::path::Path::new(&worker).exists(),
        "no worker binary at {worker}: cargo build --release -p roo-context"
    );
    if args.iter().any(|arg| arg == "--first-use") {
        first_use(PathBuf::from(worker), 3);
        return;
    }
    if args.iter().any(|arg| arg == "--overhead") {
        overhead(PathBuf::from(worker), 20);
        return;
    }
    let bytes: usize = value("--bytes").map_or(64 * 1024, |b| b.parse().expect("--bytes N"));
    let only = value("--lang");
    let all = args.iter().any(|arg| arg == "--all");
    let patterns: Option<Vec<usize>> = value("--patterns").map(|list| {
        list.split(',')
            .map(|index| index.parse().expect("--patterns 0,19"))
            .collect()
    });
    let budget = OutlineOptions::default().parse_timeout.as_millis() as u64;
    println!(
        "hostile inputs of {bytes} bytes, {} patterns, through parse workers ({} MiB cap each, {budget} ms budget)",
        PATTERNS.len(),
        (DEFAULT_MEMORY_LIMIT / slots()) >> 20
    );
    println!(
        "| language | worst input (time) | time ms | past deadline ms | worst input (memory) | server peak MiB | worker peak MiB | outcome | crashes |"
    );
    println!("| --- | --- | ---: | ---: | --- | ---: | ---: | --- | ---: |");
    for extension in LANGUAGES {
        if only.as_deref().is_some_and(|only| only != *extension) {
            continue;
        }
        let runs: Vec<Run> = (0..PATTERNS.len())
            .filter(|pattern| patterns.as_ref().is_none_or(|only| only.contains(pattern)))
            .map(|pattern| run_one(&worker, extension, pattern, bytes))
            .collect();
        if all {
            for run in &runs {
                println!(
                    "  {extension} {:<24} {:>6} ms {:>5} MiB server {:>5} MiB worker {}",
                    describe(run.pattern),
                    run.millis,
                    run.parent_kib / 1024,
                    run.worker_kib / 1024,
                    run.outcome
                );
            }
        }
        let crashes = runs
            .iter()
            .filter(|run| run.outcome.starts_with("CRASH"))
            .count();
        let slowest = runs.iter().max_by_key(|run| run.millis).expect("runs");
        let biggest = runs
            .iter()
            .max_by_key(|run| run.worker_kib.max(run.parent_kib))
            .expect("runs");
        let server_peak = runs.iter().map(|run| run.parent_kib).max().unwrap_or(0);
        println!(
            "| {extension} | `{}` | {} | {} | `{}` | {} | {} | {} | {crashes} |",
            describe(slowest.pattern),
            slowest.millis,
            slowest.millis.saturating_sub(budget),
            describe(biggest.pattern),
            server_peak / 1024,
            biggest.worker_kib / 1024,
            biggest.outcome,
        );
    }
}
