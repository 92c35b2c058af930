//! A reopened task watches its tracked files again (issue 19, part 2): after a server restart or
//! `disposeTask`, the first request that opens the task from its folder (`roo/files/track`,
//! `roo/files/read` with `storageDir`, a mention parse with `storageDir`) restores the watches of
//! its active records, and a file edited while nobody watched is reported once. Persisted state
//! is untrusted: blocked, outside, linked or missing files are never watched or read. Real
//! watcher, real temp folders; absence is proven by a later, distinguishable change first.

use serde_json::{Value, json};

use crate::harness::TaskSetup;

const CHANGED: &str = "roo/files/didChange";

impl TaskSetup {
    /// Every path the task's takes report, in order, until `last` is among them (at most ten
    /// seconds: the watcher's notice may come after the take is sent).
    fn take_until(&mut self, task: &str, last: &str) -> Vec<String> {
        let mut all = Vec::new();
        for _ in 0..100 {
            let taken = self.take_paths(task);
            all.extend(
                taken
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_owned),
            );
            if all.iter().any(|p| p == last) {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        all
    }

    /// The next `didChange` (of any file).
    fn next_change(&mut self) -> Value {
        self.server.notification(CHANGED)
    }
}

#[test]
fn a_file_edited_while_the_server_was_down_is_reported_once_after_the_restart() {
    let mut s = TaskSetup::new(&[("a.ts", "one\ntwo\nthree\n"), ("b.ts", "b\n")]);
    s.track("t", "a.ts");
    s.track("t", "b.ts");
    s.restart(|w| w.replace("a.ts", "one\nTWO\nthree\n"));
    // Nothing is watched before the task is used again.
    s.open("t");
    let offline = s.next_change();
    assert_eq!(
        offline,
        json!({"taskId": "t", "path": "a.ts", "kind": "modified",
               "diffStat": {"added": 1, "removed": 1, "hunks": 1}})
    );
    assert_eq!(s.take_paths("t"), json!(["a.ts"]));
    // Watched again: a later edit is reported, and a.ts is not reported a second time.
    s.workspace.replace("b.ts", "b edited\n");
    assert_eq!(s.next_change()["path"], "b.ts");
    // A second restart with nothing changed while down reports nothing (what the tracker had
    // judged was persisted): the next notification is the later edit of b.ts.
    s.restart(|_| {});
    s.open("t");
    s.workspace.replace("b.ts", "b edited again\n");
    assert_eq!(s.next_change()["path"], "b.ts");
    assert_eq!(s.take_paths("t"), json!(["b.ts"]));
}

#[test]
fn dispose_then_a_new_request_for_the_task_restores_its_watches() {
    let mut s = TaskSetup::new(&[("a.ts", "a\n"), ("b.ts", "b\n")]);
    s.track("t", "a.ts");
    assert_eq!(
        s.server
            .call("roo/files/disposeTask", json!({"taskId": "t"}))["disposed"],
        true
    );
    s.workspace.replace("a.ts", "edited while disposed\n");
    // Opened again by tracking another file: a.ts is watched again and its edit reported once.
    s.track("t", "b.ts");
    let change = s.next_change();
    assert_eq!(
        (&change["path"], &change["kind"]),
        (&json!("a.ts"), &json!("modified"))
    );
    s.workspace.replace("b.ts", "b edited\n");
    assert_eq!(s.next_change()["path"], "b.ts");
    assert_eq!(s.take_paths("t"), json!(["a.ts", "b.ts"]));
}

#[test]
fn an_edit_made_while_the_task_is_being_restored_is_never_lost() {
    let mut s = TaskSetup::new(&[("a.ts", "v1\n"), ("b.ts", "b\n")]);
    s.track("t", "a.ts");
    s.restart(|w| w.replace("a.ts", "v2 offline\n"));
    let dir = s.task_dir("t");
    // No wait between opening and the next edit: it races the restore.
    let id = s
        .server
        .send_request("roo/files/read", json!({"taskId": "t", "storageDir": dir}));
    s.workspace.replace("a.ts", "v3 during restore\n");
    s.server.response(id);
    // One or two notifications (the two edits may be judged together): then the take names
    // a.ts, and the diff ends at what is on disk now.
    assert_eq!(s.next_change()["path"], "a.ts");
    let notice = s.server.call(
        "roo/files/takeRecentlyModified",
        json!({"taskId": "t", "withDiffs": true, "limits": {"timeoutMs": 10000}}),
    );
    assert_eq!(notice["paths"], json!(["a.ts"]));
    let diff = notice["changes"][0]["diff"].as_str().unwrap_or_default();
    assert!(
        diff.contains("+v3 during restore\n") || diff.contains("+v2 offline\n"),
        "{notice}"
    );
    // Whatever was judged last, the file is watched: a distinguishable edit arrives.
    s.workspace.replace("b.ts", "unused\n");
    s.workspace.replace("a.ts", "v4\n");
    loop {
        let change = s.next_change();
        if change["path"] == "a.ts" && s.workspace.path("a.ts").exists() {
            let notice = s.server.call(
                "roo/files/takeRecentlyModified",
                json!({"taskId": "t", "withDiffs": true, "limits": {"timeoutMs": 10000}}),
            );
            if notice["changes"][0]["diff"]
                .as_str()
                .is_some_and(|d| d.contains("+v4\n"))
            {
                break;
            }
        }
    }
}

#[test]
fn a_file_blocked_now_is_not_watched_again_after_the_restart() {
    let mut s = TaskSetup::new(&[("secret.ts", "s\n"), ("a.ts", "a\n")]);
    s.track("t", "secret.ts");
    s.track("t", "a.ts");
    s.restart(|w| {
        w.write(".rooignore", "secret.ts\n");
        w.replace("secret.ts", "edited while down\n");
    });
    s.open("t");
    s.workspace.replace("secret.ts", "edited after\n");
    s.workspace.replace("a.ts", "a edited\n");
    assert_eq!(s.next_change()["path"], "a.ts");
    assert_eq!(s.take_paths("t"), json!(["a.ts"]));
}

/// A hand-written (hostile) task folder: records and bases pointing outside the workspace,
/// through `..`, absolute paths and links, plus a corrupt baseline. Nothing outside the rules
/// is watched; the one legitimate file still is.
#[test]
fn hostile_persisted_paths_make_nothing_outside_the_rules_watched() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("o.txt"), "outside\n").unwrap();
    let mut s = TaskSetup::new(&[
        ("a.ts", "a\n"),
        ("secret.env", "k=v\n"),
        (".rooignore", "*.env\n"),
    ]);
    s.workspace
        .symlink(s.workspace.path("secret.env"), "link.ts");
    let outside_file = outside.path().join("o.txt");
    let records: Vec<Value> = [
        "../o.txt".to_owned(),
        outside_file.to_string_lossy().into_owned(),
        "link.ts".to_owned(),
        "secret.env".to_owned(),
        "escape".to_owned(),
        "a.ts".to_owned(),
    ]
    .iter()
    .map(|p| {
        json!({"path": p, "record_state": "active", "record_source": "read_tool",
               "roo_read_date": 1, "roo_edit_date": null, "user_edit_date": null})
    })
    .collect();
    let dir = s.task_dir("t");
    std::fs::write(
        dir.join("task_metadata.json"),
        json!({"files_in_context": records}).to_string(),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("roo-context/seen")).unwrap();
    let index = json!({"version": 1, "files": {}, "watched": {
        "escape": {"base": outside.path().join("o.txt/..")},
        "relative": {"base": "not/absolute"},
        "../o.txt": {"base": s.workspace.root()},
        "a.ts": {"base": s.workspace.root(), "known": "not a fingerprint"},
    }});
    std::fs::write(dir.join("roo-context/seen.json"), index.to_string()).unwrap();
    std::fs::write(outside.path().join("escape"), "outside too\n").unwrap();
    // A FIFO where a tracked file was: never opened in a way that could block the restore.
    let fifo = s.workspace.path("fifo.ts");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let mut metadata: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("task_metadata.json")).unwrap())
            .unwrap();
    metadata["files_in_context"]
        .as_array_mut()
        .unwrap()
        .push(json!({"path": "fifo.ts", "record_state": "active", "record_source": "read_tool"}));
    std::fs::write(dir.join("task_metadata.json"), metadata.to_string()).unwrap();
    s.open("t");
    for file in ["o.txt", "escape"] {
        std::fs::write(outside.path().join(file), "changed outside\n").unwrap();
    }
    s.workspace.replace("secret.env", "k=changed\n");
    s.workspace.replace("a.ts", "a edited\n");
    let change = s.next_change();
    assert_eq!(change["path"], "a.ts", "{change}");
    assert_eq!(s.take_paths("t"), json!(["a.ts"]));
}

