//! What withholding blocked files' lines costs per byte of tool output, side by side in one run
//! with the floor of any line-by-line reader (splitting the output into lines and counting them).
//!
//! Three outputs of about 8 MB each, generated: `grep -rn` over 20,000 files (every 50th blocked),
//! a `git log -p` of 2,000 commits touching an allowed and a blocked file, and a build log with no
//! file names (nothing to judge). The rule is a `HashSet` lookup, so the figures are the walk's.
//! Run: `cargo bench -p roo-context-core --bench withhold`.

use std::collections::HashSet;
use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::BytesCount;
use roo_context_core::context::withhold_blocked_lines;

fn main() {
    divan::main();
}

struct Outputs {
    grep: String,
    log: String,
    build: String,
    blocked: HashSet<String>,
}

static OUTPUTS: LazyLock<Outputs> = LazyLock::new(|| {
    let mut blocked = HashSet::new();
    let mut grep = String::new();
    for file in 0..20_000 {
        let path = if file % 50 == 0 {
            let path = format!("config-{file}/.env");
            blocked.insert(path.clone());
            path
        } else {
            format!("src/module-{file}/index.ts")
        };
        for line in 1..=5 {
            grep.push_str(&format!(
                "./{path}:{line}:const value{line} = process.env.API_KEY_{file}\n"
            ));
        }
    }
    blocked.insert(".env".to_owned());
    let mut log = String::new();
    for commit in 0..2_000 {
        log.push_str(&format!(
            "commit {commit:040x}\nAuthor: A <a@b>\nDate:   Sun Dec 6 08:40:03 2026 +0000\n\n    change {commit}\n\n"
        ));
        for path in ["src/app.ts", ".env"] {
            log.push_str(&format!(
                "diff --git a/{path} b/{path}\nindex 1111111..2222222 100644\n--- a/{path}\n+++ b/{path}\n@@ -1,10 +1,10 @@\n"
            ));
            for line in 0..10 {
                log.push_str(&format!(
                    "-old line {line} of commit {commit}: key = 12:30:00\n"
                ));
                log.push_str(&format!(
                    "+new line {line} of commit {commit}: key = 12:31:00\n"
                ));
            }
        }
    }
    let mut build = String::new();
    while build.len() < 8_000_000 {
        build.push_str(
            "   Compiling roo-context-core v0.1.0 (crates/core) in 12.30s; warnings: 0, notes: 3\n",
        );
    }
    Outputs {
        grep,
        log,
        build,
        blocked,
    }
});

fn output(name: &str) -> &'static str {
    let outputs = &*OUTPUTS;
    match name {
        "grep" => &outputs.grep,
        "log" => &outputs.log,
        _ => &outputs.build,
    }
}

/// The floor: every line of the output visited once.
#[divan::bench(args = ["grep", "log", "build"])]
fn split_lines(bencher: Bencher, name: &str) {
    let text = output(name);
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| text.split_inclusive('\n').count());
}

#[divan::bench(args = ["grep", "log", "build"])]
fn withhold(bencher: Bencher, name: &str) {
    let text = output(name);
    let blocked = &OUTPUTS.blocked;
    bencher
        .counter(BytesCount::new(text.len()))
        .bench(|| withhold_blocked_lines(text, false, |path| blocked.contains(path)).lines);
}
