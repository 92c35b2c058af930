//! Adversarial tests: no spelling of a path, symlink arrangement or shell command gets an ignored
//! file past the access rule, and none of them crashes the server.

use std::path::Path;

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

fn workspace() -> Fixture {
    let fixture = Fixture::new(&[
        (".rooignore", "secrets/**\nvendor/\n*.pem\n.env\n"),
        ("secrets/key.json", "{\"token\": 1}"),
        ("src/app.ts", "export {}"),
        ("lib/real.js", "x"),
        ("deploy.pem", "x"),
        (".env", "A=1"),
    ]);
    fixture.symlink("../secrets/key.json", "src/link.json");
    fixture.symlink("../secrets", "src/secret-dir");
    fixture.symlink("lib", "vendor");
    fixture.symlink("../.env", "src/notes.txt");
    fixture.symlink(fixture.path("deploy.pem"), "src/absolute-link");
    fixture
}

fn decisions(server: &mut Server, paths: &[String]) -> Vec<(String, bool)> {
    let result = server.call("roo/ignore/validateAccess", json!({"paths": paths}));
    result["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap().to_owned(),
                r["allowed"].as_bool().unwrap(),
            )
        })
        .collect()
}

fn assert_all_blocked(server: &mut Server, paths: &[String]) {
    for (path, allowed) in decisions(server, paths) {
        assert!(!allowed, "{path:?} got through");
    }
}

fn abs(root: &Path, relative: &str) -> String {
    root.join(relative).to_string_lossy().into_owned()
}

#[test]
fn path_spellings_cannot_bypass_the_rules() {
    let fixture = workspace();
    let root = fixture.root();
    let name = root.file_name().unwrap().to_string_lossy().into_owned();
    let mut server = Server::start_in_process(&[root], Value::Null);
    let paths: Vec<String> = vec![
        "secrets/key.json".into(),
        "./secrets/key.json".into(),
        ".//secrets//key.json".into(),
        "src/../secrets/key.json".into(),
        "src/./../secrets/./key.json".into(),
        format!("src/../../{name}/secrets/key.json"),
        format!("../{name}/secrets/key.json"),
        "secrets\\key.json".into(),
        "src\\..\\secrets\\key.json".into(),
        "SECRETS/KEY.JSON".into(),
        "Secrets/key.json".into(),
        "secrets/key.json/".into(),
        "DEPLOY.PEM".into(),
        ".ENV".into(),
        abs(root, "secrets/key.json"),
        abs(root, "src/../secrets/key.json"),
        format!("{}//secrets/key.json", root.display()),
    ];
    assert_all_blocked(&mut server, &paths);
}

#[test]
fn symlinks_cannot_bypass_the_rules() {
    let fixture = workspace();
    let root = fixture.root();
    let mut server = Server::start_in_process(&[root], Value::Null);
    let paths: Vec<String> = vec![
        // a symlinked file
        "src/link.json".into(),
        "src/notes.txt".into(),
        "src/absolute-link".into(),
        // a symlinked parent folder
        "src/secret-dir/key.json".into(),
        "src/secret-dir/not-yet-created.json".into(),
        // `..` after a symlink follows the link, as the OS does
        "src/secret-dir/../secrets/key.json".into(),
        // an ignored name that links to a readable target (the original's defect)
        "vendor/real.js".into(),
        abs(root, "src/link.json"),
    ];
    assert_all_blocked(&mut server, &paths);
    let result = server.call(
        "roo/ignore/validateAccess",
        json!({"paths": ["src/link.json"]}),
    );
    assert_eq!(result["results"][0]["blockedBy"]["via"], "canonical");
    assert_eq!(
        result["results"][0]["blockedBy"]["matchedPath"],
        "secrets/key.json"
    );
    // The target itself stays readable through its own name.
    assert!(decisions(&mut server, &["lib/real.js".into()])[0].1);
}

#[test]
fn a_symlinked_workspace_root_does_not_disable_the_rules() {
    let fixture = workspace();
    let outer = tempfile::tempdir().unwrap();
    let link_root = outer.path().join("project-link");
    std::os::unix::fs::symlink(fixture.root(), &link_root).unwrap();
    let mut server = Server::start_in_process(&[&link_root], Value::Null);
    let paths: Vec<String> = vec![
        "secrets/key.json".into(),
        "src/link.json".into(),
        abs(&link_root, "secrets/key.json"),
        abs(fixture.root(), "secrets/key.json"),
        abs(&link_root, "src/secret-dir/key.json"),
    ];
    assert_all_blocked(&mut server, &paths);
    assert!(decisions(&mut server, &["src/app.ts".into()])[0].1);
}

#[test]
fn outside_paths_that_resolve_inside_are_judged_by_their_target() {
    let fixture = workspace();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(
        fixture.path("secrets/key.json"),
        outside.path().join("peek.json"),
    )
    .unwrap();
    std::os::unix::fs::symlink(fixture.path("secrets"), outside.path().join("dir")).unwrap();
    std::fs::write(outside.path().join("plain.txt"), "x").unwrap();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let blocked = vec![
        abs(outside.path(), "peek.json"),
        abs(outside.path(), "dir/key.json"),
    ];
    assert_all_blocked(&mut server, &blocked);
    // Outside paths with outside targets are governed by no .rooignore (the original's rule).
    assert!(decisions(&mut server, &[abs(outside.path(), "plain.txt")])[0].1);
}

