//! The folded context informs (issue 17) over stdio: a file the user changed since the agent
//! read it is outlined as it is now (the real watcher reports the change first), edited files
//! lead the budget (from `editedPaths`, or from the tracker in a condense), and test files are
//! summarised.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

const CHANGED: &str = "roo/files/didChange";

fn function(name: &str) -> String {
    format!("export function {name}() {{\n  const value = 1;\n  return value;\n}}\n")
}

/// A spec of `count` four-line tests in one describe.
fn spec(count: usize) -> String {
    let tests: String = (0..count)
        .map(|i| format!("  it(\"case {i}\", () => {{\n    const v = {i};\n    expect(v).toBe({i});\n  }});\n"))
        .collect();
    format!("describe(\"parser\", () => {{\n{tests}}});\n")
}

fn headers(result: &Value) -> Vec<String> {
    result["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let section = s.as_str().unwrap();
            section
                .lines()
                .nth(1)
                .unwrap()
                .trim_start_matches("## File Context: ")
                .to_owned()
        })
        .collect()
}

#[test]
fn a_file_the_user_changed_since_it_was_read_is_outlined_afresh() {
    let workspace = Fixture::new(&[("src/a.ts", &function("before"))]);
    let storage = tempfile::tempdir().unwrap();
    let task_dir = storage.path().join("tasks").join("t1");
    std::fs::create_dir_all(&task_dir).unwrap();
    let mut server = Server::start_in_process(&[workspace.root()], Value::Null);
    let tracked = server.call(
        "roo/files/track",
        json!({"taskId": "t1", "storageDir": task_dir, "path": "src/a.ts", "source": "read_tool"}),
    );
    assert_eq!(tracked, json!({"watched": true}));
    let first = server.call("roo/fold/context", json!({"paths": ["src/a.ts"]}));
    assert!(
        first["content"]
            .as_str()
            .unwrap()
            .contains("function before()"),
        "{first}"
    );

    // The user rewrites the file behind the agent's back; the watcher reports it.
    workspace.replace(
        "src/a.ts",
        &format!("{}\n{}", function("after"), function("added")),
    );
    let change = server.notification(CHANGED);
    assert_eq!(change["path"], "src/a.ts");
    let second = server.call("roo/fold/context", json!({"paths": ["src/a.ts"]}));
    let content = second["content"].as_str().unwrap();
    assert!(
        content.contains("1--4 | export function after()"),
        "{content}"
    );
    assert!(
        content.contains("6--9 | export function added()"),
        "{content}"
    );
    assert!(!content.contains("before"), "{content}");

    // And once more, a change of the same length (a cache keyed by size alone would miss it).
    workspace.replace(
        "src/a.ts",
        &format!("{}\n{}", function("later"), function("added")),
    );
    let change = server.notification(CHANGED);
    assert_eq!(change["path"], "src/a.ts");
    let third = server.call("roo/fold/context", json!({"paths": ["src/a.ts"]}));
    assert!(
        third["content"]
            .as_str()
            .unwrap()
            .contains("function later()"),
        "{third}"
    );
}

#[test]
fn edited_paths_lead_the_budget_and_unedited_specs_are_summarised() {
    let workspace = Fixture::new(&[
        ("src/parser.spec.ts", &spec(12)),
        ("src/read.ts", &function("read")),
        ("src/edited.ts", &function("edited")),
        ("src/edited.spec.ts", &spec(12)),
    ]);
    let mut server = Server::start_in_process(&[workspace.root()], Value::Null);
    let result = server.call(
        "roo/fold/context",
        json!({
            "paths": ["src/parser.spec.ts", "src/read.ts", "src/edited.spec.ts"],
            "editedPaths": ["src/edited.ts", "src/edited.spec.ts"],
        }),
    );
    assert_eq!(
        headers(&result),
        [
            "src/edited.ts",
            "src/edited.spec.ts",
            "src/read.ts",
            "src/parser.spec.ts"
        ]
    );
    let sections = result["sections"].as_array().unwrap();
    // The edited spec lists its tests; the one only read is one line with its count.
    assert_eq!(sections[1].as_str().unwrap().matches("  it(").count(), 12);
    let summary = sections[3].as_str().unwrap();
    assert!(
        summary.contains("describe(\"parser\", () => { (12 tests)"),
        "{summary}"
    );
    assert!(!summary.contains("  it("), "{summary}");
    assert_eq!(result["filesProcessed"], 4);
}

