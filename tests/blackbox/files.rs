//! File context tracking over stdio: records in `task_metadata.json`, user edits reported with
//! `roo/files/didChange`, the agent's own writes and identical saves not reported, rename and
//! delete, existing files reloaded losslessly, durability under SIGKILL and no lost update under
//! a flood of concurrent requests. Waits on notifications; absence is proven by a later,
//! distinguishable change arriving first.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;

use serde_json::{Value, json};

use crate::harness::{DEADLINE, Fixture, Server, TaskSetup, binary, file_uri};

const CHANGED: &str = "roo/files/didChange";

/// A workspace plus a separate storage base (task folders live outside the workspace).
impl TaskSetup {
    fn take_set(&mut self, method: &str, task: &str) -> Value {
        self.server.call(method, json!({"taskId": task}))["paths"].clone()
    }
}

fn summary(metadata: &Value) -> Vec<(String, String, String)> {
    metadata["files_in_context"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["path"].as_str().unwrap().to_owned(),
                e["record_state"].as_str().unwrap().to_owned(),
                e["record_source"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn row(path: &str, state: &str, source: &str) -> (String, String, String) {
    (path.into(), state.into(), source.into())
}

#[test]
fn a_user_edit_on_disk_is_notified_and_the_read_record_goes_stale() {
    let mut s = TaskSetup::new(&[("src/a.ts", "one\n")]);
    let result = s.track_from("t1", "src/a.ts", "read_tool");
    assert_eq!(result, json!({"watched": true}));
    s.workspace.replace("src/a.ts", "two\n");
    let change = s.server.notification(CHANGED);
    assert_eq!(
        change,
        json!({"taskId": "t1", "path": "src/a.ts", "kind": "modified",
               "diffStat": {"added": 1, "removed": 1, "hunks": 1}})
    );
    assert_eq!(
        summary(&s.metadata("t1")),
        [
            row("src/a.ts", "stale", "read_tool"),
            row("src/a.ts", "active", "user_edited")
        ]
    );
    let user = &s.metadata("t1")["files_in_context"][1];
    assert!(user["user_edit_date"].as_i64().unwrap() > 0);
    assert_eq!(
        user["roo_read_date"],
        s.metadata("t1")["files_in_context"][0]["roo_read_date"]
    );
    assert_eq!(
        s.take_set("roo/files/takeRecentlyModified", "t1"),
        json!(["src/a.ts"])
    );
    assert_eq!(
        s.take_set("roo/files/takeRecentlyModified", "t1"),
        json!([])
    );
    let read = s.server.call("roo/files/read", json!({"taskId": "t1"}));
    assert_eq!(read, json!({"paths": ["src/a.ts"]}));
}

#[test]
fn the_agent_own_write_is_not_a_user_edit_but_the_next_user_edit_is() {
    let mut s = TaskSetup::new(&[("a.ts", "original\n"), ("b.ts", "b\n")]);
    s.track_from("t", "a.ts", "read_tool");
    s.track_from("t", "b.ts", "read_tool");
    // Marked before the write, as a host should: then no timing can misjudge it.
    s.server.call(
        "roo/files/markRooEdited",
        json!({"taskId": "t", "path": "a.ts", "content": "agent\n"}),
    );
    s.workspace.replace("a.ts", "agent\n");
    s.track_from("t", "a.ts", "roo_edited");
    // A distinguishable later change: it must be the first notification.
    s.workspace.replace("b.ts", "user edit\n");
    let first = s.server.notification(CHANGED);
    assert_eq!(first["path"], "b.ts", "{first}");
    assert_eq!(
        s.take_set("roo/files/takeRecentlyModified", "t"),
        json!(["b.ts"])
    );
    assert_eq!(
        s.take_set("roo/files/takeCheckpointPossible", "t"),
        json!(["a.ts"])
    );
    // A user edit right after the agent's is reported.
    s.workspace.replace("a.ts", "user after agent\n");
    let next = s.server.notification(CHANGED);
    // Its stat is against what the agent wrote (one line replaced).
    assert_eq!(
        next,
        json!({"taskId": "t", "path": "a.ts", "kind": "modified",
               "diffStat": {"added": 1, "removed": 1, "hunks": 1}})
    );
}

#[test]
fn a_save_with_identical_content_is_not_reported() {
    let mut s = TaskSetup::new(&[("a.ts", "same\n"), ("b.ts", "b\n")]);
    s.track_from("t", "a.ts", "read_tool");
    s.track_from("t", "b.ts", "file_mentioned");
    s.workspace.replace("a.ts", "same\n");
    s.workspace.write("a.ts", "same\n");
    s.workspace.replace("b.ts", "different\n");
    let first = s.server.notification(CHANGED);
    assert_eq!(
        first,
        json!({"taskId": "t", "path": "b.ts", "kind": "modified",
               "diffStat": {"added": 1, "removed": 1, "hunks": 1}})
    );
    assert_eq!(
        s.take_set("roo/files/takeRecentlyModified", "t"),
        json!(["b.ts"])
    );
    assert_eq!(
        summary(&s.metadata("t")),
        [
            row("a.ts", "active", "read_tool"),
            row("b.ts", "stale", "file_mentioned"),
            row("b.ts", "active", "user_edited")
        ]
    );
}

#[test]
fn rename_and_delete_are_reported_with_their_kind() {
    let mut s = TaskSetup::new(&[("src/a.ts", "a"), ("src/b.ts", "b")]);
    s.track_from("t", "src/a.ts", "read_tool");
    s.track_from("t", "src/b.ts", "read_tool");
    std::fs::rename(s.workspace.path("src/a.ts"), s.workspace.path("src/c.ts")).unwrap();
    let renamed = s.server.notification(CHANGED);
    assert_eq!(
        renamed,
        json!({"taskId": "t", "path": "src/a.ts", "kind": "renamed", "newPath": "src/c.ts"})
    );
    std::fs::remove_file(s.workspace.path("src/b.ts")).unwrap();
    let deleted = s.server.notification(CHANGED);
    assert_eq!(
        deleted,
        json!({"taskId": "t", "path": "src/b.ts", "kind": "deleted"})
    );
    // Recreated later: the new content is a modification.
    s.workspace.write("src/b.ts", "back");
    let back = s.server.notification(CHANGED);
    assert_eq!(back["kind"], "modified");
    assert_eq!(
        s.take_set("roo/files/takeRecentlyModified", "t"),
        json!(["src/a.ts", "src/b.ts"])
    );
}

#[test]
fn an_editor_buffer_change_is_reported_once_and_the_matching_save_is_not() {
    let mut s = TaskSetup::new(&[("a.ts", "disk\n"), ("b.ts", "b\n")]);
    s.track_from("t", "a.ts", "read_tool");
    s.track_from("t", "b.ts", "read_tool");
    let uri = file_uri(&s.workspace.path("a.ts"));
    s.server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri, "languageId": "typescript", "version": 1, "text": "disk\n"}}),
    );
    s.server.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": "typed\n"}]}),
    );
    let change = s.server.notification(CHANGED);
    assert_eq!(
        change,
        json!({"taskId": "t", "path": "a.ts", "kind": "modified"})
    );
    // Saving the same text: nothing new. Proven by the later change on b arriving first.
    s.workspace.replace("a.ts", "typed\n");
    s.server.notify(
        "textDocument/didSave",
        json!({"textDocument": {"uri": uri}}),
    );
    s.workspace.replace("b.ts", "b2\n");
    let first = s.server.notification(CHANGED);
    assert_eq!(first["path"], "b.ts");
}

