//! `roo/mentions/parse` and `roo/mentions/processUserContent` over stdio: files, folders, ignored
//! files, custom commands with front matter, and host-resolved mentions with and without a host
//! answer (`roo/host/resolveMention`), plus the `mentions` command line.

use std::process::Command;

use serde_json::{Value, json};

use crate::harness::{Fixture, Server, binary};

fn fixture() -> Fixture {
    Fixture::new(&[
        (".rooignore", "secrets/\n*.env\n"),
        ("src/app.ts", "export const answer = 42;\n"),
        ("src/util.ts", "export {}"),
        ("prod.env", "KEY=1"),
        ("secrets/key.txt", "hunter2"),
        (
            ".roo/commands/review.md",
            "---\ndescription: Review the change\nargument-hint: <path>\nmode: architect\n---\n\nReview carefully.\n",
        ),
    ])
}

/// A server whose global command folder is an empty temp folder (not the tester's home).
fn start(fixture: &Fixture) -> (Server, tempfile::TempDir) {
    let home = tempfile::tempdir().unwrap();
    let home_path = home.path().to_string_lossy().into_owned();
    let mut server = Server::spawn_with_env(&[("HOME", home_path.as_str())]);
    server
        .initialize(&[fixture.root()], Value::Null)
        .expect("initialize");
    (server, home)
}

#[test]
fn file_mention_becomes_a_read_file_block() {
    let fixture = fixture();
    let (mut server, _home) = start(&fixture);
    let result = server.call(
        "roo/mentions/parse",
        json!({"text": "Fix @/src/app.ts now"}),
    );
    assert_eq!(result["text"], "Fix 'src/app.ts' now");
    assert_eq!(
        result["contentBlocks"],
        json!([{
            "type": "file",
            "path": "src/app.ts",
            "content": "[read_file for 'src/app.ts']\nFile: src/app.ts\n1 | export const answer = 42;\n2 | ",
            "metadata": {"totalLines": 2, "returnedLines": 2, "wasTruncated": false, "linesShown": [1, 2]}
        }])
    );
    assert_eq!(result["mentionedFiles"], json!(["src/app.ts"]));
    assert!(result.get("slashCommandHelp").is_none());
}

#[test]
fn folder_mention_lists_and_inlines_but_hides_ignored_entries() {
    let fixture = fixture();
    let (mut server, _home) = start(&fixture);
    // `@/ ` is not a mention: the body needs a character after the slash.
    let bare = server.call("roo/mentions/parse", json!({"text": "@/ overview"}));
    assert_eq!(bare["text"], "@/ overview");
    assert_eq!(bare["contentBlocks"], json!([]));

    let result = server.call("roo/mentions/parse", json!({"text": "@/src/"}));
    assert_eq!(
        result["contentBlocks"][0]["content"],
        "[read_file for folder 'src/']\nFolder listing:\n├── app.ts\n└── util.ts\n\n\n--- File Contents ---\n\n[read_file for 'src/app.ts']\nFile: src/app.ts\n1 | export const answer = 42;\n2 | \n\n[read_file for 'src/util.ts']\nFile: src/util.ts\n1 | export {}"
    );
    assert_eq!(result["contentBlocks"][0]["type"], "folder");

    let root = server.call("roo/mentions/parse", json!({"text": "@/./"}));
    let listing = root["contentBlocks"][0]["content"].as_str().unwrap();
    assert!(listing.contains("└── src/\n"), "{listing}");
    // `secrets/` is directory-only: it blocks the contents, not the bare folder (as in git).
    assert!(listing.contains("├── secrets/\n"), "{listing}");
    assert!(
        !listing.contains("prod.env"),
        "ignored file hidden: {listing}"
    );
    assert!(
        !listing.contains(".rooignore"),
        "the ignore file is blocked: {listing}"
    );
    assert!(!listing.contains("KEY=1"));
    let secrets = server.call("roo/mentions/parse", json!({"text": "@/secrets/"}));
    assert_eq!(
        secrets["contentBlocks"][0]["content"],
        "[read_file for folder 'secrets/']\nFolder listing:\n"
    );
}

