//! Red-team classes over stdio that the first gate tests did not cover: a hard link to a
//! blocked file, a name in another Unicode normalisation form than its rule, and a workspace
//! root that is a link retargeted while the server runs. Every reader is asked; no answer may
//! carry a byte of the blocked file.

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{Fixture, Server, file_uri};

const SECRET: &str = "redTeamSecretName";

fn body(name: &str) -> String {
    format!("export function {name}() {{\n  const a = 1;\n  const b = 2;\n  return a + b;\n}}\n")
}

fn start(root: &Path, home: &Path) -> Server {
    let home = home.to_string_lossy().into_owned();
    let mut server = Server::spawn_with_env(&[("HOME", home.as_str())]);
    server.initialize(&[root], Value::Null).expect("initialize");
    server
}

/// Every reader of `path` (relative to `root`, or absolute): validateAccess, folded context,
/// outline, symbols, folding ranges and a file mention. Returns the access verdict and the
/// answers.
fn read_everything(server: &mut Server, root: &Path, path: &str) -> (bool, Vec<Value>) {
    let access = server.call("roo/ignore/validateAccess", json!({"paths": [path]}));
    let allowed = access["results"][0]["allowed"].as_bool().unwrap();
    let absolute = if path.starts_with('/') {
        Path::new(path).to_path_buf()
    } else {
        root.join(path)
    };
    let uri = file_uri(&absolute);
    let mut answers = vec![
        server.call("roo/fold/context", json!({"paths": [path]})),
        server.call(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        ),
        server.call(
            "textDocument/foldingRange",
            json!({"textDocument": {"uri": uri}}),
        ),
    ];
    if let Ok(outline) = server.request("roo/fold/outline", json!({"path": path})) {
        answers.push(outline);
    }
    if !path.starts_with('/') {
        answers.push(server.call(
            "roo/mentions/parse",
            json!({"text": format!("@/{path} please")}),
        ));
    }
    (allowed, answers)
}

fn assert_no_secret(answers: &[Value], what: &str) {
    for answer in answers {
        assert!(!answer.to_string().contains(SECRET), "{what}: {answer}");
    }
}

#[test]
fn a_hard_link_to_a_blocked_file_reaches_no_reader() {
    let fixture = Fixture::new(&[
        (".rooignore", "secrets/\n"),
        ("secrets/token.ts", &body(SECRET)),
        ("src/app.ts", &body("app")),
    ]);
    std::fs::hard_link(
        fixture.path("secrets/token.ts"),
        fixture.path("src/copy.ts"),
    )
    .unwrap();
    std::fs::create_dir_all(fixture.path(".roo/commands")).unwrap();
    std::fs::hard_link(
        fixture.path("secrets/token.ts"),
        fixture.path(".roo/commands/setup.md"),
    )
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut server = start(fixture.root(), home.path());
    let (_, answers) = read_everything(&mut server, fixture.root(), "src/copy.ts");
    assert_no_secret(&answers, "src/copy.ts");
    let folder = server.call("roo/mentions/parse", json!({"text": "@/src/ and /setup"}));
    assert_no_secret(std::slice::from_ref(&folder), "folder mention and command");
    // The ordinary file next to it is still read.
    assert!(folder.to_string().contains("function app"), "{folder}");
}

#[test]
fn a_name_in_another_normalisation_form_than_its_rule_is_blocked() {
    let composed = "caf\u{e9}.ts";
    let decomposed = "cafe\u{301}.ts";
    for (rule, name) in [(composed, decomposed), (decomposed, composed)] {
        let fixture = Fixture::new(&[
            (".rooignore", &format!("{rule}\n")),
            (name, &body(SECRET)),
            ("src/app.ts", &body("app")),
        ]);
        let home = tempfile::tempdir().unwrap();
        let mut server = start(fixture.root(), home.path());
        let (allowed, answers) = read_everything(&mut server, fixture.root(), name);
        assert!(!allowed, "rule {rule:?} must block {name:?}");
        assert_no_secret(&answers, name);
        let folder = server.call("roo/mentions/parse", json!({"text": "@/ please"}));
        assert_no_secret(&[folder], "root folder mention");
    }
}

