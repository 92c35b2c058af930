//! Black-box tests of parity with the original (issue 13): provider error shapes as each SDK
//! throws them (data files in `fixtures/provider-errors`), condense-request sizing, error details,
//! hosts without a summarizer, and the other items, each over stdio against the built binary.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::harness::Server;

fn provider_error_fixtures() -> Vec<(String, Value)> {
    let folder = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/blackbox/fixtures/provider-errors"
    ));
    let mut cases: Vec<(String, Value)> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .map(|path| {
            let case: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                case,
            )
        })
        .collect();
    cases.sort_by(|a, b| a.0.cmp(&b.0));
    cases
}

#[test]
fn parity_classify_error_matches_the_original_on_every_provider_shape() {
    let cases = provider_error_fixtures();
    assert!(cases.len() >= 30, "fixtures found: {}", cases.len());
    assert!(
        cases
            .iter()
            .any(|(_, case)| case["isContextWindowError"] == true)
    );
    assert!(
        cases
            .iter()
            .any(|(_, case)| case["isContextWindowError"] == false)
    );
    let mut server = Server::start_in_process(&[], Value::Null);
    let mut wrong = Vec::new();
    for (name, case) in &cases {
        let result = server.call(
            "roo/context/classifyError",
            json!({"error": case["error"].clone()}),
        );
        if result["isContextWindowError"] != case["isContextWindowError"] {
            wrong.push(format!(
                "{name} ({}): got {result}",
                case["description"].as_str().unwrap_or("")
            ));
        }
    }
    assert!(wrong.is_empty(), "misclassified:\n{}", wrong.join("\n"));
}

const SUMMARIZE: &str = "roo/host/summarize";

fn long_conversation(turns: usize, words: usize) -> Vec<Value> {
    let task = format!(
        "<task>port the parser {}</task>",
        "requirement ".repeat(words)
    );
    let mut messages = vec![json!({"role": "user", "content": task, "ts": 1000})];
    for turn in 1..turns {
        let role = if turn % 2 == 1 { "assistant" } else { "user" };
        messages.push(json!({"role": role, "content": format!("turn {turn} {}", "detail ".repeat(words)), "ts": 1000 + turn}));
    }
    messages
}

/// The last message of every summarize request the host receives, answering `reply`.
fn recording_host(server: &mut Server, reply: Value) -> Arc<Mutex<Vec<Value>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    server.set_host(Box::new(move |method, params| {
        assert_eq!(method, SUMMARIZE);
        record.lock().unwrap().push(params.clone());
        Ok(reply.clone())
    }));
    seen
}

fn last_message_text(request: &Value) -> String {
    let messages = request["messages"].as_array().unwrap();
    let content = &messages.last().unwrap()["content"];
    match content {
        Value::String(text) => text.clone(),
        blocks => blocks[0]["text"].as_str().unwrap().to_owned(),
    }
}

