//! Black-box tests of verified summaries (issue 19, part 1) over stdio: `roo/context/manage` with
//! `verify`, a scripted host answering `roo/host/summarize` with crafted summaries, and
//! `roo/context/verifySummary`: every check, every repair, the one retry, the cap and budget
//! refusals, the tracker as a file source, nested condenses and determinism.
//! One file on purpose: the cases of one feature on one fixture task (`history`,
//! `complete_summary`) and one `scripted_host`, which `verify_attacks.rs` imports as well.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};
use crate::raw::{RawServer, lenient};

pub(crate) const SUMMARIZE: &str = "roo/host/summarize";
pub(crate) const LATEST: &str = "Keep the public API unchanged, and add tests for Circle.area.";
pub(crate) const CONSTRAINT: &str = "Never change the public API.";

pub(crate) fn tool_use(id: &str, name: &str, input: Value, ts: u64) -> Value {
    json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": name, "input": input}], "ts": ts})
}

pub(crate) fn tool_result(id: &str, text: &str, ts: u64) -> Value {
    json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": text}], "ts": ts})
}

/// A Roo-style task: a read, an edit, a TODO list, the user's latest message, and padding so a
/// summary makes the context smaller.
pub(crate) fn history() -> Vec<Value> {
    let padding =
        "The shapes module draws every figure on the canvas and keeps its state. ".repeat(60);
    vec![
        json!({"role": "user", "content": [{"type": "text", "text": format!("<task>\nAdd a Circle shape to src/shapes.ts. {CONSTRAINT}\n</task>")}], "ts": 1000}),
        tool_use("t1", "read_file", json!({"path": "src/util/math.ts"}), 1001),
        tool_result("t1", &padding, 1002),
        tool_use(
            "t2",
            "write_to_file",
            json!({"path": "src/shapes.ts", "content": "export class Circle {}"}),
            1003,
        ),
        tool_result(
            "t2",
            "The content was successfully saved to src/shapes.ts.",
            1004,
        ),
        tool_use(
            "t3",
            "update_todo_list",
            json!({"todos": "[x] Add the Circle class\n[-] Add tests for Circle.area\n[ ] Update the changelog"}),
            1005,
        ),
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t3", "content": "Todo list updated"},
            {"type": "text", "text": format!("<user_message>\n{LATEST}\n</user_message>")}
        ], "ts": 1006}),
        json!({"role": "assistant", "content": [{"type": "text", "text": padding}], "ts": 1007}),
    ]
}

/// A summary with the nine sections that keeps everything the history needs.
pub(crate) fn complete_summary() -> String {
    format!(
        "<analysis>checked</analysis>\n<summary>\n1. Primary Request and Intent:\n   Add a Circle shape to src/shapes.ts. {CONSTRAINT}\n\
2. Key Technical Concepts:\n   - TypeScript classes\n3. Files and Code Sections:\n   - src/shapes.ts (Circle added)\n   - src/util/math.ts (read)\n\
4. Errors and fixes:\n   - none\n5. Problem Solving:\n   Circle drawn.\n6. All user messages:\n   - {LATEST}\n\
7. Pending Tasks:\n   - Add tests for Circle.area (in progress)\n   - Update the changelog\n\
8. Current Work:\n   Writing the tests.\n9. Optional Next Step:\n   Add tests for Circle.area as the user asked: \"{LATEST}\"\n</summary>"
    )
}

/// A host answering each summarize request with the next text of `replies` (the last repeats),
/// recording the params.
pub(crate) fn scripted_host(server: &mut Server, replies: Vec<String>) -> Arc<Mutex<Vec<Value>>> {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let record = seen.clone();
    server.set_host(Box::new(move |method, params| {
        assert_eq!(method, SUMMARIZE);
        let mut seen = record.lock().unwrap();
        let text = replies[seen.len().min(replies.len() - 1)].clone();
        seen.push(params.clone());
        Ok(json!({"text": text, "cost": 0.5}))
    }));
    seen
}

