//! Ignore files are watched: rules reload on create, change and delete without a restart, and a
//! reload that cannot read the file keeps the last good rules and reports why. Tests wait for the
//! server's `roo/ignore/didReload` notifications, never for a fixed time.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

const RELOADED: &str = "roo/ignore/didReload";

fn allowed(server: &mut Server, path: &str) -> bool {
    let result = server.call("roo/ignore/validateAccess", json!({"paths": [path]}));
    result["results"][0]["allowed"].as_bool().unwrap()
}

#[test]
fn rules_follow_the_file_through_create_change_and_delete() {
    let fixture = Fixture::new(&[("a.txt", "x"), ("b.txt", "x")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    assert!(allowed(&mut server, "a.txt"));

    fixture.replace_or_create(".rooignore", "a.txt\n");
    server.wait_until(RELOADED, |s| (!allowed(s, "a.txt")).then_some(()));
    assert!(allowed(&mut server, "b.txt"));

    fixture.replace(".rooignore", "b.txt\n");
    server.wait_until(RELOADED, |s| {
        (allowed(s, "a.txt") && !allowed(s, "b.txt")).then_some(())
    });

    std::fs::remove_file(fixture.path(".rooignore")).unwrap();
    server.wait_until(RELOADED, |s| allowed(s, "b.txt").then_some(()));
    let status = server.call("roo/workspace/status", json!({}));
    assert_eq!(status["folders"][0]["activeIgnoreFile"], Value::Null);
}

#[test]
fn an_unreadable_ignore_file_keeps_the_last_good_rules_and_reports_the_error() {
    let fixture = Fixture::new(&[(".rooignore", "secret.txt\n"), ("secret.txt", "x")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    assert!(!allowed(&mut server, "secret.txt"));
    // Replace the file with a folder: it exists but cannot be read as text.
    std::fs::remove_file(fixture.path(".rooignore")).unwrap();
    std::fs::create_dir(fixture.path(".rooignore")).unwrap();
    let error = server.wait_until(RELOADED, |s| {
        let status = s.call("roo/workspace/status", json!({}));
        status["folders"][0]["lastError"]
            .as_str()
            .map(str::to_owned)
    });
    assert!(error.contains(".rooignore"), "{error}");
    assert!(
        !allowed(&mut server, "secret.txt"),
        "the last good rules stay in force"
    );
}

#[test]
fn under_zoo_creating_a_zooignore_adds_its_rules_to_the_rooignores() {
    let fixture = Fixture::new(&[(".rooignore", "a.txt\n")]);
    let mut server = Server::start_in_process(&[fixture.root()], json!({"flavor": "zoo"}));
    fixture.replace_or_create(".zooignore", "b.txt\n");
    let reload = server.wait_until(RELOADED, |s| {
        let status = s.call("roo/workspace/status", json!({}));
        (status["folders"][0]["activeIgnoreFile"] == ".zooignore").then_some(status)
    });
    // `b.txt` and `a.txt`, each file with the two implicit ignore file names.
    assert_eq!(reload["folders"][0]["ruleCount"], 6);
    assert!(!allowed(&mut server, "a.txt"));
    assert!(!allowed(&mut server, "b.txt"));
}

#[test]
fn under_roo_creating_a_zooignore_changes_nothing() {
    let fixture = Fixture::new(&[(".rooignore", "a.txt\n")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    fixture.replace_or_create(".zooignore", "b.txt\n");
    // The watcher rereads the folder (as for any ignore file event) and reports it.
    let reload = server.notification(RELOADED);
    assert_eq!(reload["activeIgnoreFile"], ".rooignore", "{reload}");
    assert!(!allowed(&mut server, "a.txt"));
    assert!(allowed(&mut server, "b.txt"));
}

#[test]
fn a_symlink_swap_is_seen_at_once() {
    let fixture = Fixture::new(&[
        (".rooignore", "secrets/**\n"),
        ("secrets/k", "x"),
        ("public/k", "x"),
    ]);
    fixture.symlink("public", "current");
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    assert!(allowed(&mut server, "current/k"));
    std::fs::remove_file(fixture.path("current")).unwrap();
    fixture.symlink("secrets", "current");
    // The watcher clears cached folder resolutions; until it has, the old answer may stand.
    let start = std::time::Instant::now();
    while allowed(&mut server, "current/k") {
        assert!(
            start.elapsed() < crate::harness::DEADLINE,
            "symlink swap never seen"
        );
        std::thread::yield_now();
    }
}
