//! Texts the sidecar reads itself (files, command files, notebooks, folded sources, git output)
//! may hold U+FDD0, the wire encoding's sentinel, followed by anything: each must reach the host
//! as the characters on disk, never as an escape or a character the workspace did not hold.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

/// U+FDD0 followed by a plane-15 tag, by itself doubled, before the two tags the wire would read
/// as the escaped pair of 😀, and alone.
const TRICKY: &str =
    "a\u{FDD0}\u{F0000}b \u{FDD0}\u{FDD0}c \u{FDD0}\u{F003D}\u{FDD0}\u{F0600} \u{FDD0}z";

fn git(root: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(root)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

fn text_of(result: &Value) -> String {
    result.to_string()
}

#[test]
fn the_workspace_own_sentinels_reach_the_host_unchanged() {
    let notebook = json!({"cells": [{"cell_type": "code", "source": [format!("nb {TRICKY}")]}]});
    let fixture = Fixture::new(&[
        ("notes.txt", &format!("{TRICKY}\n")),
        (
            "src/a.ts",
            &format!(
                "export function f(a = \"{TRICKY}\") {{\n  const b = a;\n  const c = b;\n  const d = c;\n  return d;\n}}\n"
            ),
        ),
        (".roo/commands/c.md", &format!("Do {TRICKY} now\n")),
        ("n.ipynb", &notebook.to_string()),
        ("g.txt", "old\n"),
        ("d/n\u{FDD0}\u{F0000}\u{FDD0}\u{FDD0}.txt", "in a folder\n"),
    ]);
    let root = fixture.root();
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-q", "-m", "first"]);
    let hash = git(root, &["rev-parse", "HEAD"]).trim().to_owned();
    fixture.write("g.txt", &format!("{TRICKY}\n"));
    let home = tempfile::tempdir().unwrap();
    let mut server = Server::spawn_with_env(&[("HOME", home.path().to_str().unwrap())]);
    server.initialize(&[root], Value::Null).expect("initialize");

    let mention = server.call("roo/mentions/parse", json!({"text": "@/notes.txt"}));
    assert_eq!(
        mention["contentBlocks"][0]["content"],
        format!("[read_file for 'notes.txt']\nFile: notes.txt\n1 | {TRICKY}\n2 | ")
    );
    let name = "n\u{FDD0}\u{F0000}\u{FDD0}\u{FDD0}.txt";
    let folder = server.call("roo/mentions/parse", json!({"text": "@/d/"}));
    assert_eq!(
        folder["contentBlocks"][0]["content"],
        format!(
            "[read_file for folder 'd/']\nFolder listing:\n└── {name}\n\n\n--- File Contents ---\n\n\
             [read_file for 'd/{name}']\nFile: d/{name}\n1 | in a folder\n2 | "
        )
    );
    // The host's own U+FDD0 and tag, raw, come back as it sent them inside a path the
    // sidecar resolved.
    let missing = server.call(
        "roo/mentions/parse",
        json!({"text": format!("@/gone{name}")}),
    );
    let missing = text_of(&missing);
    assert!(
        missing.contains(&format!("stat '{}/gone{name}'", root.display())),
        "{missing}"
    );
    let notebook = server.call("roo/mentions/parse", json!({"text": "@/n.ipynb"}));
    let notebook = text_of(&notebook);
    assert!(notebook.contains(&format!("nb {TRICKY}")), "{notebook}");
    let command = server.call("roo/mentions/parse", json!({"text": "/c go"}));
    assert!(
        command["slashCommandHelp"]
            .as_str()
            .is_some_and(|help| help.contains(&format!("Do {TRICKY} now"))),
        "{command}"
    );
    let folded = server.call("roo/fold/context", json!({"paths": ["src/a.ts"]}));
    let folded = folded["content"].as_str().unwrap();
    assert!(folded.contains(&format!("f(a = \"{TRICKY}\")")), "{folded}");
    let outline = server.call("roo/fold/outline", json!({"path": "src/a.ts"}));
    assert!(
        outline["definitions"][0]["firstLine"]
            .as_str()
            .is_some_and(|line| line.contains(TRICKY)),
        "{outline}"
    );
    let changes = server.call("roo/mentions/parse", json!({"text": "see @git-changes"}));
    let changes = text_of(&changes);
    assert!(changes.contains(&format!("+{TRICKY}")), "{changes}");
    let commit = server.call(
        "roo/mentions/parse",
        json!({"text": format!("see @{hash}")}),
    );
    let commit = text_of(&commit);
    assert!(commit.contains(&format!("+Do {TRICKY} now")), "{commit}");
}
