//! End-to-end figures over real stdio, measured on the built binary: start to `initialize`
//! answered, resident memory before and after the tokenizer loads, a 1,000-path access batch, a
//! folded context of 100 files (cold, then warm), a token count of a long history, and the
//! user's diff of a 1 MiB file with 10 changed lines (`takeRecentlyModified {withDiffs: true}`,
//! next to the same take without diffs).
//!
//! Run: `cargo bench -p roo-context --bench stdio` (release build; `ROO_STDIO_BENCH=user_diff`
//! for the user's diff alone, `ROO_STDIO_BENCH_BIN=<path>` to measure another build). Prints a
//! table; nothing here is a pass/fail test.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use roo_context::stdio_client::Client;
use serde_json::{Value, json};

/// The shared stdio client, with panics for a bench that has no use for errors.
struct Peer {
    client: Client,
}

impl Peer {
    fn spawn(env: &[(&str, &str)]) -> Peer {
        // Another build (a baseline) can be measured in the same session.
        let binary = std::env::var("ROO_STDIO_BENCH_BIN")
            .unwrap_or_else(|_| env!("CARGO_BIN_EXE_roo-context").to_owned());
        let mut command = Command::new(binary);
        command.stderr(Stdio::null());
        for (k, v) in env {
            command.env(k, v);
        }
        Peer {
            client: Client::spawn(command, Duration::from_secs(600)).expect("spawn"),
        }
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        self.client
            .call(method, params)
            .unwrap_or_else(|e| panic!("{e}"))
    }

    fn initialize(&mut self, root: &Path, options: Value) -> Value {
        let uri = format!("file://{}", root.display());
        let result = self.call(
            "initialize",
            json!({"processId": null, "capabilities": {}, "workspaceFolders": [{"uri": uri, "name": "w"}], "initializationOptions": options}),
        );
        self.client
            .notify("initialized", json!({}))
            .expect("initialized");
        result
    }

    fn rss_mib(&mut self) -> f64 {
        let pid = self.client.child().map_or(0, |child| child.id());
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
            .map_or(f64::NAN, |kb| kb / 1024.0)
    }
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[index]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join(".rooignore"),
        "node_modules/\ndist/\n*.log\nsecrets/**\n*.pem\n.env*\n",
    )
    .unwrap();
    for i in 0..100 {
        let mut source = String::new();
        for c in 0..6 {
            source.push_str(&format!(
                "export interface Shape{i}x{c} {{\n  area(): number;\n  name: string;\n  id: number;\n}}\n\nexport class Widget{i}x{c} implements Shape{i}x{c} {{\n  name = \"w\";\n  id = {c};\n  area(): number {{\n    const a = this.id * 2;\n    return a + 1;\n  }}\n\n  render(target: string): string {{\n    return `<div>${{target}}</div>`;\n  }}\n}}\n\nexport function make{i}x{c}(n: number): Widget{i}x{c}[] {{\n  const out = [];\n  for (let k = 0; k < n; k++) {{\n    out.push(new Widget{i}x{c}());\n  }}\n  return out;\n}}\n\n"
            ));
        }
        let path = dir.path().join(format!("src/module{}/file{i}.ts", i % 10));
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, source).unwrap();
    }
    dir
}

