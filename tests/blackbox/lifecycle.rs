//! Start, initialize, shutdown and exit, with the LSP exit-code rule.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server, binary};

#[test]
fn initialize_advertises_custom_methods_and_server_info() {
    let fixture = Fixture::new(&[("a.txt", "x")]);
    let mut server = Server::spawn();
    let result = server.initialize(&[fixture.root()], Value::Null).unwrap();
    assert_eq!(result["serverInfo"]["name"], "roo-context");
    let methods = result["capabilities"]["experimental"]["rooContext"]["methods"]
        .as_array()
        .expect("methods listed");
    assert!(methods.contains(&json!("roo/ignore/validateAccess")));
    assert!(methods.contains(&json!("roo/protect/check")));
    assert!(server.shutdown_and_exit().success());
}

/// The method table drives both advertising and registration: every advertised method is
/// answered by a handler (never -32601), while an unknown one is -32601.
#[test]
fn every_advertised_method_is_registered() {
    let fixture = Fixture::new(&[("a.txt", "x")]);
    let mut server = Server::spawn();
    let result = server.initialize(&[fixture.root()], Value::Null).unwrap();
    let methods = result["capabilities"]["experimental"]["rooContext"]["methods"]
        .as_array()
        .expect("methods listed")
        .clone();
    assert!(methods.len() >= 27, "{methods:?}");
    for method in methods {
        let method = method.as_str().unwrap();
        let answer = server.request(method, json!({}));
        if let Err(error) = answer {
            assert_ne!(error["code"], -32601, "{method} advertised, not registered");
            assert_eq!(error["code"], -32602, "{method}: {error}");
        }
    }
    let unknown = server.request("roo/nope/nothing", json!({})).unwrap_err();
    assert_eq!(unknown["code"], -32601);
    assert!(server.shutdown_and_exit().success());
}

#[test]
fn exit_without_shutdown_exits_with_code_1() {
    let fixture = Fixture::new(&[]);
    let mut server = Server::start(&[fixture.root()], Value::Null);
    server.notify("exit", Value::Null);
    assert_eq!(server.wait().code(), Some(1));
}

#[test]
fn closing_stdin_ends_the_process() {
    let fixture = Fixture::new(&[]);
    let mut server = Server::start(&[fixture.root()], Value::Null);
    server.call("shutdown", Value::Null);
    server.close_stdin();
    assert_eq!(server.wait().code(), Some(0));
}

#[test]
fn initialization_options_become_settings() {
    let fixture = Fixture::new(&[]);
    let mut server = Server::start(
        &[fixture.root()],
        json!({"denyOutsideWorkspace": true, "extraProtectedPatterns": ["*.lock"], "logLevel": "error"}),
    );
    let status = server.call("roo/workspace/status", json!({}));
    assert_eq!(status["settings"]["denyOutsideWorkspace"], true);
    assert_eq!(
        status["settings"]["extraProtectedPatterns"],
        json!(["*.lock"])
    );
    assert_eq!(
        status["folders"][0]["path"],
        fixture.root().to_string_lossy().as_ref()
    );
}

#[test]
fn invalid_initialization_options_name_the_field() {
    let mut server = Server::spawn();
    let error = server
        .initialize(&[], json!({"denyOutsideWorkspace": "yes"}))
        .unwrap_err();
    assert_eq!(error["code"], -32602);
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("denyOutsideWorkspace"), "{message}");
}

#[test]
fn version_and_help_work() {
    let version = std::process::Command::new(binary())
        .arg("--version")
        .output()
        .unwrap();
    assert!(version.status.success());
    assert!(String::from_utf8_lossy(&version.stdout).starts_with("roo-context "));
    let help = std::process::Command::new(binary())
        .arg("--help")
        .output()
        .unwrap();
    assert!(help.status.success());
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("serve") && text.contains("check"), "{text}");
}