#[test]
fn a_condense_puts_the_files_the_tracker_saw_the_agent_edit_first() {
    let workspace = Fixture::new(&[
        ("src/read.ts", &function("readOnly")),
        ("src/written.ts", &function("writtenByAgent")),
    ]);
    let storage = tempfile::tempdir().unwrap();
    let task_dir = storage.path().join("tasks").join("t1");
    std::fs::create_dir_all(&task_dir).unwrap();
    let mut server = Server::start_in_process(&[workspace.root()], Value::Null);
    for (path, source) in [
        ("src/read.ts", "read_tool"),
        ("src/written.ts", "roo_edited"),
    ] {
        server.call(
            "roo/files/track",
            json!({"taskId": "t1", "storageDir": task_dir, "path": path, "source": source}),
        );
    }
    server.set_host(Box::new(|_, _| {
        Ok(json!({"text": "Summary.", "cost": 0.0}))
    }));
    let mut messages = vec![json!({"role": "user", "content": "<task>x</task>", "ts": 1})];
    for turn in 1..8 {
        let role = if turn % 2 == 1 { "assistant" } else { "user" };
        messages.push(json!({"role": role, "content": format!("turn {turn} {}", "word ".repeat(80)), "ts": 1 + turn}));
    }
    let result = server.call(
        "roo/context/manage",
        json!({
            "trigger": "manual",
            "messages": messages,
            "systemPrompt": "You are Roo.",
            "contextWindow": 200000,
            "filesReadByRoo": ["src/read.ts"],
            "taskId": "t1"
        }),
    );
    assert_eq!(result["action"], "condensed", "{result}");
    let summary = result["messages"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .to_string();
    let written = summary
        .find("src/written.ts")
        .expect("the edited file is folded");
    let read = summary
        .find("src/read.ts")
        .expect("the read file is folded");
    assert!(written < read, "{summary}");
}

#[test]
fn an_ignored_edited_path_never_leaks_and_a_nul_in_one_is_refused() {
    let workspace = Fixture::new(&[
        (".rooignore", "secret/**\n"),
        ("secret/keys.ts", &function("hiddenTreasure")),
        ("src/read.ts", &function("read")),
    ]);
    let mut server = Server::start_in_process(&[workspace.root()], Value::Null);
    let result = server.call(
        "roo/fold/context",
        json!({"paths": ["src/read.ts"], "editedPaths": ["secret/keys.ts", "../outside.ts"]}),
    );
    assert!(!result.to_string().contains("hiddenTreasure"), "{result}");
    assert_eq!(headers(&result), ["src/read.ts"]);
    let kinds: Vec<(&str, &str)> = result["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["path"].as_str().unwrap(), d["kind"].as_str().unwrap()))
        .collect();
    assert!(kinds.contains(&("secret/keys.ts", "blocked")), "{kinds:?}");
    let error = server
        .request(
            "roo/fold/context",
            json!({"paths": ["src/read.ts"], "editedPaths": ["src/read.ts\u{0}.env"]}),
        )
        .unwrap_err();
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("editedPaths[0]"),
        "{error}"
    );
}

#[test]
fn an_edited_path_spelled_differently_from_the_read_one_is_one_file_placed_as_edited() {
    let workspace = Fixture::new(&[
        ("src/a.ts", &function("first")),
        ("src/b.ts", &function("second")),
    ]);
    let mut server = Server::start_in_process(&[workspace.root()], Value::Null);
    let result = server.call(
        "roo/fold/context",
        json!({"paths": ["src/a.ts", "src/b.ts"], "editedPaths": ["./src/../src/b.ts"]}),
    );
    assert_eq!(headers(&result), ["src/b.ts", "src/a.ts"]);
    assert_eq!(result["filesProcessed"], 2);
}

#[test]
fn without_prioritize_the_files_keep_their_order_and_specs_are_listed_in_full() {
    let workspace = Fixture::new(&[
        ("src/parser.spec.ts", &spec(12)),
        ("src/read.ts", &function("read")),
    ]);
    let mut server = Server::start_in_process(&[workspace.root()], Value::Null);
    let result = server.call(
        "roo/fold/context",
        json!({"paths": ["src/parser.spec.ts", "src/read.ts"], "prioritize": false}),
    );
    // The original `generateFoldedFileContext`: input order, the spec's tests each on a line.
    assert_eq!(headers(&result), ["src/parser.spec.ts", "src/read.ts"]);
    let spec_section = result["sections"][0].as_str().unwrap();
    assert_eq!(spec_section.matches("  it(").count(), 12, "{spec_section}");
    assert!(!spec_section.contains("tests)"), "{spec_section}");
}