pub(crate) fn manage(server: &mut Server, verify: Value, extra: Value) -> Value {
    let mut params = json!({
        "trigger": "manual",
        "messages": history(),
        "systemPrompt": "You are Roo.",
        "contextWindow": 200000,
        "taskId": "task-v",
        "verify": verify,
    });
    if let Value::Object(extra) = extra {
        for (key, value) in extra {
            params[key] = value;
        }
    }
    server.call("roo/context/manage", params)
}

fn check<'a>(verification: &'a Value, id: &str) -> &'a Value {
    verification["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["id"] == id)
        .unwrap_or_else(|| panic!("no check {id} in {verification}"))
}

fn summary_blocks(result: &Value) -> Vec<String> {
    let summary = result["messages"].as_array().unwrap().last().unwrap();
    summary["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["text"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn verify_complete_summary_passes_without_addendum_and_one_call() {
    let mut server = Server::start(&[], Value::Null);
    let seen = scripted_host(&mut server, vec![complete_summary()]);
    let result = manage(&mut server, json!({}), Value::Null);
    assert_eq!(result["changed"], true, "{result}");
    let verification = &result["verification"];
    assert_eq!(verification["passed"], true, "{verification}");
    assert_eq!(verification["repaired"], false);
    assert_eq!(verification["retries"], 0);
    assert_eq!(verification["addendumTokens"], 0);
    for id in [
        "sections",
        "files",
        "latestUserMessage",
        "constraints",
        "todos",
    ] {
        assert_eq!(
            check(verification, id)["passed"],
            true,
            "{id}: {verification}"
        );
    }
    assert_eq!(check(verification, "sections")["found"], 9);
    assert_eq!(check(verification, "files")["editedRecall"], 1.0);
    assert_eq!(summary_blocks(&result).len(), 1, "no addendum block");
    assert_eq!(seen.lock().unwrap().len(), 1);
    // The event carries the same report.
    assert_eq!(
        result["events"][0]["contextCondense"]["verification"],
        *verification
    );
}

#[test]
fn verify_absent_keeps_todays_result_shape() {
    let mut server = Server::start(&[], Value::Null);
    scripted_host(&mut server, vec!["Short summary.".into()]);
    let result = server.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": history(), "contextWindow": 200000}),
    );
    assert_eq!(result["changed"], true, "{result}");
    assert!(result.get("verification").is_none(), "{result}");
    assert!(
        result["events"][0]["contextCondense"]
            .get("verification")
            .is_none()
    );
    assert_eq!(
        summary_blocks(&result),
        vec!["## Conversation Summary\nShort summary."]
    );
}

#[test]
fn verify_missing_section_warns_and_retry_makes_exactly_two_calls() {
    let without_pending = complete_summary().replace("7. Pending Tasks:", "Pending:");
    // Default (repair): one call, sections fail with a warning, no retry.
    let mut server = Server::start(&[], Value::Null);
    let seen = scripted_host(&mut server, vec![without_pending.clone()]);
    let result = manage(&mut server, json!({}), Value::Null);
    let verification = &result["verification"];
    let sections = check(verification, "sections");
    assert_eq!(sections["passed"], false);
    assert_eq!(sections["missing"], json!(["Pending Tasks"]));
    assert_eq!(sections["found"], 8);
    assert_eq!(verification["passed"], false);
    assert!(
        verification["warnings"][0]
            .as_str()
            .unwrap()
            .contains("Pending Tasks")
    );
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert_eq!(result["changed"], true);

    // retryThenRepair: exactly two calls; the second ends with the corrective message; the
    // retry's (complete) answer is used; costs add up.
    let mut server = Server::start(&[], Value::Null);
    let seen = scripted_host(
        &mut server,
        vec![without_pending.clone(), complete_summary()],
    );
    let result = manage(
        &mut server,
        json!({"onFail": "retryThenRepair"}),
        Value::Null,
    );
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2, "{result}");
    let first = seen[0]["messages"].as_array().unwrap();
    let second = seen[1]["messages"].as_array().unwrap();
    assert_eq!(second.len(), first.len() + 1);
    assert_eq!(&second[..first.len()], &first[..]);
    let corrective = second.last().unwrap()["content"].as_str().unwrap();
    assert!(
        corrective.contains("it lacks: Pending Tasks."),
        "{corrective}"
    );
    assert_ne!(seen[0]["requestId"], seen[1]["requestId"]);
    assert_eq!(result["verification"]["retries"], 1);
    assert_eq!(result["verification"]["passed"], true, "{result}");
    assert_eq!(result["cost"], 1.0);

    // A retry that is still incomplete is never retried again.
    let mut server = Server::start(&[], Value::Null);
    let seen = scripted_host(&mut server, vec![without_pending]);
    let result = manage(
        &mut server,
        json!({"onFail": "retryThenRepair"}),
        Value::Null,
    );
    assert_eq!(seen.lock().unwrap().len(), 2);
    assert_eq!(result["verification"]["retries"], 1);
    assert_eq!(check(&result["verification"], "sections")["passed"], false);
    assert_eq!(result["changed"], true);
}