#[test]
fn ignored_file_gets_the_note_not_the_content() {
    let fixture = fixture();
    let (mut server, _home) = start(&fixture);
    let result = server.call(
        "roo/mentions/parse",
        json!({"text": "@/prod.env and @/secrets/key.txt"}),
    );
    let blocks = result["contentBlocks"].as_array().unwrap();
    assert_eq!(
        blocks[0]["content"],
        "[read_file for 'prod.env']\nNote: File is ignored by .rooignore."
    );
    assert_eq!(
        blocks[1]["content"],
        "[read_file for 'secrets/key.txt']\nNote: File is ignored by .rooignore."
    );
    assert_eq!(result["mentionedFiles"], json!([]));
    assert!(!result.to_string().contains("hunter2"));
}

#[test]
fn custom_command_with_front_matter_sets_help_and_mode() {
    let fixture = fixture();
    let (mut server, _home) = start(&fixture);
    let result = server.call(
        "roo/mentions/parse",
        json!({"text": "Please\n/review @/src/app.ts and /toString"}),
    );
    assert_eq!(
        result["text"],
        "Please\nCommand 'review' (see below for command content) 'src/app.ts' and /toString"
    );
    assert_eq!(
        result["slashCommandHelp"],
        "<command name=\"review\">\nDescription: Review the change\n\nReview carefully.\n</command>"
    );
    assert_eq!(result["mode"], "architect");
}

#[test]
fn host_answers_problems_terminal_and_urls() {
    let fixture = fixture();
    let (mut server, _home) = start(&fixture);
    server.set_host(Box::new(|method, params| {
        assert_eq!(method, "roo/host/resolveMention");
        let content = match params["kind"].as_str().unwrap() {
            "problems" => {
                assert_eq!(params["includeDiagnosticMessages"], true);
                assert_eq!(params["maxDiagnosticMessages"], 50);
                "src/app.ts\n- [ts Error] 1 | x : boom".to_owned()
            }
            "terminal" => "$ make\nok".to_owned(),
            "url" => format!("page of {}", params["value"].as_str().unwrap()),
            other => return Err((-32602, format!("unexpected kind {other}"))),
        };
        Ok(json!({"content": content}))
    }));
    let result = server.call(
        "roo/mentions/parse",
        json!({"text": "@problems @terminal @https://example.com/x @/src/util.ts"}),
    );
    assert_eq!(
        result["text"],
        "Workspace Problems (see below for diagnostics) Terminal Output (see below for output) 'https://example.com/x' 'src/util.ts'\n\n<workspace_diagnostics>\nsrc/app.ts\n- [ts Error] 1 | x : boom\n</workspace_diagnostics>\n\n<terminal_output>\n$ make\nok\n</terminal_output>\n\n<url_content url=\"https://example.com/x\">\npage of https://example.com/x\n</url_content>"
    );
    assert_eq!(result["diagnostics"], json!([]));
    assert_eq!(result["contentBlocks"][0]["path"], "src/util.ts");
}

#[test]
fn without_a_host_answer_each_mention_gets_its_error_and_the_rest_is_processed() {
    let fixture = fixture();
    let (mut server, _home) = start(&fixture);
    // The test host implements nothing: every roo/host/resolveMention gets -32601.
    let result = server.call(
        "roo/mentions/parse",
        json!({"text": "@problems then @/src/util.ts and /review"}),
    );
    let text = result["text"].as_str().unwrap();
    assert!(
        text.starts_with("Workspace Problems (see below for diagnostics) then 'src/util.ts' and Command 'review' (see below for command content)\n\n<workspace_diagnostics>\nError fetching diagnostics: the host could not resolve it: "),
        "{text}"
    );
    assert!(
        text.ends_with("(code -32601)\n</workspace_diagnostics>"),
        "{text}"
    );
    assert_eq!(result["diagnostics"][0]["code"], "hostError");
    assert_eq!(result["contentBlocks"][0]["path"], "src/util.ts");
    assert_eq!(result["mode"], "architect");
}