#[test]
fn a_missing_or_corrupt_baseline_restores_the_watch_without_a_false_report() {
    let mut s = TaskSetup::new(&[("a.ts", "a\n"), ("b.ts", "b\n")]);
    s.track("t", "a.ts");
    s.track("t", "b.ts");
    let store = s.task_dir("t").join("roo-context");
    s.restart(|_| {
        // An index from before the restore existed (no `watched`), and the blobs gone or
        // tampered: nothing says what the agent saw, so nothing is reported for it.
        let mut index: Value =
            serde_json::from_str(&std::fs::read_to_string(store.join("seen.json")).unwrap())
                .unwrap();
        index.as_object_mut().unwrap().remove("watched");
        std::fs::write(store.join("seen.json"), index.to_string()).unwrap();
        let mut blobs: Vec<_> = std::fs::read_dir(store.join("seen"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        blobs.sort();
        std::fs::write(&blobs[0], "tampered\n").unwrap();
        std::fs::remove_file(&blobs[1]).unwrap();
    });
    s.open("t");
    s.workspace.replace("b.ts", "b edited\n");
    assert_eq!(s.next_change()["path"], "b.ts");
    s.workspace.replace("a.ts", "a edited\n");
    assert_eq!(s.next_change()["path"], "a.ts");
    assert_eq!(s.take_paths("t"), json!(["b.ts", "a.ts"]));
}

#[test]
fn thousands_of_restored_files_are_watched_and_other_tasks_keep_being_served() {
    const FILES: usize = 3000;
    let names: Vec<String> = (0..FILES).map(|i| format!("f/{i}.ts")).collect();
    let files: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "x\n")).collect();
    let mut s = TaskSetup::new(&files);
    s.workspace.write("other.ts", "o\n");
    let dir = s.task_dir("big");
    let ids: Vec<i64> = names
        .iter()
        .map(|p| {
            s.server.send_request(
                "roo/files/track",
                json!({"taskId": "big", "storageDir": dir, "path": p, "source": "read_tool"}),
            )
        })
        .collect();
    for id in ids {
        assert_eq!(s.server.response(id)["result"]["watched"], true);
    }
    s.restart(|w| w.replace("f/0.ts", "edited while down\n"));
    // The restore and another task's requests interleave; both are served.
    let opened = s.server.send_request(
        "roo/files/read",
        json!({"taskId": "big", "storageDir": dir}),
    );
    s.track("other", "other.ts");
    s.server.response(opened);
    s.workspace.replace("other.ts", "o edited\n");
    s.workspace.replace("f/2999.ts", "edited\n");
    let mut seen = Vec::new();
    while seen.len() < 3 {
        let change = s.next_change();
        seen.push(format!(
            "{}:{}",
            change["taskId"].as_str().unwrap(),
            change["path"].as_str().unwrap()
        ));
    }
    seen.sort();
    assert_eq!(seen, ["big:f/0.ts", "big:f/2999.ts", "other:other.ts"]);
    assert_eq!(s.take_paths("big"), json!(["f/0.ts", "f/2999.ts"]));
}