#[test]
fn verify_lost_edited_file_is_listed_and_folded_outline_covers_only_reads() {
    let fixture = Fixture::new(&[
        (
            "src/shapes.ts",
            "export class Circle {\n  radius = 1;\n  area() {\n    return 3.14;\n  }\n}\n",
        ),
        (
            "src/util/math.ts",
            "export function square(x: number): number {\n  const y = x * x;\n  // more\n  return y;\n}\n",
        ),
    ]);
    let mut server = Server::start(&[fixture.root()], Value::Null);
    let summary = complete_summary()
        .replace("   - src/shapes.ts (Circle added)\n", "")
        .replace("   - src/util/math.ts (read)\n", "")
        .replace(
            "Add a Circle shape to src/shapes.ts.",
            "Add a Circle shape.",
        );
    scripted_host(&mut server, vec![summary]);
    let result = manage(
        &mut server,
        json!({}),
        json!({"filesReadByRoo": ["src/util/math.ts", "src/shapes.ts"]}),
    );
    assert_eq!(result["changed"], true, "{result}");
    let files = check(&result["verification"], "files");
    assert_eq!(files["passed"], false);
    assert_eq!(files["missing"], json!(["src/shapes.ts"]), "{files}");
    assert_eq!(files["editedRecall"], 0.0);
    assert_eq!(
        files["readRecall"], 1.0,
        "the folded outline covers the read"
    );
    let blocks = summary_blocks(&result);
    assert!(blocks[1].starts_with("<system-reminder>\n## Preserved from the conversation"));
    assert!(
        blocks[1].contains("### Files you edited or read\n- src/shapes.ts (edited by you)\n"),
        "{}",
        blocks[1]
    );
    assert!(!blocks[1].contains("src/util/math.ts"));
    assert!(
        blocks[2].contains("## File Context: src/util/math.ts")
            || blocks[3].contains("## File Context: src/util/math.ts")
    );
    assert_eq!(result["verification"]["repaired"], true);
}

#[test]
fn verify_lost_latest_message_is_appended_verbatim_and_the_repair_verifies() {
    let mut server = Server::start(&[], Value::Null);
    let summary = complete_summary()
        .replace(&format!("   - {LATEST}\n"), "   - (feedback)\n")
        .replace(&format!(" as the user asked: \"{LATEST}\""), "");
    scripted_host(&mut server, vec![summary.clone()]);
    let result = manage(&mut server, json!({}), Value::Null);
    let latest = check(&result["verification"], "latestUserMessage");
    assert_eq!(latest["passed"], false, "{result}");
    let blocks = summary_blocks(&result);
    assert!(
        blocks[1].contains(&format!("### Latest user message (verbatim)\n{LATEST}\n")),
        "{}",
        blocks[1]
    );
    // Idempotence: the repaired text passes every check.
    let repaired = format!("{summary}\n\n{}", blocks[1]);
    let again = server.call(
        "roo/context/verifySummary",
        json!({"summary": repaired, "messages": history()}),
    );
    assert_eq!(again["verification"]["passed"], true, "{again}");
    assert!(again.get("addendum").is_none(), "{again}");
}