#[test]
fn an_existing_metadata_file_in_the_original_format_loads_and_round_trips() {
    let mut s = TaskSetup::new(&[("src/a.ts", "a"), ("src/b.ts", "b")]);
    let dir = s.task_dir("old");
    let entry_a = r#"{"path":"src/a.ts","record_state":"active","record_source":"read_tool","roo_read_date":1700000000000,"roo_edit_date":null,"user_edit_date":null,"x_future":[1]}"#;
    let entry_b = r#"{"path":"src/b.ts","record_state":"stale","record_source":"roo_edited","roo_read_date":1700000000500,"roo_edit_date":1700000000500}"#;
    let original = format!(
        r#"{{"schema":"roo-3.52","files_in_context":[{entry_a},{entry_b}],"tail":{{"k":null}}}}"#
    );
    std::fs::write(dir.join("task_metadata.json"), &original).unwrap();
    let read = s.server.call(
        "roo/files/read",
        json!({"taskId": "old", "storageDir": dir}),
    );
    assert_eq!(read, json!({"paths": ["src/a.ts"]}));
    // Reading changes nothing on disk.
    assert_eq!(
        std::fs::read_to_string(dir.join("task_metadata.json")).unwrap(),
        original
    );
    s.track_from("old", "src/b.ts", "read_tool");
    let written = std::fs::read_to_string(dir.join("task_metadata.json")).unwrap();
    let prefix = format!(r#"{{"schema":"roo-3.52","files_in_context":[{entry_a},{entry_b},"#);
    assert!(written.starts_with(&prefix), "{written}");
    assert!(written.ends_with(r#"],"tail":{"k":null}}"#), "{written}");
    let new_entry: Value = serde_json::from_str(
        &written[prefix.len()..written.len() - r#"],"tail":{"k":null}}"#.len()],
    )
    .unwrap();
    assert_eq!(new_entry["record_state"], "active");
    assert_eq!(new_entry["roo_edit_date"], 1_700_000_000_500_i64);
    let read = s.server.call("roo/files/read", json!({"taskId": "old"}));
    assert_eq!(read, json!({"paths": ["src/b.ts", "src/a.ts"]}));
}

#[test]
fn a_corrupt_metadata_file_is_moved_aside_and_reported_never_overwritten() {
    let mut s = TaskSetup::new(&[("a.ts", "a")]);
    let dir = s.task_dir("bad");
    std::fs::write(
        dir.join("task_metadata.json"),
        "{\"files_in_context\":[{\"pa",
    )
    .unwrap();
    let result = s.track_from("bad", "a.ts", "read_tool");
    let moved_to = PathBuf::from(result["recovery"]["movedTo"].as_str().unwrap());
    assert!(
        result["recovery"]["error"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
    assert_eq!(
        std::fs::read_to_string(&moved_to).unwrap(),
        "{\"files_in_context\":[{\"pa"
    );
    assert!(
        moved_to
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("task_metadata.json.corrupt-")
    );
    assert_eq!(
        summary(&s.metadata("bad")),
        [row("a.ts", "active", "read_tool")]
    );
    // Reported once.
    let again = s.track_from("bad", "a.ts", "read_tool");
    assert_eq!(again, json!({"watched": true}));
}

#[test]
fn bad_requests_get_clear_outcomes() {
    let mut s = TaskSetup::new(&[
        ("a.ts", "a"),
        (".rooignore", "secret.txt\n"),
        ("secret.txt", "s"),
    ]);
    let error = s
        .server
        .request(
            "roo/files/takeRecentlyModified",
            json!({"taskId": "nobody"}),
        )
        .unwrap_err();
    assert_eq!(error["code"], -32602);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("unknown taskId `nobody`"),
        "{error}"
    );
    let missing = s.storage.path().join("does-not-exist");
    let error = s
        .server
        .request(
            "roo/files/track",
            json!({"taskId": "t", "storageDir": missing, "path": "a.ts", "source": "read_tool"}),
        )
        .unwrap_err();
    assert_eq!(error["code"], -32602);
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("does not exist"),
        "{error}"
    );
    let dir = s.task_dir("t");
    let error = s
        .server
        .request(
            "roo/files/track",
            json!({"taskId": "t", "storageDir": dir, "path": "a.ts", "source": "looked_at"}),
        )
        .unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("field `source`"),
        "{error}"
    );
    // Outside every workspace folder: recorded, not watched.
    let outside = s.storage.path().join("outside.txt");
    std::fs::write(&outside, "x").unwrap();
    let result = s.track_from("t", outside.to_str().unwrap(), "read_tool");
    assert_eq!(
        result,
        json!({"watched": false, "notWatchedReason": "outsideWorkspace"})
    );
    // Blocked by .rooignore: recorded, not watched, never reported.
    let result = s.track_from("t", "secret.txt", "read_tool");
    assert_eq!(
        result,
        json!({"watched": false, "notWatchedReason": "blocked"})
    );
    s.workspace.replace("secret.txt", "changed");
    std::fs::write(&outside, "changed").unwrap();
    s.track_from("t", "a.ts", "read_tool");
    s.workspace.replace("a.ts", "changed");
    let first = s.server.notification(CHANGED);
    assert_eq!(first["path"], "a.ts");
    assert_eq!(
        summary(&s.metadata("t")).len(),
        4,
        "outside, secret, a (read), a (user)"
    );
}

#[test]
fn a_disposed_task_stops_watching_and_is_forgotten() {
    let mut s = TaskSetup::new(&[("a.ts", "a"), ("b.ts", "b")]);
    s.track_from("gone", "a.ts", "read_tool");
    s.track_from("kept", "b.ts", "read_tool");
    let result = s
        .server
        .call("roo/files/disposeTask", json!({"taskId": "gone"}));
    assert_eq!(result, json!({"disposed": true}));
    let result = s
        .server
        .call("roo/files/disposeTask", json!({"taskId": "gone"}));
    assert_eq!(result, json!({"disposed": false}));
    s.workspace.replace("a.ts", "changed");
    s.workspace.replace("b.ts", "changed");
    let first = s.server.notification(CHANGED);
    assert_eq!(first["taskId"], "kept");
    let error = s
        .server
        .request("roo/files/read", json!({"taskId": "gone"}))
        .unwrap_err();
    assert_eq!(error["code"], -32602);
    // Reopened from its folder, it continues the same history.
    let dir = s.task_dir("gone");
    let read = s.server.call(
        "roo/files/read",
        json!({"taskId": "gone", "storageDir": dir}),
    );
    assert_eq!(read, json!({"paths": ["a.ts"]}));
}

fn track_request(id: i64, task: &str, dir: &Path, path: &str) -> Vec<u8> {
    let message = json!({"jsonrpc": "2.0", "id": id, "method": "roo/files/track",
        "params": {"taskId": task, "storageDir": dir, "path": path, "source": "read_tool", "content": path}});
    crate::harness::frame(&message.to_string())
}

#[test]
fn a_thousand_concurrent_tracks_across_ten_tasks_are_all_persisted_in_order() {
    let mut s = TaskSetup::new(&[("a.ts", "a")]);
    const TASKS: usize = 10;
    const PER_TASK: usize = 100;
    let dirs: Vec<PathBuf> = (0..TASKS)
        .map(|t| s.task_dir(&format!("task{t}")))
        .collect();
    let mut batch = Vec::new();
    let mut ids = Vec::new();
    for i in 0..PER_TASK {
        for (t, dir) in dirs.iter().enumerate() {
            let id = 1_000_000 + (i * TASKS + t) as i64;
            batch.extend(track_request(
                id,
                &format!("task{t}"),
                dir,
                &format!("f{i}.ts"),
            ));
            ids.push(id);
        }
    }
    s.server.send_raw(&batch);
    for id in ids {
        let response = s.server.response(id);
        assert!(response.get("error").is_none(), "{response}");
    }
    for t in 0..TASKS {
        let rows = summary(&s.metadata(&format!("task{t}")));
        let paths: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
        let expected: Vec<String> = (0..PER_TASK).map(|i| format!("f{i}.ts")).collect();
        assert_eq!(paths, expected, "task{t}: lost or reordered updates");
    }
}

#[test]
fn sigkill_during_a_burst_of_writes_leaves_every_metadata_file_whole() {
    let mut s = TaskSetup::new(&[("a.ts", "a")]);
    const TASKS: usize = 5;
    let dirs: Vec<PathBuf> = (0..TASKS).map(|t| s.task_dir(&format!("k{t}"))).collect();
    let mut batch = Vec::new();
    let mut ids = Vec::new();
    for i in 0..400 {
        let t = i % TASKS;
        let id = 5_000 + i as i64;
        batch.extend(track_request(
            id,
            &format!("k{t}"),
            &dirs[t],
            &format!("file-{i}.ts"),
        ));
        ids.push((id, t));
    }
    s.server.send_raw(&batch);
    // Wait for part of the burst to be acknowledged, then SIGKILL (Drop kills the child).
    let mut acknowledged = [0usize; TASKS];
    for (id, t) in ids.iter().take(60) {
        assert!(s.server.response(*id).get("error").is_none());
        acknowledged[*t] += 1;
    }
    let TaskSetup {
        server, storage, ..
    } = s;
    drop(server);
    let mut fresh = Server::start(&[storage.path()], Value::Null);
    for (t, dir) in dirs.iter().enumerate() {
        let text = std::fs::read_to_string(dir.join("task_metadata.json")).unwrap();
        let parsed: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("k{t}: {e}: {text}"));
        let entries = parsed["files_in_context"].as_array().unwrap();
        assert!(
            entries.len() >= acknowledged[t],
            "k{t}: acknowledged writes lost"
        );
        // The tracked files do not exist on disk, so the watcher may already have recorded some
        // of them as deleted by the user (`user_edited`): only read records are "read" paths.
        let read_records = entries
            .iter()
            .filter(|e| {
                matches!(
                    e["record_source"].as_str(),
                    Some("read_tool" | "file_mentioned")
                )
            })
            .count();
        let read = fresh.call(
            "roo/files/read",
            json!({"taskId": format!("k{t}"), "storageDir": dir}),
        );
        assert!(read.get("recovery").is_none(), "{read}");
        assert_eq!(read["paths"].as_array().unwrap().len(), read_records);
    }
}

#[test]
fn the_watch_command_prints_changes_of_the_files_it_tracks() {
    let fixture = Fixture::new(&[("src/a.ts", "a"), ("b.ts", "b")]);
    let mut child = Command::new(binary())
        .args(["watch", "--workspace"])
        .arg(fixture.root())
        .args(["src/a.ts", "b.ts"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    let stderr = child.stderr.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let err_tx = tx.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let _ = err_tx.send(format!("stderr {line}"));
        }
    });
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(format!("stdout {line}"));
        }
    });
    let next = || rx.recv_timeout(DEADLINE).expect("watch printed nothing");
    let ready = next();
    assert!(ready.starts_with("stderr ready ms="), "{ready}");
    assert!(ready.contains("files=2"), "{ready}");
    fixture.replace("b.ts", "b");
    fixture.replace("src/a.ts", "changed");
    assert_eq!(next(), "stdout modified src/a.ts");
    std::fs::remove_file(fixture.path("b.ts")).unwrap();
    assert_eq!(next(), "stdout deleted  b.ts");
    let _ = child.kill();
    let _ = child.wait();
}
