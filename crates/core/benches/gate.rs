//! What the read gate costs per file, side by side in one run with the read it replaced: the
//! folded view's former `metadata` + `read` by name against `open_gated` (stat, one open, the
//! descriptor's real path, its judgement, a bounded read), and the access check plus read that
//! a folded context of 2,000 files does either way.
//!
//! 2,000 TypeScript-sized files (about 2.8 KB each, like the folding corpus) are generated in a
//! temp folder. Run: `cargo bench -p roo-context-core --bench gate`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

use divan::Bencher;
use divan::counter::ItemsCount;
use roo_context_core::access::{Flavor, FolderPolicy, IgnoreFile, Policy, ProtectRules};
use roo_context_core::fs::{OsFs, open_gated};
use roo_context_core::path::{Resolver, WorkspaceRoot};

fn main() {
    divan::main();
}

const FILES: usize = 2_000;
const BOUND: u64 = 16 * 1024 * 1024;

struct Corpus {
    _temp: tempfile::TempDir,
    files: Vec<PathBuf>,
    relative: Vec<String>,
    policy: Policy,
}

static CORPUS: LazyLock<Corpus> = LazyLock::new(|| {
    let temp = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(temp.path()).unwrap();
    let body = "export function f(a: number): number {\n  return a + 1;\n}\n".repeat(48);
    let mut files = Vec::new();
    let mut relative = Vec::new();
    for i in 0..FILES {
        let name = format!("src/m{}/f{i}.ts", i % 40);
        let path = root.join(&name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &body).unwrap();
        files.push(path);
        relative.push(name);
    }
    let policy = Policy {
        folders: vec![FolderPolicy {
            root: WorkspaceRoot::new(&root, &OsFs),
            ignore: Some(Arc::new(IgnoreFile::new(
                ".rooignore",
                "node_modules/\n*.pem\nsecrets/**\n.env*\n",
            ))),
        }],
        protect: Arc::new(ProtectRules::new(&[], Flavor::Roo)),
        deny_outside_workspace: false,
    };
    Corpus {
        _temp: temp,
        files,
        relative,
        policy,
    }
});

/// The folded view's read before the gate (`handlers/fold.rs` at 37926cb).
fn previous_read(path: &Path) -> Vec<u8> {
    let metadata = std::fs::metadata(path).unwrap();
    assert!(!metadata.is_dir() && metadata.len() <= BOUND);
    std::fs::read(path).unwrap()
}

fn gated_read(policy: &Policy, path: &Path) -> Vec<u8> {
    open_gated(&OsFs, path, BOUND, true, &|opened| {
        policy.allows_opened(opened)
    })
    .unwrap()
    .read_all()
    .unwrap()
}

#[divan::bench]
fn read_previous(bencher: Bencher) {
    let corpus = &*CORPUS;
    bencher.counter(ItemsCount::new(FILES)).bench(|| {
        corpus
            .files
            .iter()
            .map(|f| previous_read(f).len())
            .sum::<usize>()
    });
}

#[divan::bench]
fn read_gated(bencher: Bencher) {
    let corpus = &*CORPUS;
    bencher.counter(ItemsCount::new(FILES)).bench(|| {
        corpus
            .files
            .iter()
            .map(|f| gated_read(&corpus.policy, f).len())
            .sum::<usize>()
    });
}

/// Access check by name plus the read, as a folded context does per file.
#[divan::bench(args = ["previous", "gated"])]
fn check_and_read(bencher: Bencher, variant: &str) {
    let corpus = &*CORPUS;
    let resolver = Resolver::default();
    bencher.counter(ItemsCount::new(FILES)).bench(|| {
        let mut total = 0;
        for (relative, file) in corpus.relative.iter().zip(&corpus.files) {
            assert!(
                corpus
                    .policy
                    .check_access(&resolver, &OsFs, None, relative)
                    .allowed()
            );
            total += if variant == "gated" {
                gated_read(&corpus.policy, file).len()
            } else {
                previous_read(file).len()
            };
        }
        total
    });
}
