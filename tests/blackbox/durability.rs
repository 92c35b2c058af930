//! An answer means its state is on disk (issue 25): `markRooEdited` and `ackNotice` answer only
//! once `seen.json` is written, and `shutdown` answers only once every open task has written its
//! last state, so a kill right after an answer, or `exit` right after `shutdown`, loses nothing
//! that was answered. Real binary, real watcher; absence is proven by a later, distinguishable
//! change first.

use serde_json::{Value, json};

use crate::harness::{Server, TaskSetup};

const CHANGED: &str = "roo/files/didChange";

impl TaskSetup {}

/// Red team: a kill right after `markRooEdited` was answered made the agent's own write come
/// back as a user edit after the restart (10 of 10): the announced content was not on disk yet.
#[test]
fn an_answered_mark_roo_edited_survives_a_kill_and_its_write_is_no_user_edit() {
    let mut s = TaskSetup::new(&[("a.ts", "original\n"), ("b.ts", "b\n")]);
    s.track_with("t", "a.ts", Some("original\n"));
    s.track_with("t", "b.ts", Some("b\n"));
    s.server.call(
        "roo/files/markRooEdited",
        json!({"taskId": "t", "path": "a.ts", "content": "agent\n"}),
    );
    s.restart_with(Server::kill, |_| {});
    // The agent's write lands while nobody watches.
    s.workspace.replace("a.ts", "agent\n");
    s.open("t");
    s.workspace.replace("b.ts", "b edited\n");
    assert_eq!(s.server.notification(CHANGED)["path"], "b.ts");
}

/// An answer that cannot be made durable is an error, never a silent `ok`: here `seen.json`'s
/// place is taken by a folder, so the index cannot be written.
#[test]
fn mark_roo_edited_and_ack_notice_answer_an_error_when_their_state_cannot_be_saved() {
    let mut s = TaskSetup::new(&[("a.ts", "original\n")]);
    let store = s.task_dir("t").join("roo-context");
    std::fs::create_dir_all(store.join("seen.json").join("occupied")).unwrap();
    s.track_with("t", "a.ts", Some("original\n"));
    let error = s
        .server
        .request(
            "roo/files/markRooEdited",
            json!({"taskId": "t", "path": "a.ts", "content": "agent\n"}),
        )
        .expect_err("not durable");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("seen.json"), "{error}");
}

/// Red team: after `shutdown` + `exit` right behind an `ackNotice`, the acknowledged notice came
/// back after the restart (11 of 15); and what the watcher judged last was not written either.
#[test]
fn an_acknowledged_notice_never_comes_back_after_shutdown_and_exit_right_behind_the_ack() {
    let mut s = TaskSetup::new(&[("a.ts", "one\ntwo\n"), ("b.ts", "b\n")]);
    s.track_with("t", "a.ts", Some("one\ntwo\n"));
    s.track_with("t", "b.ts", Some("b\n"));
    s.workspace.replace("a.ts", "one\nTWO\n");
    assert_eq!(s.server.notification(CHANGED)["path"], "a.ts");
    let notice = s.take_with_diffs("t");
    assert_eq!(notice["paths"], json!(["a.ts"]), "{notice}");
    let acked = s.server.call(
        "roo/files/ackNotice",
        json!({"taskId": "t", "noticeId": notice["noticeId"]}),
    );
    assert_eq!(acked["delivered"], json!(["a.ts"]), "{acked}");
    s.restart(|_| {});
    s.open("t");
    // Nothing comes back: the next change is a later edit of b.ts, and the take has only it.
    s.workspace.replace("b.ts", "b edited\n");
    assert_eq!(s.server.notification(CHANGED)["path"], "b.ts");
    assert_eq!(s.take_with_diffs("t")["paths"], json!(["b.ts"]));
}

/// Two server processes on one task folder would overwrite each other's files: the second one
/// is refused with an error naming the folder and the process holding it, until the first one
/// closes the task.
#[test]
fn a_second_process_opening_the_same_task_folder_is_refused_naming_the_holder() {
    let mut s = TaskSetup::new(&[("a.ts", "a\n")]);
    s.track_with("t", "a.ts", Some("a\n"));
    let holder = s.server.child().expect("a process").id();
    let dir = s.task_dir("t");
    let mut other = Server::start(&[s.workspace.root()], Value::Null);
    let params = json!({"taskId": "t", "storageDir": dir, "path": "a.ts", "source": "read_tool"});
    let error = other
        .request("roo/files/track", params.clone())
        .expect_err("the folder is in use");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains(&dir.display().to_string()), "{message}");
    assert!(message.contains(&format!("pid {holder}")), "{message}");
    // Once one process closes the task, the other may open it at once: the answer to
    // `disposeTask` comes after the folder's lock is released (it once came just before, and
    // the next open failed now and then). Handed back and forth to give a race room to show.
    s.server
        .call("roo/files/disposeTask", json!({"taskId": "t"}));
    other.call("roo/files/track", params.clone());
    for _ in 0..10 {
        other.call("roo/files/disposeTask", json!({"taskId": "t"}));
        s.server.call("roo/files/track", params.clone());
        s.server
            .call("roo/files/disposeTask", json!({"taskId": "t"}));
        other.call("roo/files/track", params.clone());
    }
}
