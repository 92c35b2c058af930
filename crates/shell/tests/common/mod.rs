//! A real workspace on disk with a real `.rooignore`, judged by the core's access rule through the
//! file-system oracle the server uses: what the table, property and bench runs vet against.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use roo_context_core::access::{Flavor, FolderPolicy, IgnoreFile, Policy, ProtectRules};
use roo_context_core::fs::OsFs;
use roo_context_core::path::{Resolver, WorkspaceRoot};
use roo_context_shell::{FsOracle, Verdict};

pub const ROOIGNORE: &str = ".env\nsecrets/\n*.pem\nconfig/private.json\nvault\n";

pub struct Workspace {
    pub dir: tempfile::TempDir,
    pub root: PathBuf,
    policy: Policy,
    resolver: Resolver,
}

impl Workspace {
    pub fn new() -> Workspace {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().canonicalize().expect("canonical temp dir");
        let files = [
            ".env",
            "secrets/api-keys.json",
            "secrets/key.json",
            "secrets/sub/deep.txt",
            "src/app.ts",
            "src/main.rs",
            "src/util/helpers.ts",
            "README.md",
            "key.pem",
            "config/public.json",
            "config/private.json",
            "docs/guide.md",
            "data/notes.txt",
            "vault/token.txt",
            "list.txt",
            ".roo/mcp.json",
        ];
        for file in files {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(&path, format!("content of {file}\n")).expect("write");
        }
        std::fs::write(root.join(".rooignore"), ROOIGNORE).expect("write .rooignore");
        std::fs::create_dir_all(root.join("empty")).expect("mkdir");
        std::os::unix::fs::symlink(root.join("secrets"), root.join("linkdir")).expect("symlink");
        std::os::unix::fs::symlink(root.join(".env"), root.join("envlink")).expect("symlink");
        let policy = Policy {
            folders: vec![FolderPolicy {
                root: WorkspaceRoot::new(&root, &OsFs),
                ignore: Some(Arc::new(IgnoreFile::new(".rooignore", ROOIGNORE))),
            }],
            protect: Arc::new(ProtectRules::new(&[], Flavor::Roo)),
            deny_outside_workspace: false,
        };
        Workspace {
            dir,
            root,
            policy,
            resolver: Resolver::default(),
        }
    }

    pub fn blocked(&self, path: &str) -> bool {
        self.policy
            .check_access(&self.resolver, &OsFs, Some(&self.root), path)
            .blocked
            .is_some()
    }

    pub fn vet(&self, command: &str) -> Verdict {
        self.vet_in(&self.root, command)
    }

    pub fn vet_in(&self, base: &Path, command: &str) -> Verdict {
        let blocked = |p: &str| {
            self.policy
                .check_access(&self.resolver, &OsFs, Some(base), p)
                .blocked
                .is_some()
        };
        let protected = |p: &str| {
            self.policy
                .check_protection(&self.resolver, &OsFs, Some(base), p)
                .pattern
                .is_some()
        };
        let oracle = FsOracle::new(base, &blocked)
            .with_home(Some("/home/someone".into()))
            .with_protection(&protected);
        roo_context_shell::vet(command, &oracle)
    }
}