fn main() {
    let dir = workspace();
    let root = dir.path();
    if std::env::var("ROO_STDIO_BENCH").is_ok_and(|only| only == "user_diff") {
        let mut peer = Peer::spawn(&[]);
        peer.initialize(root, json!({"warmTokenizer": false}));
        user_diff(&mut peer, root);
        return;
    }
    println!(
        "roo-context over stdio ({} cores)",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    // 1. Start to `initialize` answered, and memory before any token count.
    let mut starts = Vec::new();
    let mut lazy_rss = Vec::new();
    for _ in 0..15 {
        let begin = Instant::now();
        let mut peer = Peer::spawn(&[]);
        peer.initialize(root, json!({"warmTokenizer": false}));
        starts.push(begin.elapsed());
        peer.call("roo/workspace/status", json!({}));
        lazy_rss.push(peer.rss_mib());
    }
    let start_median = percentile(&mut starts, 0.5);
    let start_p90 = percentile(&mut starts, 0.9);
    lazy_rss.sort_by(f64::total_cmp);
    println!(
        "| start to initialize answered | median {} | p90 {} |",
        ms(start_median),
        ms(start_p90)
    );
    println!(
        "| resident memory after initialize, tokenizer not loaded | {:.1} MiB |",
        lazy_rss[lazy_rss.len() / 2]
    );

    let mut peer = Peer::spawn(&[]);
    peer.initialize(root, json!({"warmTokenizer": false}));
    let begin = Instant::now();
    peer.call("roo/tokens/count", json!({"text": "hello"}));
    println!(
        "| first token count (loads the tables) | {} |",
        ms(begin.elapsed())
    );
    println!(
        "| resident memory with the tokenizer loaded | {:.1} MiB |",
        peer.rss_mib()
    );

    // 2. One batch of 1,000 paths.
    let paths: Vec<String> = (0..1000)
        .map(|i| match i % 5 {
            0 => format!("node_modules/pkg{i}/index.js"),
            1 => format!("src/module{}/file{}.ts", i % 10, i % 100),
            2 => format!("dist/chunk{i}.js"),
            3 => format!("secrets/key{i}.pem"),
            _ => format!("src/deep/a/b/c/d/e{i}.ts"),
        })
        .collect();
    let mut batch = Vec::new();
    for _ in 0..60 {
        let begin = Instant::now();
        let result = peer.call("roo/ignore/validateAccess", json!({"paths": paths}));
        batch.push(begin.elapsed());
        assert_eq!(result["results"].as_array().unwrap().len(), 1000);
    }
    let batch_median = percentile(&mut batch, 0.5);
    println!(
        "| validateAccess, 1,000 paths, end to end | median {} | p99 {} | {:.0} paths/s |",
        ms(batch_median),
        ms(percentile(&mut batch, 0.99)),
        1000.0 / batch_median.as_secs_f64()
    );

    // 3. Folded context of 100 files: cold (first), then warm (cached outlines).
    let files: Vec<String> = (0..100)
        .map(|i| format!("src/module{}/file{i}.ts", i % 10))
        .collect();
    let begin = Instant::now();
    let cold = peer.call(
        "roo/fold/context",
        json!({"paths": files, "maxChars": 1_000_000}),
    );
    let cold_time = begin.elapsed();
    let mut warm = Vec::new();
    for _ in 0..20 {
        let begin = Instant::now();
        peer.call(
            "roo/fold/context",
            json!({"paths": files, "maxChars": 1_000_000}),
        );
        warm.push(begin.elapsed());
    }
    let warm_median = percentile(&mut warm, 0.5);
    println!(
        "| folded context, 100 files ({} chars) | cold {} | warm median {} | {:.0}x |",
        cold["characterCount"],
        ms(cold_time),
        ms(warm_median),
        cold_time.as_secs_f64() / warm_median.as_secs_f64()
    );

    // 4. Effective history and token total of a 10,000-message, ~50 MB history, then again after
    //    appending one message (per-message counts are cached by content).
    let filler = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor "
        .repeat(62);
    let mut history: Vec<Value> = (0..10_000)
        .map(|i| {
            let role = if i % 2 == 0 { "user" } else { "assistant" };
            json!({"role": role, "content": [{"type": "text", "text": format!("message {i}: {filler}")}], "ts": i})
        })
        .collect();
    let bytes = serde_json::to_string(&history).unwrap().len();
    let begin = Instant::now();
    peer.call("roo/history/effective", json!({"messages": history}));
    let effective_time = begin.elapsed();
    let begin = Instant::now();
    let first = peer.call("roo/tokens/count", json!({"messages": history}));
    let first_time = begin.elapsed();
    history.push(json!({"role": "user", "content": "one more", "ts": 99_999}));
    let begin = Instant::now();
    let second = peer.call("roo/tokens/count", json!({"messages": history}));
    let second_time = begin.elapsed();
    println!(
        "| {}-message history ({:.1} MB, {} tokens), end to end incl. JSON | effective history {} | token total first {} | after one append {} |",
        history.len() - 1,
        bytes as f64 / 1e6,
        first["total"],
        ms(effective_time),
        ms(first_time),
        ms(second_time)
    );
    assert!(second["total"].as_u64() > first["total"].as_u64());
    user_diff(&mut peer, root);
}

/// `ROO_STDIO_BENCH=user_diff` runs only this part.
fn user_diff(peer: &mut Peer, root: &Path) {
    // 5. The user's diff: a tracked 1 MiB file, 10 lines changed outside the agent, taken with
    //    diffs (never acknowledged, so each take diffs again) and, as the same-run baseline,
    //    without them.
    let big: String = (0..)
        .map(|i| format!("export const value{i} = compute({i}, \"item-{i}\", options);\n"))
        .scan(0usize, |size, line| {
            *size += line.len();
            (*size <= 1024 * 1024).then_some(line)
        })
        .collect();
    let lines = big.lines().count();
    let changed_at: Vec<usize> = (0..10).map(|k| k * lines / 10 + 7).collect();
    let edited: String = big
        .split_inclusive('\n')
        .enumerate()
        .map(|(i, line)| {
            if changed_at.contains(&i) {
                format!("// line {i} changed by the user\n")
            } else {
                line.to_owned()
            }
        })
        .collect();
    std::fs::write(root.join("src/big.ts"), &big).unwrap();
    let storage = tempfile::tempdir().unwrap();
    peer.call(
        "roo/files/track",
        json!({"taskId": "bench", "storageDir": storage.path(), "path": "src/big.ts", "source": "read_tool"}),
    );
    std::fs::write(root.join("src/big.ts"), &edited).unwrap();
    loop {
        let change = peer
            .client
            .notification("roo/files/didChange")
            .expect("didChange");
        if change["path"] == "src/big.ts" {
            break;
        }
    }
    let take = |peer: &mut Peer, with_diffs: bool| {
        let begin = Instant::now();
        let notice = peer.call(
            "roo/files/takeRecentlyModified",
            json!({"taskId": "bench", "withDiffs": with_diffs, "limits": {"timeoutMs": 10_000}}),
        );
        (begin.elapsed(), notice)
    };
    let (mut with_diffs, mut without) = (Vec::new(), Vec::new());
    for _ in 0..100 {
        let (time, notice) = take(peer, true);
        assert_eq!(notice["changes"][0]["diffStat"]["added"], 10, "{notice}");
        with_diffs.push(time);
        without.push(take(peer, false).0);
    }
    println!(
        "| takeRecentlyModified withDiffs, 1 MiB file, 10 changed lines, end to end | median {} | p99 {} | without diffs median {} | p99 {} |",
        ms(percentile(&mut with_diffs, 0.5)),
        ms(percentile(&mut with_diffs, 0.99)),
        ms(percentile(&mut without, 0.5)),
        ms(percentile(&mut without, 0.99)),
    );
}