#[test]
fn a_host_that_answers_too_late_times_out_and_the_server_goes_on() {
    let fixture = fixture();
    let (mut server, _home) = start(&fixture);
    // This host takes longer than the request allows: the parse must not wait for it.
    server.set_host(Box::new(|_, _| {
        std::thread::sleep(std::time::Duration::from_millis(1500));
        Ok(json!({"content": "late"}))
    }));
    let result = server.call(
        "roo/mentions/parse",
        json!({"text": "@terminal", "hostTimeoutMs": 100}),
    );
    assert_eq!(
        result["text"],
        "Terminal Output (see below for output)\n\n<terminal_output>\nError fetching terminal output: the host did not answer roo/host/resolveMention within 100 ms\n</terminal_output>"
    );
    assert_eq!(result["diagnostics"][0]["code"], "hostTimeout");
    let status = server.call("roo/workspace/status", json!({}));
    assert!(status["folders"].is_array());
}

#[test]
fn a_host_that_never_answers_a_url_mention_is_told_to_cancel_it() {
    let fixture = fixture();
    let (mut server, _home) = start(&fixture);
    server.leave_unanswered("roo/host/resolveMention");
    let result = server.call(
        "roo/mentions/parse",
        json!({"text": "see @https://example.com/slow", "hostTimeoutMs": 100}),
    );
    assert_eq!(result["diagnostics"][0]["code"], "hostTimeout");
    let asked = server.unanswered[0].clone();
    assert_eq!(asked["params"]["kind"], "url");
    let cancel = server.notification("$/cancelRequest");
    assert_eq!(cancel, json!({"id": asked["id"]}));
}

#[test]
fn cancelling_a_parse_cancels_the_host_request_it_waits_on() {
    let fixture = fixture();
    let (mut server, _home) = start(&fixture);
    let id = server.send_request(
        "roo/mentions/parse",
        json!({"text": "see @https://example.com/slow", "hostTimeoutMs": 60000}),
    );
    let asked = server.host_request("roo/host/resolveMention");
    server.notify("$/cancelRequest", json!({"id": id}));
    let cancel = server.notification("$/cancelRequest");
    assert_eq!(cancel, json!({"id": asked["id"]}));
    assert_eq!(server.response(id)["error"]["code"], -32800);
}

#[test]
fn a_host_that_answers_in_time_is_not_told_to_cancel() {
    let fixture = fixture();
    let (mut server, _home) = start(&fixture);
    server.set_host(Box::new(|_, _| Ok(json!({"content": "page"}))));
    server.call(
        "roo/mentions/parse",
        json!({"text": "see @https://example.com/fast", "hostTimeoutMs": 5000}),
    );
    // A later timed-out call is cancelled; the answered one before it never was.
    server.leave_unanswered("roo/host/resolveMention");
    server.call(
        "roo/mentions/parse",
        json!({"text": "see @https://example.com/slow", "hostTimeoutMs": 100}),
    );
    let slow = server.unanswered[0]["id"].clone();
    let cancel = server.notification("$/cancelRequest");
    assert_eq!(cancel["id"], slow);
}

