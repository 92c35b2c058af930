//! Access-decision throughput: the bare gitignore matcher and the full access rule (path
//! resolution with symlinks, folder cache) over a realistic repository.
//!
//! By default a deterministic synthetic repository (about 25,000 paths, symlinks included) is
//! generated in a temp folder. Set `ROO_BENCH_CORPUS` to the `corpus/` folder made by
//! `../shared/bench/gen_corpus.py` to measure on the anchors' corpus, side by side with
//! `node node/ignore_bench.mjs corpus` there. Run: `cargo bench -p roo-context-core --bench access`.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use divan::Bencher;
use divan::counter::ItemsCount;
use roo_context_core::access::{Flavor, FolderPolicy, IgnoreFile, Policy, ProtectRules};
use roo_context_core::fs::OsFs;
use roo_context_core::path::{Resolver, WorkspaceRoot};
use roo_context_core::rules::RuleSet;

fn main() {
    divan::main();
}

const SYNTHETIC_ROOIGNORE: &str = "# 20 patterns, like a real project\nnode_modules/\n.git/\ndist/\nbuild/\ncoverage/\ntarget/\n*.log\n*.map\n.env*\n!.env.example\nsecrets/**\n*.pem\n/config/local.*.json\ndocs/internal/**\n!docs/internal/PUBLIC.md\n**/__snapshots__/**\n*.min.js\ngenerated/\n.cache/\ntmp/\n";

struct Corpus {
    _temp: Option<tempfile::TempDir>,
    root: PathBuf,
    rooignore: String,
    paths: Vec<String>,
}

fn synthetic() -> Corpus {
    let temp = tempfile::tempdir().expect("tempdir");
    let root = temp.path().to_path_buf();
    let mut paths = Vec::new();
    let touch = |relative: String, paths: &mut Vec<String>| {
        let path = root.join(&relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"x").unwrap();
        paths.push(relative);
    };
    for package in 0..60 {
        for folder in [
            "src",
            "src/components",
            "src/utils",
            "__tests__",
            "__snapshots__",
            "dist",
            "node_modules/dep/lib",
            "generated",
        ] {
            for file in 0..50 {
                let extension = ["ts", "tsx", "js", "map", "log", "min.js"][file % 6];
                touch(
                    format!("packages/p{package}/{folder}/f{file}.{extension}"),
                    &mut paths,
                );
            }
        }
    }
    for i in 0..200 {
        touch(format!("secrets/k{i}.pem"), &mut paths);
        touch(format!("docs/internal/n{i}.md"), &mut paths);
    }
    std::fs::write(root.join(".rooignore"), SYNTHETIC_ROOIGNORE).unwrap();
    // Symlinks: a linked folder and linked files, so resolution is part of the cost.
    std::os::unix::fs::symlink(root.join("secrets"), root.join("packages/p0/src/keys")).unwrap();
    for i in 0..100 {
        std::os::unix::fs::symlink(
            root.join(format!("secrets/k{i}.pem")),
            root.join(format!("packages/p1/src/link{i}.ts")),
        )
        .unwrap();
        paths.push(format!("packages/p1/src/link{i}.ts"));
        paths.push(format!("packages/p0/src/keys/k{i}.pem"));
    }
    Corpus {
        _temp: Some(temp),
        root,
        rooignore: SYNTHETIC_ROOIGNORE.to_owned(),
        paths,
    }
}

fn anchors(dir: &Path) -> Corpus {
    let root = dir.join("repo");
    let rooignore = std::fs::read_to_string(root.join(".rooignore")).expect("corpus .rooignore");
    let paths = std::fs::read_to_string(dir.join("paths.txt"))
        .expect("corpus paths.txt")
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| l.trim_end_matches('/').to_owned())
        .collect();
    Corpus {
        _temp: None,
        root,
        rooignore,
        paths,
    }
}

static CORPUS: LazyLock<Corpus> = LazyLock::new(|| match std::env::var_os("ROO_BENCH_CORPUS") {
    Some(dir) => anchors(Path::new(&dir)),
    None => synthetic(),
});

