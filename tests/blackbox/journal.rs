//! The journals beside `task_metadata.json` and `seen.json` (issue 25), attacked through the
//! real binary: SIGKILL at many points of bursts that cross compactions, garbage and torn
//! tails appended to both journals, a journal removed while the task is open. After each, the
//! task opens with every answered record, none twice, and a file that parses.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

/// Enough records that both files are past the small-state bound, so batches are appended.
const FILES: usize = 150;

fn content(path: &str) -> String {
    format!("export const v = {path:?};\n")
}

struct Task {
    workspace: Fixture,
    storage: tempfile::TempDir,
}

impl Task {
    fn new(paths: &[String]) -> Task {
        let files: Vec<(String, String)> = paths.iter().map(|p| (p.clone(), content(p))).collect();
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(p, c)| (p.as_str(), c.as_str()))
            .collect();
        Task {
            workspace: Fixture::new(&files),
            storage: tempfile::tempdir().unwrap(),
        }
    }

    fn dir(&self) -> PathBuf {
        self.storage.path().to_path_buf()
    }

    fn start(&self) -> Server {
        Server::start(&[self.workspace.root()], Value::Null)
    }

    fn track_request(&self, server: &mut Server, path: &str) -> i64 {
        server.send_request(
            "roo/files/track",
            json!({"taskId": "t", "storageDir": self.dir(), "path": path,
                   "source": "read_tool", "content": content(path)}),
        )
    }

    fn track(&self, server: &mut Server, path: &str) -> Result<Value, Value> {
        let id = self.track_request(server, path);
        let response = server.response(id);
        match response.get("error") {
            Some(error) => Err(error.clone()),
            None => Ok(response["result"].clone()),
        }
    }

    /// Opens the task in `server` and returns the paths it has read (newest first).
    fn open(&self, server: &mut Server) -> Vec<String> {
        let read = server.call(
            "roo/files/read",
            json!({"taskId": "t", "storageDir": self.dir()}),
        );
        assert!(read.get("recovery").is_none(), "{read}");
        serde_json::from_value(read["paths"].clone()).unwrap()
    }

    fn metadata_file(&self) -> Value {
        let text = std::fs::read_to_string(self.dir().join("task_metadata.json")).unwrap();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
    }

    fn journal_lines(&self, name: &str) -> usize {
        std::fs::read(self.journal(name))
            .map(|bytes| bytes.iter().filter(|b| **b == b'\n').count())
            .unwrap_or(0)
    }

    fn journal(&self, name: &str) -> PathBuf {
        match name {
            "seen.journal" => self.dir().join("roo-context").join(name),
            _ => self.dir().join(name),
        }
    }
}

/// Every `read_tool` record of `metadata`, counted by path.
fn read_records(metadata: &Value) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for entry in metadata["files_in_context"].as_array().unwrap() {
        if entry["record_source"] == "read_tool" {
            *counts
                .entry(entry["path"].as_str().unwrap().to_owned())
                .or_default() += 1;
        }
    }
    counts
}