#[test]
fn a_task_folder_deleted_while_running_keeps_reporting_and_cannot_be_reopened() {
    let mut s = TaskSetup::new(&[("a.ts", "a\n")]);
    s.track("t", "a.ts");
    let dir = s.task_dir("t");
    std::fs::remove_dir_all(&dir).unwrap();
    // The records cannot be written any more; the user still hears about the edit, and the
    // deleted folder is not brought back (the baseline store once recreated it).
    s.workspace.replace("a.ts", "a edited\n");
    assert_eq!(s.next_change()["path"], "a.ts");
    assert!(!dir.exists());
    // Disposing says the last write failed, naming the file; the task is forgotten anyway.
    let disposed = s
        .server
        .request("roo/files/disposeTask", json!({"taskId": "t"}))
        .unwrap_err();
    assert_eq!(disposed["code"], -32603, "{disposed}");
    assert!(
        disposed["message"]
            .as_str()
            .unwrap()
            .contains("task_metadata.json")
    );
    assert!(!dir.exists());
    let reopened = s
        .server
        .request("roo/files/read", json!({"taskId": "t", "storageDir": dir}));
    let error = reopened.unwrap_err();
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("storageDir"),
        "{error}"
    );
    // Still serving.
    assert_eq!(s.track("u", "a.ts")["watched"], true);
}

