//! `roo-context check`: its output and its exit-code contract (0 readable, 1 blocked, 2 usage).

use std::process::Command;

use crate::harness::{Fixture, binary};

fn check(fixture: &Fixture, args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(binary())
        .arg("check")
        .arg("--workspace")
        .arg(fixture.root())
        .args(args)
        .output()
        .unwrap();
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

fn fixture() -> Fixture {
    Fixture::new(&[
        (".rooignore", "secrets/**\n"),
        ("secrets/k", "x"),
        ("src/a.ts", "x"),
    ])
}

#[test]
fn readable_paths_exit_0() {
    let (code, out) = check(&fixture(), &["src/a.ts"]);
    assert_eq!(code, Some(0));
    assert_eq!(out, "allowed    src/a.ts\n");
}

#[test]
fn write_protection_alone_does_not_change_the_exit_code() {
    let (code, out) = check(&fixture(), &["AGENTS.md", ".roo/mcp.json"]);
    assert_eq!(code, Some(0));
    assert!(out.contains("protected  AGENTS.md"), "{out}");
    assert!(out.contains("write-protected by .roo/**"), "{out}");
}

#[test]
fn a_blocked_path_exits_1_and_names_the_rule() {
    let (code, out) = check(&fixture(), &["src/a.ts", "secrets/k"]);
    assert_eq!(code, Some(1));
    assert!(
        out.contains("blocked    secrets/k  blocked by .rooignore:1: secrets/**"),
        "{out}"
    );
}

#[test]
fn commands_are_vetted() {
    let (code, out) = check(&fixture(), &["--command", "ls && cat 'secrets/k'"]);
    assert_eq!(code, Some(1));
    assert!(out.contains("argument 'secrets/k'"), "{out}");
    let (code, _) = check(&fixture(), &["--command", "cat src/a.ts"]);
    assert_eq!(code, Some(0));
}

#[test]
fn json_output_is_machine_readable() {
    let (code, out) = check(&fixture(), &["--json", "secrets/k"]);
    assert_eq!(code, Some(1));
    let value: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(value[0]["blockedBy"]["pattern"], "secrets/**");
}

#[test]
fn usage_errors_exit_2() {
    let (code, _) = check(&fixture(), &[]);
    assert_eq!(code, Some(2));
    let output = Command::new(binary())
        .args(["check", "--workspace", "/definitely/not/here", "a"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let output = Command::new(binary())
        .args(["check", "--bogus"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