fn policy(corpus: &Corpus) -> Policy {
    Policy {
        folders: vec![FolderPolicy {
            root: WorkspaceRoot::new(&corpus.root, &OsFs),
            ignore: Some(std::sync::Arc::new(IgnoreFile::new(
                ".rooignore",
                &corpus.rooignore,
            ))),
        }],
        protect: std::sync::Arc::new(ProtectRules::new(&[], Flavor::Roo)),
        deny_outside_workspace: false,
    }
}

/// The bare matcher on relative paths, compiled afresh each run (cold, like a new npm `ignore`).
#[divan::bench]
fn matcher_cold(bencher: Bencher) {
    let corpus = &*CORPUS;
    bencher
        .counter(ItemsCount::new(corpus.paths.len()))
        .bench(|| {
            let rules = RuleSet::new(Some(".rooignore"), &corpus.rooignore, &[".rooignore"]);
            corpus
                .paths
                .iter()
                .filter(|p| rules.matched(p).is_some())
                .count()
        });
}

/// A resolver that caches folders of the policy's roots, as the server's does.
fn watched_resolver(policy: &Policy) -> Resolver {
    let resolver = Resolver::default();
    resolver.set_watched_roots(policy.folders.iter().map(|f| f.root.clone()).collect());
    resolver
}

/// One hostile path: 240 KB of `a/../` (quadratic before the left-to-right resolver). Compare
/// with `check_one_ordinary_path`.
#[divan::bench]
fn check_one_hostile_dot_dot_path(bencher: Bencher) {
    let corpus = &*CORPUS;
    let policy = policy(corpus);
    let resolver = watched_resolver(&policy);
    let hostile = format!("{}src/k.ts", "a/../".repeat(48_000));
    bencher.bench(|| {
        policy
            .check_access(&resolver, &OsFs, None, &hostile)
            .allowed()
    });
}

/// One ordinary path, the baseline of `check_one_hostile_dot_dot_path`.
#[divan::bench]
fn check_one_ordinary_path(bencher: Bencher) {
    let corpus = &*CORPUS;
    let policy = policy(corpus);
    let resolver = watched_resolver(&policy);
    bencher.bench(|| {
        policy
            .check_access(&resolver, &OsFs, None, "src/k.ts")
            .allowed()
    });
}

/// The full access rule (lexical + canonical forms, symlinks resolved), folder cache cold.
#[divan::bench]
fn check_access_cold_cache(bencher: Bencher) {
    let corpus = &*CORPUS;
    let policy = policy(corpus);
    bencher
        .counter(ItemsCount::new(corpus.paths.len()))
        .bench(|| {
            let resolver = watched_resolver(&policy);
            corpus
                .paths
                .iter()
                .filter(|p| !policy.check_access(&resolver, &OsFs, None, p).allowed())
                .count()
        });
}

/// The full access rule with the folder cache warm (the server's steady state).
#[divan::bench]
fn check_access_warm_cache(bencher: Bencher) {
    let corpus = &*CORPUS;
    let policy = policy(corpus);
    let resolver = watched_resolver(&policy);
    for p in &corpus.paths {
        policy.check_access(&resolver, &OsFs, None, p);
    }
    bencher
        .counter(ItemsCount::new(corpus.paths.len()))
        .bench(|| {
            corpus
                .paths
                .iter()
                .filter(|p| !policy.check_access(&resolver, &OsFs, None, p).allowed())
                .count()
        });
}

/// The batch API the server uses: the full rule on every core, folder cache warm.
#[divan::bench]
fn check_access_many_warm_cache(bencher: Bencher) {
    let corpus = &*CORPUS;
    let policy = policy(corpus);
    let resolver = watched_resolver(&policy);
    policy.check_access_many(&resolver, &OsFs, None, &corpus.paths);
    bencher
        .counter(ItemsCount::new(corpus.paths.len()))
        .bench(|| {
            policy
                .check_access_many(&resolver, &OsFs, None, &corpus.paths)
                .iter()
                .filter(|d| !d.allowed())
                .count()
        });
}