#[test]
fn a_workspace_root_link_retargeted_while_serving_judges_its_new_target() {
    let base = tempfile::tempdir().unwrap();
    let first = base.path().join("first");
    let second = base.path().join("second");
    for (folder, rules) in [(&first, "first-secret.ts\n"), (&second, "other.ts\n")] {
        std::fs::create_dir_all(folder.join("src")).unwrap();
        std::fs::write(folder.join(".rooignore"), rules).unwrap();
    }
    std::fs::write(second.join("other.ts"), body(SECRET)).unwrap();
    let root = base.path().join("current");
    std::os::unix::fs::symlink(&first, &root).unwrap();
    let home = tempfile::tempdir().unwrap();
    let mut server = start(&root, home.path());
    // Swapped as deployments do: a new link renamed over the old one.
    let staged = base.path().join("current.next");
    std::os::unix::fs::symlink(&second, &staged).unwrap();
    std::fs::rename(&staged, &root).unwrap();
    let reloaded = server.notification("roo/ignore/didReload");
    assert_eq!(reloaded["ruleCount"], 3, "{reloaded}");
    let real = second.canonicalize().unwrap().join("other.ts");
    let real = real.to_string_lossy().into_owned();
    for path in ["other.ts", real.as_str()] {
        let (allowed, answers) = read_everything(&mut server, &root, path);
        assert!(!allowed, "{path} allowed after the root moved");
        assert_no_secret(&answers, path);
    }
    let status = server.call("roo/workspace/status", json!({}));
    assert_eq!(
        status["folders"][0]["canonicalPath"],
        second.canonicalize().unwrap().to_string_lossy().as_ref(),
        "{status}"
    );
}

#[test]
fn a_path_past_path_max_with_a_link_in_its_middle_is_blocked() {
    let fixture = Fixture::new(&[
        (".rooignore", "secrets/\n"),
        ("secrets/x.ts", &body(SECRET)),
    ]);
    // 25 folders of 200 bytes, then `mid -> secrets`: over 4096 bytes, so nobody can `lstat`
    // (or open) it by name, and the link in its middle cannot be seen. Built with relative
    // steps, as a path this long can only be.
    let folder = "d".repeat(200);
    let script = format!(
        "for i in $(seq 25); do mkdir {folder} && cd -P {folder} || exit 1; done; ln -s {} mid",
        fixture.path("secrets").display()
    );
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(fixture.root())
        .status()
        .unwrap();
    assert!(status.success());
    let deep = format!("{}/mid/x.ts", vec![folder.as_str(); 25].join("/"));
    assert!(deep.len() > 4096);
    let home = tempfile::tempdir().unwrap();
    let mut server = start(fixture.root(), home.path());
    let (allowed, answers) = read_everything(&mut server, fixture.root(), &deep);
    assert!(!allowed, "a path nobody can resolve was allowed");
    assert_no_secret(&answers, "deep path");
}

fn git(root: &Path, args: &[&str]) {
    let output = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@t"])
        .args(["-c", "commit.gpgsign=false"])
        .args(args)
        .current_dir(root)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {output:?}");
}

/// `.gitattributes` and `.git/config` are files an agent can write: a `textconv` or clean
/// filter driver is a command, and its output (the blocked file) would show as the diff of an
/// allowed path in `@git-changes` and `@<commit>`.
#[test]
fn git_attribute_drivers_cannot_carry_a_blocked_file_into_a_git_mention() {
    let fixture = Fixture::new(&[
        (".rooignore", "secrets/\n"),
        ("secrets/k.txt", &format!("{SECRET}\n")),
        ("src/a.txt", "hello\n"),
    ]);
    let root = fixture.root();
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "one"]);
    fixture.write(".gitattributes", "src/a.txt diff=leak filter=leak\n");
    git(root, &["config", "diff.leak.textconv", "cat secrets/k.txt"]);
    git(
        root,
        &["config", "filter.leak.clean", "cat secrets/k.txt -"],
    );
    fixture.write("src/a.txt", "hello changed\n");
    let home = tempfile::tempdir().unwrap();
    let mut server = start(root, home.path());
    let changes = server.call("roo/mentions/parse", json!({"text": "@git-changes now"}));
    assert_no_secret(std::slice::from_ref(&changes), "@git-changes");
    assert!(changes.to_string().contains("hello changed"), "{changes}");
    // Committed without the drivers (so the commit itself holds no secret), shown with them.
    git(root, &["-c", "filter.leak.clean=cat", "add", "src/a.txt"]);
    git(root, &["commit", "-qm", "two"]);
    let head = std::process::Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(root)
        .output()
        .unwrap();
    let head = String::from_utf8(head.stdout).unwrap();
    let commit = server.call(
        "roo/mentions/parse",
        json!({"text": format!("@{} now", head.trim())}),
    );
    assert_no_secret(std::slice::from_ref(&commit), "@<commit>");
    assert!(commit.to_string().contains("hello changed"), "{commit}");
}