#[test]
fn parity_condense_keeps_the_instructions_whole_when_the_summarizer_window_is_small() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let seen = recording_host(&mut server, json!({"text": "Summary.", "cost": 0.0}));
    let manage = |server: &mut Server, summarizer: Value| {
        server.call(
            "roo/context/manage",
            json!({"trigger": "manual", "messages": long_conversation(40, 300),
                   "contextWindow": 200000, "summarizer": summarizer}),
        )
    };
    manage(&mut server, json!({"contextWindow": 200000}));
    let roomy = seen.lock().unwrap().pop().expect("the host was asked");
    let instructions = last_message_text(&roomy);
    assert!(
        instructions.contains("4. Errors and fixes:"),
        "{instructions}"
    );
    let needed = roomy["requestTokens"].as_u64().unwrap();

    // How many tokens the instructions take with the system prompt, from the refusal.
    let refused = manage(&mut server, json!({"contextWindow": 100, "maxTokens": 10}));
    let error = refused["error"].as_str().unwrap();
    let instructions_tokens: u64 = error
        .split("condense instructions (")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|number| number.parse().ok())
        .unwrap_or_else(|| panic!("{error}"));

    // Windows that hold the instructions and little else: the conversation is cut (middle
    // messages left out, then the long first message shortened), the instructions are not.
    for spare in [0u64, 5, 40, 200, 1_000] {
        // usable = window × 0.9 − maxTokens
        let window = (instructions_tokens + spare + 100) * 10 / 9 + 1;
        let result = manage(
            &mut server,
            json!({"contextWindow": window, "maxTokens": 100}),
        );
        let request = seen.lock().unwrap().pop();
        match request {
            Some(request) => {
                assert_eq!(
                    result["changed"], true,
                    "window {window} (spare {spare}): {result}"
                );
                assert_eq!(
                    last_message_text(&request),
                    instructions,
                    "window {window} (spare {spare}): the instructions reach the model whole"
                );
                assert!(request["requestTokens"].as_u64().unwrap() < needed);
                assert!(
                    request["requestTokens"].as_u64().unwrap()
                        <= request["tokenLimit"].as_u64().unwrap()
                );
            }
            // Too tight for even the shortest conversation: refused before asking, never sent
            // with cut instructions.
            None if spare < 200 => {
                assert_eq!(result["changed"], false);
                let error = result["error"].as_str().unwrap();
                assert!(
                    error.contains("is too small for the condense request"),
                    "{error}"
                );
            }
            None => panic!("window {window} (spare {spare}): host never asked: {result}"),
        }
    }
}

#[test]
fn parity_condense_refuses_before_asking_the_host_when_the_instructions_do_not_fit() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let seen = recording_host(&mut server, json!({"text": "Summary.", "cost": 0.0}));
    let messages = long_conversation(10, 50);
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": messages, "contextWindow": 200000,
               "summarizer": {"contextWindow": 1000, "maxTokens": 100}}),
    );
    assert!(
        seen.lock().unwrap().is_empty(),
        "the host was asked: {result}"
    );
    assert_eq!(result["changed"], false);
    assert!(result.get("messages").is_none());
    let error = result["error"].as_str().unwrap();
    assert!(
        error.starts_with("The summarizer's context window (1000 tokens, 800 usable) is too small for the condense instructions ("),
        "{error}"
    );
    assert!(error.ends_with("tokens with the system prompt); nothing was sent to the summarizer"));
    assert_eq!(
        result["events"],
        json!([{"say": "condense_context_error", "text": error}])
    );
}

#[test]
fn parity_truncation_without_progress_says_nothing_shrank_not_above_the_budget() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let messages = json!([
        {"role": "user", "content": "<task>hi</task>", "ts": 1},
        {"role": "assistant", "content": "ok", "ts": 2},
        {"role": "user", "content": "go", "ts": 3},
        {"role": "assistant", "content": "done", "ts": 4},
        {"role": "user", "content": "and?", "ts": 5}
    ]);
    // The host reports a big previous request, the stored history is tiny.
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "automatic", "messages": messages, "contextWindow": 100000,
               "maxTokens": 30000, "totalTokens": 70000, "autoCondenseContext": false}),
    );
    assert_eq!(result["changed"], false, "{result}");
    let details = result["errorDetails"].as_str().unwrap();
    assert!(!details.contains("still above the budget"), "{details}");
    assert!(
        details.ends_with("the context would not get smaller; nothing was changed."),
        "{details}"
    );
    let (now, before) = details
        .split("reaching ")
        .nth(1)
        .and_then(|rest| rest.split_once(" tokens (from "))
        .map(|(now, rest)| {
            (
                now.to_owned(),
                rest.split(' ')
                    .next()
                    .unwrap()
                    .trim_end_matches("):")
                    .to_owned(),
            )
        })
        .unwrap();
    let (now, before): (u64, u64) = (now.parse().unwrap(), before.parse().unwrap());
    assert!(now >= before && now <= 60000, "{details}");
}