/// Red team: the agent announces a write (`markRooEdited`), the task is closed before the write
/// lands, and the write lands after the task was reopened. Neither the old content (seen by the
/// restore) nor the agent's own write is a user edit: the "not a user edit" window of the
/// announced write survives the reopen.
#[test]
fn an_agent_write_announced_before_a_dispose_and_landing_after_the_reopen_is_no_user_edit() {
    let mut s = TaskSetup::new(&[("a.ts", "original\n"), ("b.ts", "b\n")]);
    s.track("t", "a.ts");
    s.server.call(
        "roo/files/markRooEdited",
        json!({"taskId": "t", "path": "a.ts", "content": "agent\n"}),
    );
    assert_eq!(
        s.server
            .call("roo/files/disposeTask", json!({"taskId": "t"}))["disposed"],
        true
    );
    s.track("t", "b.ts");
    s.workspace.replace("a.ts", "agent\n");
    // Absence proven by a later, distinguishable change: b.ts is the first one reported.
    s.workspace.replace("b.ts", "b edited\n");
    assert_eq!(s.next_change()["path"], "b.ts");
    assert_eq!(s.take_paths("t"), json!(["b.ts"]));
    // Once the agent's content was seen, the old content again is an edit (an undo).
    s.workspace.replace("a.ts", "original\n");
    assert_eq!(s.next_change()["path"], "a.ts");
}

/// Red team: `disposeTask` sent right behind the request that reopens a task may land in the
/// same actor batch as the restore's observations; what the agent last saw must still be
/// persisted, or the next reopen adopts an offline edit silently. (A dispose that wins the race
/// against the restore leaves the offline edit to the next reopen: reported then.)
#[test]
fn a_dispose_right_behind_the_reopen_never_loses_an_offline_edit() {
    let tasks = ["t0", "t1", "t2", "t3", "t4", "t5"];
    let mut s = TaskSetup::new(&[("a.ts", "v1\n"), ("b.ts", "b\n")]);
    for task in tasks {
        s.track(task, "a.ts");
    }
    s.restart(|w| w.replace("a.ts", "v2 offline\n"));
    for task in tasks {
        let dir = s.task_dir(task);
        let open = s
            .server
            .send_request("roo/files/read", json!({"taskId": task, "storageDir": dir}));
        let dispose = s
            .server
            .send_request("roo/files/disposeTask", json!({"taskId": task}));
        s.server.response(open);
        s.server.response(dispose);
    }
    s.workspace.replace("a.ts", "v3 while disposed\n");
    for task in tasks {
        s.track(task, "b.ts");
    }
    s.workspace.replace("b.ts", "b edited\n");
    for task in tasks {
        // Each task reports b.ts; a.ts (restored and changed) must come before or with it.
        assert_eq!(s.take_until(task, "b.ts"), ["a.ts", "b.ts"], "{task}");
    }
}

/// Red team: a `track` queued behind a slow one and followed at once by `disposeTask` lands in
/// the same actor batch as the dispose: what the agent saw must be persisted as it was before
/// the dispose stopped the watches, or the next reopen adopts an offline edit silently.
#[test]
fn a_track_in_the_same_batch_as_a_dispose_keeps_what_the_agent_saw() {
    let big: String = (0..20_000)
        .map(|i| format!("line {i} of a big file\n"))
        .collect();
    let tasks = ["t0", "t1", "t2", "t3", "t4", "t5"];
    let mut s = TaskSetup::new(&[
        ("a.ts", "v1\0 binary: no baseline\n"),
        ("b.ts", "b\n"),
        ("big.ts", &big),
    ]);
    for task in tasks {
        s.track(task, "a.ts");
        let dir = s.task_dir(task);
        let slow = s.server.send_request(
            "roo/files/track",
            json!({"taskId": task, "storageDir": dir, "path": "big.ts", "source": "read_tool"}),
        );
        let again = s.server.send_request(
            "roo/files/track",
            json!({"taskId": task, "storageDir": dir, "path": "a.ts", "source": "read_tool"}),
        );
        let dispose = s
            .server
            .send_request("roo/files/disposeTask", json!({"taskId": task}));
        s.server.response(slow);
        s.server.response(again);
        s.server.response(dispose);
    }
    s.workspace.replace("a.ts", "v2\0 while disposed\n");
    for task in tasks {
        s.track(task, "b.ts");
    }
    s.workspace.replace("b.ts", "b edited\n");
    for task in tasks {
        assert_eq!(s.take_until(task, "b.ts"), ["a.ts", "b.ts"], "{task}");
    }
}
