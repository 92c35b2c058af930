//! Vetting speed: a 10 KB script and 1,000 typical one-line commands against a real workspace
//! (the real access rule, the file-system oracle), with tree-sitter parsing alone as the
//! baseline measured in the same run. After divan's table it prints per-command latency
//! percentiles (median of 21 runs per command). Run: `cargo bench -p roo-context-shell --bench vet`.

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::Instant;

fn main() {
    divan::main();
    percentiles();
}

const FILES: &[&str] = &[
    "src/app.ts",
    "src/main.rs",
    "README.md",
    "docs/guide.md",
    "data/notes.txt",
    "config/public.json",
    ".env",
    "secrets/key.json",
    "src/util/helpers.ts",
    "key.pem",
];

const TEMPLATES: &[&str] = &[
    "cat {f}",
    "head -n 20 {f}",
    "tail -n 50 {f}",
    "grep -n TODO {f}",
    "wc -l {f}",
    "git diff {f}",
    "git log --oneline -- {f}",
    "sed -n '1,20p' {f}",
    "ls -la src",
    "npm test",
    "npm run build && npm test",
    "cargo test -p core -- --nocapture",
    "git status && git diff --stat",
    "cd src && cat ../{f}",
    "cat {f} | grep -v '^#' | sort | uniq -c",
    "diff {f} src/app.ts",
    "python3 -m pytest tests -k {n}",
    "find src -name '*.ts' | head",
    "jq .name {f}",
    "echo \"$(date)\" >> /tmp/log.txt",
    "if [ -f {f} ]; then cat {f}; fi",
    "for x in 1 2 3; do echo $x; done",
    "sudo -u root cat {f}",
    "bash -c 'cat {f}'",
    "curl -fsSL https://example.com/{n} -o /tmp/x",
    "docker build -t app:{n} .",
    "Get-Content -Path {f}",
    "Select-String -Pattern x -Path {f}",
    "cp {f} /tmp/backup-{n}",
    "tar czf /tmp/{n}.tgz src docs",
];

fn one_liners() -> Vec<String> {
    (0..1000)
        .map(|i| {
            let template = TEMPLATES[i % TEMPLATES.len()];
            let file = FILES[(i / TEMPLATES.len()) % FILES.len()];
            template.replace("{f}", file).replace("{n}", &i.to_string())
        })
        .collect()
}

/// About 10 KB of a realistic build script: functions, loops, conditionals, pipelines.
fn script() -> String {
    let block = r#"
set -euo pipefail
log() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }
build() {
  local target="$1"
  log "building $target"
  if [ -d "dist/$target" ]; then rm -rf "dist/$target"; fi
  mkdir -p "dist/$target"
  for f in src/*.ts; do
    cp "$f" "dist/$target/"
  done
  (cd src && tar cf - app.ts main.rs) | (cd "dist/$target" && tar xf -)
  grep -n TODO src/app.ts docs/guide.md | sort | uniq -c > /tmp/todo.txt || true
  case "$target" in
    web) npm run build -- --mode production ;;
    cli) cargo build --release -p roo-context ;;
    *) log "unknown target $target"; return 1 ;;
  esac
}
while read -r line; do echo "$line" | cut -d, -f1; done < data/notes.txt
git log --oneline -n 20 | head -n 5
jq '.version' config/public.json > /tmp/version.txt
"#;
    let mut out = String::new();
    while out.len() < 10 * 1024 {
        out.push_str(block);
    }
    out
}

fn parse_only(text: &str) -> u32 {
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .expect("bash grammar");
    parser
        .parse(text, None)
        .map_or(0, |t| t.root_node().child_count())
}

#[divan::bench(sample_count = 50)]
fn script_10kb_vet(bencher: divan::Bencher) {
    let ws = common::Workspace::new();
    let text = script();
    bencher.bench_local(|| ws.vet(divan::black_box(&text)));
}

#[divan::bench(sample_count = 50)]
fn script_10kb_parse_baseline(bencher: divan::Bencher) {
    let text = script();
    bencher.bench_local(|| parse_only(divan::black_box(&text)));
}

#[divan::bench(sample_count = 20)]
fn one_liners_1000_vet(bencher: divan::Bencher) {
    let ws = common::Workspace::new();
    let commands = one_liners();
    bencher.bench_local(|| {
        for command in &commands {
            divan::black_box(ws.vet(command));
        }
    });
}

#[divan::bench(sample_count = 20)]
fn one_liners_1000_parse_baseline(bencher: divan::Bencher) {
    let commands = one_liners();
    bencher.bench_local(|| {
        for command in &commands {
            divan::black_box(parse_only(command));
        }
    });
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn median_micros(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[runs / 2]
}

fn percentiles() {
    let ws = common::Workspace::new();
    let commands = one_liners();
    let mut vet: Vec<f64> = Vec::new();
    let mut parse: Vec<f64> = Vec::new();
    for command in &commands {
        vet.push(median_micros(21, || {
            divan::black_box(ws.vet(command));
        }));
        parse.push(median_micros(21, || {
            divan::black_box(parse_only(command));
        }));
    }
    vet.sort_by(f64::total_cmp);
    parse.sort_by(f64::total_cmp);
    println!(
        "\nper-command latency over {} one-liners (median of 21 runs each), µs:",
        commands.len()
    );
    println!("{:<22} {:>8} {:>8} {:>8}", "", "p50", "p99", "max");
    for (name, v) in [("vet", &vet), ("parse only (baseline)", &parse)] {
        println!(
            "{:<22} {:>8.1} {:>8.1} {:>8.1}",
            name,
            percentile(v, 0.5),
            percentile(v, 0.99),
            v[v.len() - 1]
        );
    }
    println!(
        "vet / parse at p99: {:.1}x",
        percentile(&vet, 0.99) / percentile(&parse, 0.99)
    );
}