#[test]
fn verify_lost_todos_get_the_table_with_completed_items_kept_completed() {
    let mut server = Server::start(&[], Value::Null);
    let summary = complete_summary()
        .replace(
            "   - Add tests for Circle.area (in progress)\n   - Update the changelog\n",
            "   - Add the Circle class\n",
        )
        .replace(
            &format!("Add tests for Circle.area as the user asked: \"{LATEST}\""),
            "Continue",
        )
        .replace(
            &format!("   - {LATEST}\n"),
            "   - Keep the API; tests please.\n",
        );
    scripted_host(&mut server, vec![summary]);
    let result = manage(&mut server, json!({"checks": ["todos"]}), Value::Null);
    let todos = check(&result["verification"], "todos");
    assert_eq!(todos["passed"], false, "{result}");
    assert_eq!(
        todos["missing"],
        json!(["Add tests for Circle.area", "Update the changelog"])
    );
    assert_eq!(
        todos["reopened"],
        json!(["Add the Circle class"]),
        "listed under Pending Tasks"
    );
    let blocks = summary_blocks(&result);
    assert!(
        blocks[1].ends_with(
            "### Open TODOs\n| # | Content | Status |\n|---|---------|--------|\n\
| 1 | Add the Circle class | Completed |\n| 2 | Add tests for Circle.area | In Progress |\n\
| 3 | Update the changelog | Pending |\n</system-reminder>"
        ),
        "{}",
        blocks[1]
    );
}

#[test]
fn verify_lost_constraint_is_appended_and_a_reversed_one_does_not_count() {
    let mut server = Server::start(&[], Value::Null);
    // The summary says the opposite: the words match, the negation does not.
    let summary = complete_summary().replace(CONSTRAINT, "Change the public API as needed.");
    scripted_host(&mut server, vec![summary]);
    let result = manage(&mut server, json!({"checks": ["constraints"]}), Value::Null);
    let constraints = check(&result["verification"], "constraints");
    assert_eq!(constraints["passed"], false, "{result}");
    assert_eq!(constraints["missing"], json!([CONSTRAINT]));
    let blocks = summary_blocks(&result);
    assert!(blocks[1].contains(&format!(
        "### User constraints (verbatim)\n- \"{CONSTRAINT}\"\n"
    )));
}

#[test]
fn verify_addendum_respects_its_cap_and_cuts_constraints_oldest_first() {
    let mut server = Server::start(&[], Value::Null);
    scripted_host(&mut server, vec![complete_summary()]);
    let constraints: Vec<String> = (0..200)
        .map(|i| format!("Never rename the exported symbol number{i} in module{i}."))
        .collect();
    let result = manage(
        &mut server,
        json!({"constraints": constraints, "maxAddendumTokens": 300}),
        Value::Null,
    );
    let verification = &result["verification"];
    assert_eq!(result["changed"], true, "{result}");
    let tokens = verification["addendumTokens"].as_u64().unwrap();
    assert!(tokens > 0 && tokens <= 300, "{verification}");
    let omitted = verification["omitted"]["constraints"].as_u64().unwrap();
    assert!(omitted > 100, "{verification}");
    let blocks = summary_blocks(&result);
    assert!(blocks[1].contains(&format!("[… {omitted} older constraints omitted …]")));
    assert!(
        blocks[1].contains("number199"),
        "the newest is kept: {}",
        blocks[1]
    );
    assert!(!blocks[1].contains("number0 "), "the oldest goes first");
}

#[test]
fn verify_refuses_when_required_items_exceed_the_cap_and_history_is_untouched() {
    let mut server = Server::start(&[], Value::Null);
    scripted_host(&mut server, vec!["Nothing useful.".into()]);
    let before = history();
    let result = manage(&mut server, json!({"maxAddendumTokens": 10}), Value::Null);
    assert_eq!(result["changed"], false, "{result}");
    assert!(result.get("messages").is_none());
    assert!(
        result["error"]
            .as_str()
            .unwrap()
            .contains("more than maxAddendumTokens (10)"),
        "{result}"
    );
    assert_eq!(result["events"][0]["say"], "condense_context_error");
    assert_eq!(result["verification"]["repaired"], false);
    assert_eq!(result["verification"]["passed"], false);
    assert_eq!(before, history());
}

