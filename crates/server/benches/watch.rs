//! Benchmark of the file context tracker (not a timed test): generates a 100,000-file workspace,
//! runs `roo-context watch` on it, and reports time to ready, memory (VmRSS/VmHWM from the
//! watcher's own /proc/self/status) and edit-to-notification latency over 200 edits, debounce
//! included. Run: `cargo bench -p roo-context --bench watch` (env `WATCH_BENCH_FILES`,
//! `WATCH_BENCH_EDITS` change the sizes; `WATCH_BENCH_BIN` runs another build of the binary, for
//! an A/B against an older commit in the same run).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn main() {
    let files = env_usize("WATCH_BENCH_FILES", 100_000);
    let edits = env_usize("WATCH_BENCH_EDITS", 200);
    let per_folder = 100;
    let workspace = tempfile::tempdir().expect("tempdir");
    let generated = Instant::now();
    for i in 0..files {
        let folder = workspace.path().join(format!("pkg{:04}", i / per_folder));
        if i % per_folder == 0 {
            std::fs::create_dir_all(&folder).unwrap();
        }
        std::fs::write(
            folder.join(format!("file{:03}.ts", i % per_folder)),
            format!("export const v{i} = {i};\n"),
        )
        .unwrap();
    }
    eprintln!(
        "generated {files} files in {} folders in {:?}",
        files.div_ceil(per_folder),
        generated.elapsed()
    );
    // One tracked file per edit, spread over the tree.
    let tracked: Vec<String> = (0..edits)
        .map(|e| {
            let i = e * (files / edits).max(1) % files;
            format!("pkg{:04}/file{:03}.ts", i / per_folder, i % per_folder)
        })
        .collect();

    let spawned = Instant::now();
    let binary = std::env::var("WATCH_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_roo-context").to_owned());
    eprintln!("binary {binary}");
    let mut child = Command::new(binary)
        .arg("watch")
        .arg("--workspace")
        .arg(workspace.path())
        .args(&tracked)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn roo-context watch");
    let (ready_tx, ready_rx) = mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.starts_with("ready ") {
                let _ = ready_tx.send(line);
            } else {
                eprintln!("watch: {line}");
            }
        }
    });
    let (lines_tx, lines_rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines_tx.send((Instant::now(), line));
        }
    });
    let ready = ready_rx
        .recv_timeout(Duration::from_secs(600))
        .expect("watch never became ready");
    let ready_wall = spawned.elapsed();

    let mut latencies = Vec::with_capacity(edits);
    for (n, path) in tracked.iter().enumerate() {
        let started = Instant::now();
        std::fs::write(workspace.path().join(path), format!("edited {n}\n")).unwrap();
        loop {
            let (at, line) = lines_rx
                .recv_timeout(Duration::from_secs(30))
                .expect("no notification for an edit");
            if line.ends_with(path.as_str()) && line.starts_with("modified") {
                latencies.push(at - started);
                break;
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    latencies.sort();
    println!("workspace files        {files}");
    println!("ready (wall, spawn)    {ready_wall:?}");
    println!("ready (watcher line)   {ready}");
    println!("edits                  {}", latencies.len());
    println!("latency median         {:?}", percentile(&latencies, 50.0));
    println!("latency p99            {:?}", percentile(&latencies, 99.0));
    println!("latency max            {:?}", latencies.last().unwrap());
}