#[test]
fn process_user_content_expands_only_user_authored_spans() {
    let fixture = fixture();
    let (mut server, _home) = start(&fixture);
    let content = json!([
        {"type": "text", "text": "<user_message>\n/review @/src/util.ts\n</user_message>"},
        {"type": "tool_result", "tool_use_id": "t1", "content": "read: <user_message>@/src/app.ts</user_message>"},
        {"type": "text", "text": "<environment_details>x</environment_details>"}
    ]);
    let result = server.call(
        "roo/mentions/processUserContent",
        json!({"content": content, "taskId": "t"}),
    );
    assert_eq!(result["changed"], true);
    assert_eq!(result["mode"], "architect");
    let out = result["content"].as_array().unwrap();
    assert_eq!(out.len(), 5);
    assert_eq!(
        out[0]["text"],
        "<user_message>\nCommand 'review' (see below for command content) 'src/util.ts'\n</user_message>"
    );
    assert_eq!(
        out[1]["text"],
        "[read_file for 'src/util.ts']\nFile: src/util.ts\n1 | export {}"
    );
    assert!(
        out[2]["text"]
            .as_str()
            .unwrap()
            .starts_with("<command name=\"review\">")
    );
    assert_eq!(
        out[3], content[1],
        "tool output quoting the marker is not parsed"
    );
    assert_eq!(out[4], content[2]);
}

#[test]
fn mentions_command_line_prints_json_with_host_errors() {
    let fixture = fixture();
    let home = tempfile::tempdir().unwrap();
    let output = Command::new(binary())
        .args(["mentions", "--workspace"])
        .arg(fixture.root())
        .arg("Fix @/src/app.ts using /review; see @terminal")
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert!(output.status.success());
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["contentBlocks"][0]["path"], "src/app.ts");
    assert_eq!(result["diagnostics"][0]["code"], "hostUnavailable");
    assert!(
        result["text"]
            .as_str()
            .unwrap()
            .ends_with("<terminal_output>\nError fetching terminal output: no editor host is connected to resolve it\n</terminal_output>")
    );
}

#[test]
fn mentioned_files_are_tracked_as_file_mentioned_for_the_task() {
    let fixture = fixture();
    let storage = tempfile::tempdir().unwrap();
    let (mut server, _home) = start(&fixture);
    let result = server.call(
        "roo/mentions/parse",
        json!({
            "text": "@/src/app.ts @/prod.env @/src/",
            "taskId": "task-1",
            "storageDir": storage.path(),
        }),
    );
    assert_eq!(result["mentionedFiles"], json!(["src/app.ts"]));
    assert_eq!(result["diagnostics"], json!([]));
    let read = server.call("roo/files/read", json!({"taskId": "task-1"}));
    assert_eq!(read["paths"], json!(["src/app.ts"]));
    let metadata = std::fs::read_to_string(storage.path().join("task_metadata.json")).unwrap();
    assert!(
        metadata.contains(r#""record_source":"file_mentioned""#),
        "{metadata}"
    );
}

#[test]
fn with_fetch_urls_false_a_url_is_only_referenced_and_the_host_is_not_asked() {
    let fixture = fixture();
    let (mut server, _home) = start(&fixture);
    server.set_host(Box::new(|_, params| {
        Err((-32603, format!("asked for {}", params["value"])))
    }));
    let result = server.call(
        "roo/mentions/parse",
        json!({"text": "Check @https://example.com and @/src/util.ts", "fetchUrls": false}),
    );
    assert_eq!(
        result["text"],
        "Check 'https://example.com' and 'src/util.ts'"
    );
    assert_eq!(result["diagnostics"], json!([]));
    assert_eq!(result["contentBlocks"][0]["path"], "src/util.ts");
}

#[test]
fn the_request_metadata_reaches_the_host_with_each_mention_it_resolves() {
    let fixture = fixture();
    let (mut server, _home) = start(&fixture);
    server.set_host(Box::new(|_, params| {
        assert_eq!(params["metadata"], json!({"caller": 7}));
        Ok(json!({"content": "No errors or warnings detected."}))
    }));
    let result = server.call(
        "roo/mentions/parse",
        json!({"text": "@problems", "metadata": {"caller": 7}}),
    );
    assert_eq!(
        result["text"],
        "Workspace Problems (see below for diagnostics)\n\n<workspace_diagnostics>\nNo errors or warnings detected.\n</workspace_diagnostics>"
    );
}