#[test]
fn verify_addendum_that_breaks_the_budget_is_refused_and_automatic_runs_truncate() {
    // The budget is sized so the bare summary fits but summary + addendum (edited files, which
    // are never cut) does not, while the fallback truncation does.
    let mut server = Server::start(&[], Value::Null);
    let mut messages = history();
    for i in 0..30 {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        messages.push(json!({"role": role, "content": format!("filler {i} {}", "filler ".repeat(150)), "ts": 2000 + i}));
    }
    scripted_host(&mut server, vec!["Tiny summary.".into()]);
    let probe = server.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": messages, "contextWindow": 200000}),
    );
    let model_facing = probe["budget"]["modelFacingTokens"].as_u64().unwrap();
    let bare = probe["newContextTokens"].as_u64().unwrap();
    let files = |count: usize| -> Vec<Value> {
        (0..count)
            .map(|i| json!({"path": format!("src/generated/module_{i}.ts"), "action": "edited"}))
            .collect()
    };
    let sized = server.call(
        "roo/context/verifySummary",
        json!({"summary": "Tiny summary.", "messages": [], "verify": {"checks": ["files"], "trackedFiles": files(100), "maxAddendumTokens": 1000000}}),
    );
    let per_file = sized["verification"]["addendumTokens"].as_u64().unwrap() as f64 / 100.0;
    let count = (model_facing as f64 / per_file) as usize;
    let verify =
        json!({"checks": ["files"], "trackedFiles": files(count), "maxAddendumTokens": 1000000});
    let addendum = model_facing; // about
    let allowed = bare + addendum / 2;
    assert!(
        bare < allowed && allowed < model_facing,
        "{bare} < {allowed} < {model_facing}"
    );
    let window = ((allowed + 8192) as f64 / 0.9).ceil() as u64;
    let params = |trigger: &str| {
        json!({"trigger": trigger, "messages": messages, "contextWindow": window,
               "summarizer": {"contextWindow": 200000}, "verify": verify})
    };
    let result = server.call("roo/context/manage", params("automatic"));
    assert_eq!(result["action"], "truncated", "{result:.2000}");
    assert!(
        result["error"]
            .as_str()
            .unwrap()
            .contains("exceeds the available budget"),
        "{result:.2000}"
    );
    assert!(
        result["errorDetails"]
            .as_str()
            .unwrap()
            .contains("verification addendum")
    );
    assert_eq!(result["verification"]["repaired"], false);
    assert_eq!(result["events"][0]["say"], "condense_context_error");
    assert_eq!(result["events"][1]["say"], "sliding_window_truncation");
    // Manually: refused, history untouched.
    let result = server.call("roo/context/manage", params("manual"));
    assert_eq!(result["changed"], false, "{result:.2000}");
    assert!(result.get("messages").is_none());
}

#[test]
fn verify_custom_prompt_skips_sections_but_runs_the_rest() {
    let mut server = Server::start(&[], Value::Null);
    scripted_host(
        &mut server,
        vec!["Circle added to src/util/math.ts only.".into()],
    );
    let result = manage(
        &mut server,
        json!({}),
        json!({"customCondensingPrompt": "Summarize briefly."}),
    );
    let verification = &result["verification"];
    assert_eq!(
        check(verification, "sections")["skipped"],
        "custom prompt without requiredSections"
    );
    assert_eq!(
        check(verification, "files")["missing"],
        json!(["src/shapes.ts"])
    );
    assert_eq!(check(verification, "latestUserMessage")["passed"], false);
    // With requiredSections, the custom headings are checked.
    let result = manage(
        &mut server,
        json!({"requiredSections": ["Goal", "Status"]}),
        json!({"customCondensingPrompt": "Summarize briefly."}),
    );
    let sections = check(&result["verification"], "sections");
    assert_eq!(sections["required"], 2);
    assert_eq!(sections["missing"], json!(["Goal", "Status"]));
}