#[test]
fn parity_tool_results_shrunk_counts_tool_results_not_rounds() {
    // Dense text first, sparse text last: a cut from the end frees fewer tokens than the
    // average suggests, so recovery needs more than one round on the same tool result.
    let text = format!("{}{}", "日本語😀é".repeat(6000), " the".repeat(40000));
    let mut server = Server::start_in_process(&[], Value::Null);
    for content in [json!(text), json!([{"type": "text", "text": text}])] {
        for window in [4_000u64, 6_000, 9_000, 14_000, 20_000, 30_000] {
            let messages = json!([
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "execute_command", "input": {"command": "make"}}], "ts": 1},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": content}], "ts": 2}
            ]);
            let result = server.call(
                "roo/context/manage",
                json!({"trigger": "automatic", "messages": messages, "contextWindow": window,
                       "maxTokens": 1000, "autoCondenseContext": false}),
            );
            let shape = if content.is_string() {
                "string"
            } else {
                "array"
            };
            assert_eq!(
                result["action"], "truncated",
                "{shape} {window}: {}",
                result["error"]
            );
            assert_eq!(
                result["toolResultsShrunk"], 1,
                "{shape} content, window {window}: one tool result was shrunk"
            );
            assert_eq!(result["events"][0]["say"], "sliding_window_truncation");
        }
    }
}

#[test]
fn parity_host_without_summarizer_gets_the_invalid_handler_error_and_is_not_asked_again() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let asked = Arc::new(Mutex::new(0));
    let count = asked.clone();
    server.set_host(Box::new(move |method, _| {
        *count.lock().unwrap() += 1;
        Err((-32601, format!("Unhandled method {method}")))
    }));
    let messages = long_conversation(8, 100);
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": messages, "contextWindow": 200000}),
    );
    assert_eq!(*asked.lock().unwrap(), 1);
    assert_eq!(result["changed"], false);
    assert_eq!(
        result["error"],
        "API handler for condensing context is invalid"
    );
    assert!(
        result["errorDetails"]
            .as_str()
            .unwrap()
            .contains("does not implement roo/host/summarize (JSON-RPC -32601"),
        "{result}"
    );
    assert_eq!(
        result["events"],
        json!([{"say": "condense_context_error", "text": "API handler for condensing context is invalid"}])
    );

    // An automatic run over budget: the same error, the fallback truncation still happens, and
    // the host is not asked again.
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "automatic", "messages": long_conversation(20, 400), "contextWindow": 12000,
               "maxTokens": 500}),
    );
    assert_eq!(*asked.lock().unwrap(), 1, "asked again: {result}");
    assert_eq!(
        result["error"],
        "API handler for condensing context is invalid"
    );
    assert_eq!(result["action"], "truncated", "{result}");
    let says: Vec<&str> = result["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| event["say"].as_str().unwrap())
        .collect();
    assert_eq!(
        says,
        ["condense_context_error", "sliding_window_truncation"]
    );

    // Another failure (not -32601) is still an ordinary failed call.
    let mut other = Server::start_in_process(&[], Value::Null);
    other.set_host(Box::new(|_, _| {
        Err((-32000, "provider unreachable".into()))
    }));
    let result = other.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": long_conversation(8, 100), "contextWindow": 200000}),
    );
    assert_eq!(
        result["error"],
        "Condensing API call failed: provider unreachable"
    );
}

const SIZES_TS: &str = "export function two(a: number) {\n  return a;\n}\n\nexport function three(a: number) {\n  const b = a;\n  return b;\n}\n\nexport function six(a: number) {\n  const b = a;\n  const c = b;\n  const d = c;\n  const e = d;\n  return e;\n}\n";