fn append(path: &Path, bytes: &[u8]) {
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

/// SIGKILL after a varying number of answers of a pipelined burst (tracks and announced
/// writes, so both journals take records and compactions fall at different points), then a
/// new process: every answered track is there, the files parse, and after the last clean
/// shutdown no track was recorded twice (a record replayed after its compaction would be).
#[test]
fn sigkill_at_many_points_of_bursts_never_loses_an_answered_record_nor_applies_one_twice() {
    const ROUNDS: usize = 6;
    let paths: Vec<Vec<String>> = (0..ROUNDS)
        .map(|r| (0..FILES).map(|i| format!("r{r}/f{i}.ts")).collect())
        .collect();
    let task = Task::new(&paths.concat());
    let mut answered: Vec<String> = Vec::new();
    // Answers awaited before each kill: early, around the small-state bound, late, all.
    let kill_after = [3, 40, 149, 97, 150, 61];
    let mut server = task.start();
    for (round, paths) in paths.iter().enumerate() {
        let opened = task.open(&mut server);
        for path in &answered {
            assert!(opened.contains(path), "round {round}: {path} lost");
        }
        let mut ids = Vec::new();
        for (i, path) in paths.iter().enumerate() {
            ids.push((task.track_request(&mut server, path), Some(path)));
            if i % 10 == 9 {
                let marked = server.send_request(
                    "roo/files/markRooEdited",
                    json!({"taskId": "t", "path": &paths[i - 5], "content": content(&paths[i - 5])}),
                );
                ids.push((marked, None));
            }
        }
        let mut tracks = 0;
        for (id, path) in ids {
            if tracks == kill_after[round] {
                break;
            }
            let response = server.response(id);
            assert!(response.get("error").is_none(), "{response}");
            if let Some(path) = path {
                answered.push(path.clone());
                tracks += 1;
            }
        }
        server.kill();
        server = task.start();
        // Whatever the kill interrupted, the original-format file on disk parses.
        if task.dir().join("task_metadata.json").exists() {
            task.metadata_file();
        }
    }
    let opened = task.open(&mut server);
    for path in &answered {
        assert!(opened.contains(path), "{path} lost");
    }
    assert!(server.shutdown_and_exit().success());
    // Closed cleanly: the whole files are current and the journals hold only their header.
    assert_eq!(task.journal_lines("task_metadata.journal"), 1);
    assert_eq!(task.journal_lines("seen.journal"), 1);
    let counts = read_records(&task.metadata_file());
    for path in &answered {
        assert_eq!(counts.get(path), Some(&1), "{path}");
    }
    assert!(counts.values().all(|n| *n == 1), "a record applied twice");
    let seen: Value =
        serde_json::from_slice(&std::fs::read(task.dir().join("roo-context/seen.json")).unwrap())
            .unwrap();
    for path in &answered {
        assert!(
            seen["watched"].get(path).is_some(),
            "{path} not in seen.json"
        );
    }
}

/// Garbage and a torn record after the records of both journals (a kill in the middle of an
/// append, a bad disk, someone's editor): dropped, every answered record is there, and the
/// open compacts, so the original-format file is current and the journals start clean.
#[test]
fn garbage_and_torn_tails_in_both_journals_are_dropped_and_every_answered_record_kept() {
    let paths: Vec<String> = (0..FILES).map(|i| format!("f{i}.ts")).collect();
    let task = Task::new(&paths);
    let mut server = task.start();
    for path in &paths {
        task.track(&mut server, path).unwrap();
    }
    server.kill();
    for name in ["task_metadata.journal", "seen.journal"] {
        assert!(task.journal_lines(name) > 1, "{name}: no record appended");
    }
    append(
        &task.journal("task_metadata.journal"),
        b"\0\0garbage\n0badc0de {\"seq\":9999,\"record\":{}}\n12345678 {\"se",
    );
    append(&task.journal("seen.journal"), b"0000");
    let mut server = task.start();
    let opened = task.open(&mut server);
    assert_eq!(opened.len(), FILES);
    for path in &paths {
        assert!(opened.contains(path), "{path}");
    }
    assert_eq!(task.journal_lines("task_metadata.journal"), 1);
    assert_eq!(task.journal_lines("seen.journal"), 1);
    let counts = read_records(&task.metadata_file());
    assert_eq!(counts.len(), FILES);
    // Later batches append after the dropped tail and are read back.
    task.track(&mut server, "f0.ts").unwrap();
    server.kill();
    let mut server = task.start();
    assert_eq!(task.open(&mut server)[0], "f0.ts");
}

/// A task whose `FILES` files are tracked (enough batches for a journal), with one more file,
/// `x.ts`, on disk and not tracked yet.
fn tracked_with_one_more() -> (Task, Server) {
    let mut paths: Vec<String> = (0..FILES).map(|i| format!("f{i}.ts")).collect();
    paths.push("x.ts".into());
    let task = Task::new(&paths);
    let mut server = task.start();
    for path in &paths[..FILES] {
        task.track(&mut server, path).unwrap();
    }
    (task, server)
}

/// A journal removed while its task is open (a user's `rm`, a cleanup): appending to the open
/// file would put answered records where no load reads them. The append finds out, and the
/// batch writes the whole file instead (the state in memory, the removed records included).
#[test]
fn a_journal_removed_while_the_task_is_open_is_healed_by_the_next_batch() {
    let (task, mut server) = tracked_with_one_more();
    assert!(task.journal_lines("task_metadata.journal") > 1);
    std::fs::remove_file(task.journal("task_metadata.journal")).unwrap();
    std::fs::remove_file(task.journal("seen.journal")).unwrap();
    task.track(&mut server, "x.ts").unwrap();
    server.kill();
    let mut server = task.start();
    let opened = task.open(&mut server);
    assert_eq!(opened.len(), FILES + 1);
    assert_eq!(opened[0], "x.ts");
    let seen: Value =
        serde_json::from_slice(&std::fs::read(task.dir().join("roo-context/seen.json")).unwrap())
            .unwrap();
    assert_eq!(seen["watched"].as_object().unwrap().len(), FILES + 1);
}

/// A batch that can be written neither to the journal (moved away) nor as the whole file (a
/// folder in its place) is an error answer, and what is on disk is the state before it.
#[test]
fn a_batch_that_cannot_be_written_anywhere_is_an_error_and_the_state_on_disk_is_unchanged() {
    let (task, mut server) = tracked_with_one_more();
    let (whole, journal) = (
        task.dir().join("task_metadata.json"),
        task.journal("task_metadata.journal"),
    );
    let (whole_kept, journal_kept) = (
        task.dir().join("whole.kept"),
        task.dir().join("journal.kept"),
    );
    std::fs::rename(&journal, &journal_kept).unwrap();
    std::fs::rename(&whole, &whole_kept).unwrap();
    std::fs::create_dir_all(whole.join("occupied")).unwrap();
    let error = task.track(&mut server, "x.ts").unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("task_metadata.json"),
        "{error}"
    );
    server.kill();
    std::fs::remove_dir_all(&whole).unwrap();
    std::fs::rename(&whole_kept, &whole).unwrap();
    std::fs::rename(&journal_kept, &journal).unwrap();
    let mut server = task.start();
    let opened = task.open(&mut server);
    assert_eq!(opened.len(), FILES);
    assert!(!opened.contains(&"x.ts".to_owned()));
}