#[test]
fn verify_nested_condense_still_requires_files_from_before_the_previous_summary() {
    let mut server = Server::start(&[], Value::Null);
    scripted_host(&mut server, vec![complete_summary()]);
    let first = manage(&mut server, json!({}), Value::Null);
    let mut messages = first["messages"].as_array().unwrap().clone();
    messages
        .push(json!({"role": "assistant", "content": "Tests written. ".repeat(200), "ts": 3000}));
    messages.push(json!({"role": "user", "content": "<user_message>Now update the changelog.</user_message>", "ts": 3001}));
    messages.push(json!({"role": "assistant", "content": "On it. ".repeat(200), "ts": 3002}));
    scripted_host(
        &mut server,
        vec![
            "1. Primary Request and Intent: update the changelog (Now update the changelog.)"
                .into(),
        ],
    );
    let second = server.call(
        "roo/context/manage",
        json!({"trigger": "manual", "messages": messages, "contextWindow": 200000, "verify": {"checks": ["files", "latestUserMessage"]}}),
    );
    assert_eq!(second["changed"], true, "{second}");
    let files = check(&second["verification"], "files");
    assert_eq!(
        files["missing"],
        json!(["src/shapes.ts", "src/util/math.ts"]),
        "{files}"
    );
    assert_eq!(
        check(&second["verification"], "latestUserMessage")["passed"],
        true
    );
}

#[test]
fn verify_tracker_records_are_required_files() {
    let fixture = Fixture::new(&[("lib/engine.rs", "fn main() {}\n")]);
    let storage = tempfile::tempdir().unwrap();
    let mut server = Server::start(&[fixture.root()], Value::Null);
    server.call(
        "roo/files/track",
        json!({"taskId": "task-v", "storageDir": storage.path(), "path": "lib/engine.rs", "source": "roo_edited"}),
    );
    scripted_host(&mut server, vec![complete_summary()]);
    let result = manage(&mut server, json!({"checks": ["files"]}), Value::Null);
    let files = check(&result["verification"], "files");
    assert_eq!(files["missing"], json!(["lib/engine.rs"]), "{result}");
    let blocks = summary_blocks(&result);
    assert!(
        blocks[1].contains("- lib/engine.rs (edited by you, "),
        "{}",
        blocks[1]
    );
    // `files: "history"` ignores the tracker.
    let result = manage(
        &mut server,
        json!({"checks": ["files"], "files": "history"}),
        Value::Null,
    );
    assert_eq!(
        check(&result["verification"], "files")["passed"],
        true,
        "{result}"
    );
}

#[test]
fn verify_report_mode_never_repairs() {
    let mut server = Server::start(&[], Value::Null);
    scripted_host(&mut server, vec!["Nothing useful.".into()]);
    let result = manage(
        &mut server,
        json!({"onFail": "report", "maxAddendumTokens": 1}),
        Value::Null,
    );
    assert_eq!(result["changed"], true, "{result}");
    assert_eq!(result["verification"]["passed"], false);
    assert_eq!(result["verification"]["repaired"], false);
    assert_eq!(
        summary_blocks(&result),
        vec!["## Conversation Summary\nNothing useful."]
    );
}

#[test]
fn verify_summary_method_is_deterministic_and_reports_refusal() {
    let mut server = Server::start(&[], Value::Null);
    let params = json!({"summary": "Nothing useful.", "messages": history(), "cwd": "/ws"});
    let first = server.call("roo/context/verifySummary", params.clone());
    let second = server.call("roo/context/verifySummary", params);
    assert_eq!(first, second);
    let addendum = first["addendum"].as_str().unwrap();
    assert!(addendum.starts_with("<system-reminder>\n"), "{first}");
    assert_eq!(first["verification"]["repaired"], true);
    let refused = server.call(
        "roo/context/verifySummary",
        json!({"summary": "x", "messages": history(), "verify": {"maxAddendumTokens": 5}}),
    );
    assert!(refused.get("addendum").is_none());
    assert!(
        refused["refused"]
            .as_str()
            .unwrap()
            .contains("maxAddendumTokens (5)")
    );
}