fn outline_names(outline: &Value) -> Vec<String> {
    outline["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn parity_fold_minimum_definition_size_is_a_parameter_of_every_fold_method_and_the_cli() {
    let fixture = crate::harness::Fixture::new(&[("src/sizes.ts", SIZES_TS)]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let outline = |server: &mut Server, min: Value| {
        let mut params = json!({"path": "src/sizes.ts"});
        if !min.is_null() {
            params["minComponentLines"] = min;
        }
        server.call("roo/fold/outline", params)
    };
    // Spans: two 3 lines, three 4 lines, six 7 lines.
    assert_eq!(
        outline_names(&outline(&mut server, Value::Null)),
        ["three", "six"]
    );
    assert_eq!(
        outline_names(&outline(&mut server, json!(0))),
        ["two", "three", "six"]
    );
    assert_eq!(
        outline_names(&outline(&mut server, json!(3))),
        ["two", "three", "six"]
    );
    assert_eq!(
        outline_names(&outline(&mut server, json!(4))),
        ["three", "six"]
    );
    assert_eq!(outline_names(&outline(&mut server, json!(5))), ["six"]);
    assert!(outline_names(&outline(&mut server, json!(8))).is_empty());
    // Another minimum never leaks into the shared cache.
    assert_eq!(
        outline_names(&outline(&mut server, Value::Null)),
        ["three", "six"]
    );

    let context = |server: &mut Server, min: Value| {
        let mut params = json!({"paths": ["src/sizes.ts"]});
        if !min.is_null() {
            params["minComponentLines"] = min;
        }
        server.call("roo/fold/context", params)["content"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let default = context(&mut server, Value::Null);
    assert!(
        default.contains("5--8 | export function three")
            && !default.contains("export function two"),
        "{default}"
    );
    let all = context(&mut server, json!(0));
    assert!(all.contains("1--3 | export function two"), "{all}");
    let large = context(&mut server, json!(5));
    assert!(
        !large.contains("export function three") && large.contains("export function six"),
        "{large}"
    );
    assert_eq!(context(&mut server, Value::Null), default);

    for bad in [json!(-1), json!(1.5), json!("4")] {
        let error = server
            .request(
                "roo/fold/outline",
                json!({"path": "src/sizes.ts", "minComponentLines": bad}),
            )
            .unwrap_err();
        assert_eq!(error["code"], -32602);
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains("minComponentLines"),
            "{error}"
        );
    }

    let run = |args: &[&str]| {
        let output = std::process::Command::new(crate::harness::binary())
            .arg("fold")
            .arg("--workspace")
            .arg(fixture.root())
            .args(args)
            .arg("src/sizes.ts")
            .output()
            .unwrap();
        assert!(output.status.success());
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let cli_default = run(&[]);
    assert!(
        !cli_default.contains("export function two") && cli_default.contains("export function six"),
        "{cli_default}"
    );
    let cli_all = run(&["--min-component-lines", "0"]);
    assert!(cli_all.contains("1--3 | export function two"), "{cli_all}");
}

#[test]
fn parity_format_files_list_hides_or_locks_ignored_entries_and_shields_protected_ones() {
    let fixture = crate::harness::Fixture::new(&[
        (".rooignore", "secrets/**\nprivate/\nnode_modules\n*.env\n"),
        (".roomodes", "{}\n"),
        ("README.md", "# r\n"),
        ("prod.env", "TOKEN=1\n"),
        ("file10.txt", "x\n"),
        ("file2.txt", "x\n"),
        ("src/app.ts", "x\n"),
        ("secrets/key.txt", "k\n"),
        ("private/notes.md", "n\n"),
        ("node_modules/x.js", "x\n"),
    ]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let root = fixture.root().to_string_lossy().into_owned();
    let listing: Vec<String> = [
        "src/app.ts",
        "secrets/",
        "README.md",
        "node_modules/",
        ".roomodes",
        "private/notes.md",
        "file10.txt",
        "prod.env",
        "src/",
        "private/",
        "secrets/key.txt",
        "file2.txt",
        ".rooignore",
        "node_modules/x.js",
    ]
    .iter()
    .map(|entry| format!("{root}/{entry}"))
    .collect();
    let format = |server: &mut Server, show_ignored: bool, did_hit_limit: bool| {
        server.call(
            "roo/ignore/formatFilesList",
            json!({"listedDir": root, "files": listing, "showIgnored": show_ignored, "didHitLimit": did_hit_limit}),
        )["text"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // Files before folders at every level, natural order; folders judged without their slash
    // (a `secrets/**` or `private/` folder line stays, `node_modules` is ignored as a name).
    let visible = "\u{1F6E1}\u{FE0F} .roomodes\nfile2.txt\nfile10.txt\nREADME.md\nprivate/\nsecrets/\nsrc/\nsrc/app.ts";
    assert_eq!(format(&mut server, false, false), visible);
    assert_eq!(
        format(&mut server, true, false),
        "\u{1F512} .rooignore\n\u{1F6E1}\u{FE0F} .roomodes\nfile2.txt\nfile10.txt\n\u{1F512} prod.env\nREADME.md\n\u{1F512} node_modules/\n\u{1F512} node_modules/x.js\nprivate/\n\u{1F512} private/notes.md\nsecrets/\n\u{1F512} secrets/key.txt\nsrc/\nsrc/app.ts"
    );
    assert_eq!(
        format(&mut server, false, true),
        format!(
            "{visible}\n\n(File list truncated. Use list_files on specific subdirectories if you need to explore further.)"
        )
    );
    // Relative entries are relative to the listed folder.
    let relative = server.call(
        "roo/ignore/formatFilesList",
        json!({"listedDir": "secrets", "files": ["key.txt"], "showIgnored": true}),
    );
    assert_eq!(relative["text"], "\u{1F512} key.txt");
    // Everything ignored and hidden: nothing found.
    let none = server.call(
        "roo/ignore/formatFilesList",
        json!({"listedDir": root, "files": [format!("{root}/prod.env")]}),
    );
    assert_eq!(none["text"], "No files found.");
    assert_eq!(
        server.call("roo/ignore/formatFilesList", json!({"files": []}))["text"],
        "No files found."
    );
}

/// The JSON blocks of one method's section of docs/protocol.md, parsed.
pub(crate) fn documented_examples(method: &str) -> Vec<Value> {
    let docs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/protocol.md"
    ))
    .unwrap();
    let heading = format!("### `{method}`");
    let section = docs
        .split(&heading)
        .nth(1)
        .unwrap_or_else(|| panic!("no section {method}"));
    let section = section.split("\n### ").next().unwrap();
    section
        .split("```json")
        .skip(1)
        .map(|block| {
            let text = block.split("```").next().unwrap();
            serde_json::from_str(text).unwrap_or_else(|e| panic!("{method}: {e}\n{text}"))
        })
        .collect()
}

#[test]
fn parity_documented_examples_are_what_the_binary_answers() {
    let mut server = Server::start_in_process(&[], Value::Null);
    for method in ["roo/history/rewind", "roo/context/classifyError"] {
        let examples = documented_examples(method);
        let (request, response) = (&examples[0], &examples[1]);
        assert_eq!(request["method"], method);
        let answer = server.call(method, request["params"].clone());
        // JSON values compare integers and floats apart: `300` is not `300.0`.
        assert_eq!(answer, response["result"], "{method}");
    }
}

#[test]
fn parity_dispose_of_an_unknown_task_is_documented_and_harmless() {
    let mut server = Server::start_in_process(&[], Value::Null);
    let answer = server.call("roo/files/disposeTask", json!({"taskId": "never-opened"}));
    assert_eq!(answer, json!({"disposed": false}));
    let docs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/protocol.md"
    ))
    .unwrap();
    assert!(docs.contains("`disposeTask`, which answers `{\"disposed\": false}`"));
}

#[test]
fn parity_every_context_error_the_binary_can_give_is_documented() {
    let docs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/protocol.md"
    ))
    .unwrap();
    for text in [
        "Not enough messages to condense context",
        "Context was condensed recently; skipping this attempt",
        "Condensing API call failed: <message>",
        "Failed to condense context",
        "Context size increased during\ncondensing; skipping this attempt",
        "Condensed context (<n> tokens) still exceeds the available\nbudget (<allowed> tokens)",
        "API handler for\ncondensing context is invalid",
        "is too small for the condense instructions",
        "too small for the condense request",
        "Context window recovery failed",
    ] {
        assert!(
            docs.contains(text),
            "docs/protocol.md does not name {text:?}"
        );
    }
}

#[test]
fn parity_an_unreadable_task_metadata_file_is_reported_on_every_first_open() {
    let workspace = crate::harness::Fixture::new(&[("a.ts", "a")]);
    let storage = tempfile::tempdir().unwrap();
    let mut server = Server::start_in_process(&[workspace.root()], Value::Null);
    // The race was between the actor failing (and closing its mailbox) and the first command
    // reaching it: many first opens make a lost race near certain without the fix.
    for task in 0..60 {
        let dir = storage.path().join(format!("task-{task}"));
        std::fs::create_dir_all(dir.join("task_metadata.json")).unwrap();
        let error = server
            .request(
                "roo/files/track",
                json!({"taskId": format!("task-{task}"), "storageDir": dir, "path": "a.ts", "source": "read_tool"}),
            )
            .unwrap_err();
        assert_eq!(error["code"], -32603, "task {task}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains("task_metadata.json"),
            "task {task}: {message}"
        );
        assert!(!message.contains("closed"), "task {task}: {message}");
    }
}

#[test]
fn parity_marking_a_file_no_task_read_does_not_watch_it() {
    let workspace =
        crate::harness::Fixture::new(&[("b.ts", "b\n"), ("c.ts", "c\n"), ("d.ts", "d\n")]);
    let storage = tempfile::tempdir().unwrap();
    let mut server = Server::start_in_process(&[workspace.root()], Value::Null);
    let dir = storage.path().join("t");
    std::fs::create_dir_all(&dir).unwrap();
    let track = |server: &mut Server, path: &str, source: &str| {
        server.call(
            "roo/files/track",
            json!({"taskId": "t", "storageDir": dir, "path": path, "source": source}),
        )
    };
    track(&mut server, "b.ts", "read_tool");
    let marked = server.call(
        "roo/files/markRooEdited",
        json!({"taskId": "t", "path": "c.ts", "content": "agent\n"}),
    );
    assert_eq!(marked, json!({"watched": false}));
    // A user edit of the never-read file is not reported; the next one of a read file is first.
    workspace.replace("c.ts", "user\n");
    workspace.replace("b.ts", "user\n");
    let first = server.notification("roo/files/didChange");
    assert_eq!(first["path"], "b.ts", "{first}");
    let text = std::fs::read_to_string(dir.join("task_metadata.json")).unwrap();
    assert!(!text.contains("c.ts"), "{text}");

    // Marked before the agent writes a new file, tracked after: then it is watched, and the
    // user's later edit is reported.
    assert_eq!(
        server.call(
            "roo/files/markRooEdited",
            json!({"taskId": "t", "path": "d.ts", "content": "agent d\n"})
        ),
        json!({"watched": false})
    );
    workspace.replace("d.ts", "agent d\n");
    assert_eq!(track(&mut server, "d.ts", "roo_edited")["watched"], true);
    assert_eq!(
        server.call(
            "roo/files/markRooEdited",
            json!({"taskId": "t", "path": "d.ts", "content": "agent d2\n"})
        ),
        json!({"watched": true})
    );
    workspace.replace("d.ts", "agent d2\n");
    workspace.replace("d.ts", "user d\n");
    let next = server.notification("roo/files/didChange");
    assert_eq!(
        next,
        json!({"taskId": "t", "path": "d.ts", "kind": "modified",
               "diffStat": {"added": 1, "removed": 1, "hunks": 1}})
    );
}