#[test]
fn hostile_path_strings_do_not_crash_the_server() {
    let fixture = workspace();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let long = "a/".repeat(20_000);
    let paths: Vec<String> = vec![
        "".into(),
        ".".into(),
        "..".into(),
        "/".into(),
        long,
        "\\\\?\\C:\\secrets".into(),
        "~/.ssh/id_rsa".into(),
        "\u{202e}terces/".into(),
    ];
    let result = server.call("roo/ignore/validateAccess", json!({"paths": paths}));
    assert_eq!(result["results"].as_array().unwrap().len(), paths.len());
    // A NUL names no file: refused as invalid params (issue 11), and serving goes on.
    for nul in ["\u{0}", "secrets/\u{0}key"] {
        let error = server
            .request("roo/ignore/validateAccess", json!({"paths": [nul]}))
            .unwrap_err();
        assert_eq!(error["code"], -32602, "{error}");
    }
    server.call("roo/workspace/status", json!({}));
}

#[test]
fn shell_commands_cannot_bypass_the_rules() {
    let fixture = workspace();
    let root = fixture.root();
    let mut server = Server::start_in_process(&[root], Value::Null);
    let key = abs(root, "secrets/key.json");
    let blocked = [
        "cat secrets/key.json".to_owned(),
        "echo ok && cat secrets/key.json".into(),
        "true; cat secrets/key.json".into(),
        "false || cat secrets/key.json".into(),
        "ls | xargs cat secrets/key.json".into(),
        "cat 'secrets/key.json'".into(),
        "cat \"secrets/key.json\"".into(),
        "cat se\"crets/key\".json".into(),
        "cat<secrets/key.json".into(),
        "wc -c < secrets/key.json".into(),
        "python3 -c 'print(1)' < secrets/key.json".into(),
        "echo hacked > .env".into(),
        "(cat secrets/key.json)".into(),
        "echo $(cat secrets/key.json)".into(),
        "echo `cat secrets/key.json`".into(),
        "diff <(cat secrets/key.json) src/app.ts".into(),
        "sudo cat secrets/key.json".into(),
        "sudo -u root cat secrets/key.json".into(),
        "env A=1 cat secrets/key.json".into(),
        "A=1 cat secrets/key.json".into(),
        "xargs -a secrets/key.json echo".into(),
        format!("cat {key}"),
        "/bin/cat secrets/key.json".into(),
        "busybox cat secrets/key.json".into(),
        "bash -c 'cat secrets/key.json'".into(),
        "sh -c \"tail secrets/key.json\"".into(),
        "nl secrets/key.json".into(),
        "base64 deploy.pem".into(),
        "cp secrets/key.json /tmp/stolen".into(),
        "git show HEAD:secrets/key.json".into(),
        "grep --file=secrets/key.json src/app.ts".into(),
        "cat src/link.json".into(),
        "cat src/secret-dir/key.json".into(),
        "cat SECRETS/key.json".into(),
        "cat src/../secrets/key.json".into(),
        "head -n 1 vendor/real.js".into(),
        "cat \"secrets/key.json".into(),
        "Get-Content secrets/key.json".into(),
    ];
    for command in &blocked {
        let result = server.call("roo/ignore/validateCommand", json!({"command": command}));
        assert!(
            result["blockedPath"].is_string(),
            "{command:?} got through: {result}"
        );
    }
    let allowed = [
        "cat src/app.ts",
        "cat src/*.ts",
        "ls lib/*",
        "grep secrets src/app.ts",
        "npm test",
        "echo secrets",
        "git status",
        "",
    ];
    for command in allowed {
        let result = server.call("roo/ignore/validateCommand", json!({"command": command}));
        assert_eq!(
            result["blockedPath"],
            Value::Null,
            "{command:?} was blocked: {result}"
        );
    }
    let result = server.call(
        "roo/ignore/validateCommand",
        json!({"command": "cat \"secrets/key.json\" | head"}),
    );
    assert_eq!(
        result["blockedPath"], "\"secrets/key.json\"",
        "the argument comes back as typed"
    );
    assert_eq!(result["blockedBy"]["pattern"], "secrets/**");
}

#[test]
fn hostile_commands_do_not_crash_the_server() {
    let fixture = workspace();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let nested = format!(
        "{}cat secrets/key.json{}",
        "$(".repeat(500),
        ")".repeat(500)
    );
    let commands = [
        nested,
        "'".repeat(10_001),
        "\\".into(),
        "cat $(".into(),
        "`".into(),
        "<<<".into(),
        "2>&".into(),
        "x".repeat(200_000),
        "|||;;;&&&".into(),
    ];
    for command in commands {
        server.call("roo/ignore/validateCommand", json!({"command": command}));
    }
    server.call("roo/workspace/status", json!({}));
}

#[test]
fn globs_are_judged_by_what_they_expand_to() {
    let fixture = workspace();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    for command in [
        "cat secr*/key.json",
        "cat s?crets/key.json",
        "cat se[c]rets/key.json",
        "cat s{ecrets,x}/key.json",
        "cat */key.json",
        "head **/*.json",
        "cat *.pem",
        "cat .e*",
        "tail src/secret-dir/*",
    ] {
        let result = server.call("roo/ignore/validateCommand", json!({"command": command}));
        assert!(
            result["blockedPath"].is_string(),
            "{command:?} got through: {result}"
        );
        assert!(
            result["blockedBy"].is_object(),
            "{command:?} has no reason: {result}"
        );
    }
    let result = server.call(
        "roo/ignore/validateCommand",
        json!({"command": "cat secr*/key.json"}),
    );
    assert_eq!(result["blockedPath"], "secr*/key.json");
    assert_eq!(result["blockedBy"]["pattern"], "secrets/**");
}