#[test]
fn verify_bad_options_are_invalid_params_naming_the_field() {
    let mut server = Server::start(&[], Value::Null);
    for (verify, field) in [
        (json!({"onFail": "sometimes"}), "onFail"),
        (json!({"checks": ["spelling"]}), "checks"),
        (json!({"maxAddendumTokens": -1}), "maxAddendumTokens"),
        (
            json!({"todos": [{"content": "x", "status": "later"}]}),
            "status",
        ),
        // An empty heading would be found in any summary (red team): refused, by index.
        (
            json!({"requiredSections": ["Context", " \t"]}),
            "verify.requiredSections[1]",
        ),
    ] {
        let error = server
            .request(
                "roo/context/verifySummary",
                json!({"summary": "s", "messages": [], "verify": verify}),
            )
            .unwrap_err();
        assert_eq!(error["code"], -32602, "{error}");
        assert!(
            error["message"].as_str().unwrap().contains(field),
            "{field}: {error}"
        );
    }
    // A closed set since the merge with the method table: decoding names the field.
    let error = server
        .request(
            "roo/context/verifySummary",
            json!({"summary": "s", "messages": [], "tokenCountMode": "roughly"}),
        )
        .unwrap_err();
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("field `tokenCountMode`"),
        "{error}"
    );
    let error = server
        .request("roo/context/verifySummary", json!({"messages": []}))
        .unwrap_err();
    assert!(
        error["message"].as_str().unwrap().contains("summary"),
        "{error}"
    );
}

#[test]
fn verify_survives_hostile_inputs() {
    // Lone surrogates in the latest message, a huge summary with repeated sections, 10k TODO
    // items, a constraint-like line inside a code block; then an empty summary.
    let mut server = RawServer::start();
    let todos: String = (0..10_000).map(|i| format!("[ ] item {i}\n")).collect();
    let mut messages = history();
    messages.push(tool_use(
        "t9",
        "update_todo_list",
        json!({"todos": todos}),
        5000,
    ));
    messages.push(json!({"role": "user", "content": "<user_message>emoji \u{1F600} split: LONE end\n```\nnever run this\n```\n</user_message>", "ts": 5001}));
    let summary = format!(
        "{}\n1. Primary Request and Intent:\n1. Primary Request and Intent:\n",
        "word ".repeat(200_000)
    );
    let params = json!({"summary": summary, "messages": messages, "verify": {"maxAddendumTokens": 1_000_000}});
    let params = serde_json::to_string(&params)
        .unwrap()
        .replace("LONE", "\\ud83d");
    let result = server.result("roo/context/verifySummary", &params);
    let raw = String::from_utf8_lossy(&result).into_owned();
    assert!(
        raw.contains("emoji \u{1F600} split: \\ud83d end"),
        "the lone escape comes back as sent"
    );
    let result = lenient(&result);
    let todos = check(&result["verification"], "todos");
    assert_eq!(todos["missingCount"], 10_000);
    assert_eq!(todos["missing"].as_array().unwrap().len(), 50);
    let addendum = result["addendum"].as_str().unwrap();
    assert!(addendum.contains("| 10000 | item 9999 | Pending |"));
    let constraints = check(&result["verification"], "constraints");
    assert!(
        !constraints.to_string().contains("never run this"),
        "{constraints}"
    );
    let sections = check(&result["verification"], "sections");
    assert_eq!(
        sections["found"], 1,
        "a repeated heading counts once: {sections}"
    );

    let params = serde_json::to_string(&json!({"summary": "", "messages": messages})).unwrap();
    let empty = lenient(&server.result("roo/context/verifySummary", &params));
    assert_eq!(empty["verification"]["passed"], false);
    assert!(
        empty["refused"].is_string(),
        "10k open TODOs exceed the default cap"
    );
    server.assert_alive();
}

/// `roo/context/manage` with `verify` judges the same options before anything else runs.
#[test]
fn manage_refuses_an_empty_required_section_before_asking_the_host() {
    let mut server = Server::start(&[], Value::Null);
    let error = server
        .request(
            "roo/context/manage",
            json!({
                "messages": [{"role": "user", "content": "hi"}],
                "totalTokens": 10, "contextWindow": 1000, "maxTokens": 100,
                "trigger": "manual", "verify": {"requiredSections": [""]}
            }),
        )
        .unwrap_err();
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("verify.requiredSections[0]"),
        "{error}"
    );
}
