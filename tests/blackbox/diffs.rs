//! The user's diff over stdio (issue 19, part 2): `takeRecentlyModified` with `withDiffs` gives
//! a diff against what the agent last saw, repeated until `roo/files/ackNotice`; every fallback
//! reason keeps the original's line byte for byte; the baseline store in the task folder is
//! content-addressed, bounded, never holds blocked or binary bytes, and survives corruption, a
//! full or deleted folder. Real watcher, real temp folders; waits on notifications, never on time.
//! One file on purpose: the cases of one feature with their shared helpers (the `TaskSetup`
//! methods, `edit`, `fallback_of`, `only_original`); its red-team cases are in `diffs_attacks.rs`.

use std::path::Path;

use roo_context_core::stale_diff::apply_unified_diff;
use serde_json::{Value, json};

use crate::harness::TaskSetup;

const CHANGED: &str = "roo/files/didChange";
const RELOADED: &str = "roo/ignore/didReload";
const ORIGINAL: &str = "\n\n# Recently Modified Files\nThese files have been modified since you last accessed them (file was just edited so you may need to re-read it before editing):";

fn lines(n: usize) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

fn edit(text: &str, at: &[usize]) -> String {
    text.split_inclusive('\n')
        .enumerate()
        .map(|(i, l)| {
            if at.contains(&i) {
                format!("user {i}\n")
            } else {
                l.to_owned()
            }
        })
        .collect()
}

impl TaskSetup {
    /// Replaces `path` by what `make` creates at a temporary name, in one rename (so the
    /// watcher never sees the file missing in between).
    fn swap(&self, path: &str, make: impl FnOnce(&Path)) {
        let temp = self.workspace.path(&format!("{path}.swap"));
        make(&temp);
        std::fs::rename(temp, self.workspace.path(path)).unwrap();
    }

    /// A take with these limits; the deadline is long unless the test sets it (tests never
    /// depend on wall-clock time).
    fn take_with(&mut self, task: &str, mut limits: Value) -> Value {
        if limits.get("timeoutMs").is_none() {
            limits["timeoutMs"] = json!(10_000);
        }
        self.server.call(
            "roo/files/takeRecentlyModified",
            json!({"taskId": task, "withDiffs": true, "limits": limits}),
        )
    }

    fn ack(&mut self, task: &str, notice: &Value) -> Value {
        self.server.call(
            "roo/files/ackNotice",
            json!({"taskId": task, "noticeId": notice["noticeId"]}),
        )
    }

    /// The blobs in the store now. The server may remove one (a baseline whose file became
    /// blocked, a temporary file renamed into place) between the listing and the read: one gone
    /// by then is not in the store (this raced with the server under load).
    fn blobs(&self, task: &str) -> Vec<Vec<u8>> {
        let dir = self.task_dir(task).join("roo-context/seen");
        std::fs::read_dir(dir)
            .map(|entries| {
                entries
                    .flatten()
                    .filter_map(|e| match std::fs::read(e.path()) {
                        Ok(bytes) => Some(bytes),
                        Err(error) if error.kind() == std::io::ErrorKind::NotFound => None,
                        Err(error) => panic!("{}: {error}", e.path().display()),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn fallback_of(notice: &Value, path: &str) -> Value {
    notice["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == path)
        .unwrap_or_else(|| panic!("{path} not in {notice}"))["fallback"]
        .clone()
}

fn only_original(notice: &Value, paths: &[&str]) {
    let mut expected = ORIGINAL.to_owned();
    for path in paths {
        expected.push('\n');
        expected.push_str(path);
    }
    assert_eq!(notice["text"], expected.as_str(), "{notice}");
}

#[test]
fn a_three_line_edit_is_a_diff_that_applies_to_what_the_agent_read() {
    let original = lines(30);
    let mut s = TaskSetup::new(&[("src/a.ts", &original)]);
    s.track("t", "src/a.ts");
    let edited = edit(&original, &[10, 11, 12]);
    s.user_edit("src/a.ts", &edited);
    let notice = s.take_with_diffs("t");
    let change = &notice["changes"][0];
    assert_eq!(notice["paths"], json!(["src/a.ts"]));
    assert_eq!(change["kind"], "modified");
    assert_eq!(
        change["diffStat"],
        json!({"added": 3, "removed": 3, "hunks": 1})
    );
    assert!(change.get("fallback").is_none(), "{change}");
    let diff = change["diff"].as_str().unwrap();
    assert_eq!(
        apply_unified_diff(&original, diff).as_deref(),
        Some(edited.as_str())
    );
    // One context line by default (BENCHMARKS.md, "notice": decided on real code).
    assert_eq!(
        diff,
        "@@ -10,5 +10,5 @@\n line 10\n-line 11\n-line 12\n-line 13\n+user 10\n+user 11\n+user 12\n line 14\n"
    );
    let more = s.take_with("t", json!({"contextLines": 3}));
    assert!(
        more["changes"][0]["diff"]
            .as_str()
            .unwrap()
            .starts_with("@@ -8,9 +8,9 @@\n"),
        "{more}"
    );
    let expected = format!(
        "\n\n# Changes Since You Last Read\nNot your edits; diffed against what you last saw. Keep them unless the user says otherwise.\n## src/a.ts\n```diff\n{diff}```"
    );
    assert_eq!(notice["text"], expected.as_str());
    assert!(notice["noticeId"].as_str().unwrap().starts_with("n-"));
}

#[test]
fn without_with_diffs_the_answer_is_the_original_paths_only() {
    let mut s = TaskSetup::new(&[("a.ts", "one\n")]);
    s.track("t", "a.ts");
    s.user_edit("a.ts", "two\n");
    let plain = s
        .server
        .call("roo/files/takeRecentlyModified", json!({"taskId": "t"}));
    assert_eq!(plain, json!({"paths": ["a.ts"]}));
    let explicit = s.server.call(
        "roo/files/takeRecentlyModified",
        json!({"taskId": "t", "withDiffs": false}),
    );
    assert_eq!(explicit, json!({"paths": []}));
}

/// The original clears the set when the environment details are built; a manual condense can
/// then drop those details and the change is never told. Here the notice is repeated until the
/// host acknowledges it, cumulatively, and the baseline advances only then.
#[test]
fn a_notice_dropped_before_the_model_saw_it_is_repeated_until_acknowledged() {
    let original = lines(20);
    let mut s = TaskSetup::new(&[("a.ts", &original)]);
    s.track("t", "a.ts");
    let first = edit(&original, &[2]);
    s.user_edit("a.ts", &first);
    let dropped = s.take_with_diffs("t");
    assert_eq!(dropped["paths"], json!(["a.ts"]));
    // The host lost that text (a condense dropped the environment details): no ack.
    let again = s.take_with_diffs("t");
    assert_eq!(again["changes"], dropped["changes"]);
    assert_ne!(again["noticeId"], dropped["noticeId"]);
    // A second edit before any ack: one cumulative diff against what the agent read.
    let second = edit(&first, &[15]);
    s.user_edit("a.ts", &second);
    let cumulative = s.take_with_diffs("t");
    let diff = cumulative["changes"][0]["diff"].as_str().unwrap();
    assert_eq!(
        apply_unified_diff(&original, diff).as_deref(),
        Some(second.as_str())
    );
    assert_eq!(cumulative["changes"][0]["diffStat"]["hunks"], 2);
    // The older notice is superseded by acknowledging the newer one.
    let ack = s.ack("t", &cumulative);
    assert_eq!(
        ack,
        json!({"known": true, "advanced": ["a.ts"], "delivered": ["a.ts"]})
    );
    assert_eq!(s.ack("t", &again)["known"], false);
    assert_eq!(
        s.ack("t", &cumulative)["known"],
        false,
        "a second ack changes nothing"
    );
    let empty = s.take_with_diffs("t");
    assert_eq!(empty, json!({"paths": [], "changes": [], "text": ""}));
    // The next edit is diffed against the acknowledged content.
    let third = edit(&second, &[0]);
    s.user_edit("a.ts", &third);
    let next = s.take_with_diffs("t");
    let diff = next["changes"][0]["diff"].as_str().unwrap();
    assert_eq!(
        apply_unified_diff(&second, diff).as_deref(),
        Some(third.as_str())
    );
}

#[test]
fn a_change_after_the_take_stays_pending_when_the_older_notice_is_acknowledged() {
    let original = lines(20);
    let mut s = TaskSetup::new(&[("a.ts", &original)]);
    s.track("t", "a.ts");
    let first = edit(&original, &[3]);
    s.user_edit("a.ts", &first);
    let notice = s.take_with_diffs("t");
    let second = edit(&first, &[9]);
    s.user_edit("a.ts", &second);
    let ack = s.ack("t", &notice);
    assert_eq!(ack["advanced"], json!(["a.ts"]));
    assert_eq!(ack["delivered"], json!([]));
    let next = s.take_with_diffs("t");
    let diff = next["changes"][0]["diff"].as_str().unwrap();
    assert_eq!(
        apply_unified_diff(&first, diff).as_deref(),
        Some(second.as_str())
    );
}

#[test]
fn the_agent_own_write_is_the_baseline_of_the_next_user_edit() {
    let mut s = TaskSetup::new(&[("a.ts", "old\n")]);
    s.track("t", "a.ts");
    let written = lines(12);
    s.server.call(
        "roo/files/markRooEdited",
        json!({"taskId": "t", "path": "a.ts", "content": written}),
    );
    s.workspace.replace("a.ts", &written);
    let user = edit(&written, &[6]);
    s.user_edit("a.ts", &user);
    let notice = s.take_with_diffs("t");
    assert_eq!(notice["paths"], json!(["a.ts"]));
    let diff = notice["changes"][0]["diff"].as_str().unwrap();
    assert_eq!(
        apply_unified_diff(&written, diff).as_deref(),
        Some(user.as_str())
    );
}

#[test]
fn a_file_the_agent_read_again_is_not_reported() {
    let mut s = TaskSetup::new(&[("a.ts", "one\n")]);
    s.track("t", "a.ts");
    s.user_edit("a.ts", "two\n");
    s.track("t", "a.ts");
    assert_eq!(
        s.take_with_diffs("t"),
        json!({"paths": [], "changes": [], "text": ""})
    );
}

#[test]
fn deleted_and_renamed_files_fall_back_with_their_kind() {
    let mut s = TaskSetup::new(&[("gone.ts", "a\n"), ("moved.ts", "b\n")]);
    s.track("t", "gone.ts");
    s.track("t", "moved.ts");
    std::fs::remove_file(s.workspace.path("gone.ts")).unwrap();
    s.changed("gone.ts");
    std::fs::rename(s.workspace.path("moved.ts"), s.workspace.path("new.ts")).unwrap();
    s.changed("moved.ts");
    let notice = s.take_with_diffs("t");
    assert_eq!(fallback_of(&notice, "gone.ts"), "deleted");
    assert_eq!(fallback_of(&notice, "moved.ts"), "renamed");
    let kinds: Vec<&Value> = notice["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["kind"])
        .collect();
    assert_eq!(
        kinds,
        [&json!("renamed"), &json!("deleted")],
        "most recent first"
    );
    only_original(&notice, &["moved.ts", "gone.ts"]);
    // Acknowledged: the baseline of a deleted file is gone with it.
    s.ack("t", &notice);
    s.workspace.write("gone.ts", "back\n");
    s.changed("gone.ts");
    let recreated = s.take_with_diffs("t");
    assert_eq!(fallback_of(&recreated, "gone.ts"), "noBaseline");
    assert_eq!(recreated["changes"][0]["kind"], "modified");
}

#[test]
fn binary_too_large_and_unreadable_files_fall_back_and_no_binary_is_stored() {
    let mut s = TaskSetup::new(&[
        ("bin.dat", "text\n"),
        ("big.txt", "small\n"),
        ("pipe", "x\n"),
        ("was_bin", "a\0b"),
    ]);
    for path in ["bin.dat", "big.txt", "pipe", "was_bin"] {
        s.track("t", path);
    }
    assert!(
        s.blobs("t").iter().all(|b| !b.contains(&0)),
        "a binary file never becomes a baseline"
    );
    s.user_edit("bin.dat", "text\0\u{1}\n");
    s.user_edit("big.txt", &"x".repeat(1024 * 1024 + 1));
    s.user_edit("pipe", "y\n");
    s.user_edit("was_bin", "now text\n");
    // The FIFO replaces the edited file: never opened, never waited on.
    s.swap("pipe", |temp| {
        let status = std::process::Command::new("mkfifo")
            .arg(temp)
            .status()
            .unwrap();
        assert!(status.success());
    });
    let notice = s.take_with_diffs("t");
    assert_eq!(fallback_of(&notice, "bin.dat"), "binary");
    assert_eq!(fallback_of(&notice, "big.txt"), "tooLarge");
    assert_eq!(fallback_of(&notice, "pipe"), "unreadable");
    assert_eq!(fallback_of(&notice, "was_bin"), "noBaseline");
    assert!(notice["text"].as_str().unwrap().starts_with(ORIGINAL));
    assert!(!notice["text"].as_str().unwrap().contains("# Changes Since"));
}

#[test]
fn a_file_that_became_blocked_or_a_link_to_a_blocked_file_never_leaks_through_a_diff() {
    let mut s = TaskSetup::new(&[
        (".rooignore", "secret.txt\n"),
        ("secret.txt", "TOP SECRET VALUE\n"),
        ("a.ts", "alpha\n"),
        ("b.ts", "beta\n"),
    ]);
    s.track("t", "a.ts");
    s.track("t", "b.ts");
    assert_eq!(
        s.track("t", "secret.txt"),
        json!({"watched": false, "notWatchedReason": "blocked"})
    );
    s.user_edit("a.ts", "alpha changed\n");
    s.user_edit("b.ts", "beta changed\n");
    // a.ts becomes a link to the blocked file after the change was seen.
    s.swap("a.ts", |temp| {
        std::os::unix::fs::symlink("secret.txt", temp).unwrap()
    });
    // b.ts becomes blocked by a new rule.
    s.workspace.replace(".rooignore", "secret.txt\nb.ts\n");
    s.server.notification(RELOADED);
    let notice = s.take_with_diffs("t");
    assert_eq!(fallback_of(&notice, "a.ts"), "blocked");
    assert_eq!(fallback_of(&notice, "b.ts"), "blocked");
    let answer = notice.to_string();
    assert!(
        !answer.contains("SECRET") && !answer.contains("beta changed"),
        "{answer}"
    );
    for blob in s.blobs("t") {
        assert!(!String::from_utf8_lossy(&blob).contains("SECRET"));
    }
}

/// Main's gate refuses a file with a second name (a hard link) while an ignore file exists: the
/// diff reader maps that refusal to `blocked`, like a blocked name (it used to say `unreadable`).
#[test]
fn a_file_replaced_by_a_hard_link_to_a_blocked_file_falls_back_as_blocked() {
    let mut s = TaskSetup::new(&[
        (".rooignore", "secret.txt\n"),
        ("secret.txt", "TOP SECRET VALUE\n"),
        ("a.ts", "alpha\n"),
    ]);
    s.track("t", "a.ts");
    s.user_edit("a.ts", "alpha changed\n");
    let secret = s.workspace.path("secret.txt");
    s.swap("a.ts", |temp| std::fs::hard_link(&secret, temp).unwrap());
    let notice = s.take_with_diffs("t");
    assert_eq!(fallback_of(&notice, "a.ts"), "blocked", "{notice}");
    let answer = notice.to_string();
    assert!(!answer.contains("SECRET"), "{answer}");
    for blob in s.blobs("t") {
        assert!(!String::from_utf8_lossy(&blob).contains("SECRET"));
    }
}

#[test]
fn each_limit_gives_its_reason() {
    let base = lines(300);
    let mut s = TaskSetup::new(&[("many.ts", &base), ("long.ts", &base), ("slow.ts", &base)]);
    for path in ["many.ts", "long.ts", "slow.ts"] {
        s.track("t", path);
    }
    let every_other: Vec<usize> = (0..300).step_by(2).collect();
    s.user_edit("many.ts", &edit(&base, &every_other));
    s.user_edit("long.ts", &edit(&base, &[10, 100, 200]));
    s.user_edit("slow.ts", &edit(&base, &[50]));
    let rewrite = s.take_with("t", json!({}));
    assert_eq!(fallback_of(&rewrite, "many.ts"), "tooManyChanges");
    assert_eq!(
        rewrite["changes"][2]["diffStat"]["added"], 150,
        "counts kept"
    );
    let per_file = s.take_with("t", json!({"maxCharsPerFile": 100}));
    assert_eq!(fallback_of(&per_file, "long.ts"), "diffTooLong");
    let no_time = s.take_with("t", json!({"timeoutMs": 0}));
    assert_eq!(fallback_of(&no_time, "slow.ts"), "timeout");
    let no_budget = s.take_with("t", json!({"maxCharsTotal": 0}));
    assert_eq!(fallback_of(&no_budget, "slow.ts"), "budget");
    assert_eq!(fallback_of(&no_budget, "long.ts"), "budget");
    only_original(&no_budget, &["slow.ts", "long.ts", "many.ts"]);
    // Extremes are clamped or refused, never a crash.
    let huge = s.take_with(
        "t",
        json!({"contextLines": u32::MAX, "maxCharsPerFile": u32::MAX, "maxCharsTotal": u32::MAX, "maxChangedLines": u32::MAX, "timeoutMs": u32::MAX}),
    );
    // contextLines is clamped to 100: line 51 changed gives lines 1..151.
    let slow = huge["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == "slow.ts")
        .unwrap();
    assert!(
        slow["diff"]
            .as_str()
            .unwrap()
            .starts_with("@@ -1,151 +1,151 @@\n"),
        "{slow}"
    );
    // With that much context the diff of long.ts is longer than the file: a rewrite.
    assert_eq!(fallback_of(&huge, "long.ts"), "tooManyChanges");
    let bad = s.server.request(
        "roo/files/takeRecentlyModified",
        json!({"taskId": "t", "withDiffs": true, "limits": {"contextLines": -1}}),
    );
    let error = bad.unwrap_err();
    assert_eq!(error["code"], -32602);
    assert!(
        error["message"].as_str().unwrap().contains("contextLines"),
        "{error}"
    );
}

#[test]
fn many_changed_files_stay_within_the_turn_budget_and_each_is_named() {
    const FILES: usize = 300;
    let base = lines(40);
    let files: Vec<(String, String)> = (0..FILES)
        .map(|i| (format!("f{i}.ts"), base.clone()))
        .collect();
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, c)| (p.as_str(), c.as_str()))
        .collect();
    let mut s = TaskSetup::new(&refs);
    for (path, _) in &files {
        s.track("t", path);
    }
    let edited = edit(&base, &[20]);
    for (path, _) in &files {
        s.workspace.replace(path, &edited);
    }
    let mut seen = std::collections::HashSet::new();
    while seen.len() < FILES {
        seen.insert(
            s.server.notification(CHANGED)["path"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let notice = s.take_with_diffs("t");
    let text = notice["text"].as_str().unwrap();
    let diff_section = &text[text.find("\n\n# Changes Since").unwrap()..];
    assert!(
        diff_section.encode_utf16().count() <= 12_000,
        "{}",
        diff_section.len()
    );
    assert_eq!(notice["paths"].as_array().unwrap().len(), FILES);
    for (path, _) in &files {
        assert!(text.contains(path.as_str()));
    }
    assert!(fallback_of(&notice, "f0.ts") == "budget" || fallback_of(&notice, "f0.ts").is_null());
}

#[test]
fn crlf_files_and_a_huge_single_line_are_diffed_exactly_or_fall_back() {
    let crlf = "one\r\ntwo\r\nthree\r\n";
    let line = "x".repeat(400_000);
    let mut s = TaskSetup::new(&[("w.ts", crlf), ("min.js", &line)]);
    s.track("t", "w.ts");
    s.track("t", "min.js");
    let edited = "one\r\nTWO\r\nthree\r\n";
    s.user_edit("w.ts", edited);
    s.user_edit("min.js", &format!("{line}y"));
    let notice = s.take_with_diffs("t");
    let change = notice["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == "w.ts")
        .unwrap();
    let diff = change["diff"].as_str().unwrap();
    assert_eq!(apply_unified_diff(crlf, diff).as_deref(), Some(edited));
    assert_eq!(fallback_of(&notice, "min.js"), "tooManyChanges");
}

#[test]
fn two_tasks_have_their_own_baselines_and_acknowledgements() {
    let original = lines(10);
    let mut s = TaskSetup::new(&[("a.ts", &original)]);
    s.track("t1", "a.ts");
    let edited = edit(&original, &[4]);
    s.workspace.replace("a.ts", &edited);
    s.changed("a.ts");
    // t2 read the edited version: nothing to tell it about that edit.
    s.track("t2", "a.ts");
    let one = s.take_with_diffs("t1");
    assert_eq!(one["paths"], json!(["a.ts"]));
    s.ack("t1", &one);
    assert_eq!(s.take_with_diffs("t2")["paths"], json!([]));
    // An id of one task is unknown to the other.
    assert_eq!(s.ack("t2", &one)["known"], false);
    let error = s
        .server
        .request(
            "roo/files/ackNotice",
            json!({"taskId": "nope", "noticeId": "n-1"}),
        )
        .unwrap_err();
    assert_eq!(error["code"], -32602);
    let error = s
        .server
        .request("roo/files/ackNotice", json!({"taskId": "t1"}))
        .unwrap_err();
    assert!(
        error["message"].as_str().unwrap().contains("noticeId"),
        "{error}"
    );
}

#[test]
fn baselines_are_content_addressed_in_the_task_folder_and_evicted_least_recently_used() {
    let a = lines(30);
    let b = lines(31);
    let c = lines(32);
    // Room for two of the three files.
    let cap = (b.len() + c.len()).to_string();
    let mut s = TaskSetup::with_env(
        &[("a.ts", &a), ("b.ts", &b), ("c.ts", &c), ("same.ts", &a)],
        &[("ROO_CONTEXT_SEEN_CAP_BYTES", &cap)],
    );
    s.track("t", "a.ts");
    s.track("t", "same.ts");
    let dir = s.task_dir("t").join("roo-context");
    let names: Vec<String> = std::fs::read_dir(dir.join("seen"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names.len(),
        1,
        "two files with the same content share one blob"
    );
    assert_eq!(names[0].len(), 64);
    let index: Value =
        serde_json::from_slice(&std::fs::read(dir.join("seen.json")).unwrap()).unwrap();
    assert_eq!(index["version"], 1);
    assert_eq!(index["files"]["a.ts"]["blob"], names[0].as_str());
    assert_eq!(index["files"]["a.ts"]["source"], "read_tool");
    s.track("t", "b.ts");
    s.track("t", "c.ts");
    // a.ts and same.ts (one blob) were the least recently used: evicted, blob deleted.
    let index: Value =
        serde_json::from_slice(&std::fs::read(dir.join("seen.json")).unwrap()).unwrap();
    assert!(index["files"].get("a.ts").is_none(), "{index}");
    assert_eq!(s.blobs("t").len(), 2);
    s.user_edit("a.ts", &edit(&a, &[1]));
    s.user_edit("c.ts", &edit(&c, &[1]));
    let notice = s.take_with_diffs("t");
    assert_eq!(fallback_of(&notice, "a.ts"), "noBaseline");
    assert!(fallback_of(&notice, "c.ts").is_null());
}

#[test]
fn a_corrupt_blob_or_index_a_full_or_deleted_folder_falls_back_and_serving_goes_on() {
    let a = lines(10);
    let mut s = TaskSetup::new(&[("a.ts", &a), ("b.ts", &a), ("c.ts", "c\n")]);
    s.track("t", "a.ts");
    // Corrupt blob: same name, other bytes.
    let blob_dir = s.task_dir("t").join("roo-context/seen");
    for entry in std::fs::read_dir(&blob_dir).unwrap() {
        std::fs::write(entry.unwrap().path(), "tampered\n").unwrap();
    }
    s.user_edit("a.ts", &edit(&a, &[2]));
    assert_eq!(fallback_of(&s.take_with_diffs("t"), "a.ts"), "noBaseline");
    // Corrupt indexes (cut short; well-formed but naming a blob outside the blob folder): moved
    // aside when the task is opened, never overwritten, never followed.
    for (task, index) in [
        ("u", "{\"version\": 1, \"files\": {\"x\": {\"blob\": \"ab"),
        (
            "v",
            "{\"version\": 1, \"files\": {\"c.ts\": {\"blob\": \"../../../../../../etc/passwd\", \"bytes\": 1, \"source\": \"read_tool\", \"at\": 1, \"used\": 1}}}",
        ),
    ] {
        let store = s.task_dir(task).join("roo-context");
        std::fs::create_dir_all(&store).unwrap();
        std::fs::write(store.join("seen.json"), index).unwrap();
        s.track(task, "c.ts");
        let names: Vec<String> = std::fs::read_dir(&store)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names.iter().any(|n| n.starts_with("seen.json.corrupt-")),
            "{task}: {names:?}"
        );
    }
    // A folder that cannot be written (the store's place taken by a file): no baseline.
    let full = s.task_dir("full");
    std::fs::write(full.join("roo-context"), "not a folder").unwrap();
    s.track("full", "b.ts");
    // A deleted task folder.
    s.track("gone", "c.ts");
    std::fs::remove_dir_all(s.task_dir("gone")).unwrap();
    s.workspace.replace("b.ts", &edit(&a, &[5]));
    s.changed_in(Some("full"), "b.ts");
    s.workspace.replace("c.ts", "c changed\n");
    // Every task tracking c.ts gets its own notice, in whatever order their actors send them
    // (waiting for `gone` first dropped `u`'s notice whenever it came first: a flaky timeout).
    let mut waiting = vec!["gone", "u"];
    while !waiting.is_empty() {
        let change = s.server.notification(CHANGED);
        if change["path"] == "c.ts" {
            waiting.retain(|task| change["taskId"] != *task);
        }
    }
    assert_eq!(
        fallback_of(&s.take_with_diffs("full"), "b.ts"),
        "noBaseline"
    );
    assert_eq!(
        fallback_of(&s.take_with_diffs("gone"), "c.ts"),
        "noBaseline"
    );
    // Still serving, and the healthy task still gets diffs.
    assert!(fallback_of(&s.take_with_diffs("u"), "c.ts").is_null());
}

/// Applying the returned diff to what the agent read gives the file on disk, for random edits
/// made by a real editor-style save and judged by the real watcher.
#[test]
fn property_applying_the_returned_diff_gives_the_file_on_disk() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let s = std::cell::RefCell::new(TaskSetup::new(&[]));
    let round = std::cell::Cell::new(0);
    let mut runner = TestRunner::new(Config {
        cases: 24,
        ..Config::default()
    });
    let line = prop_oneof!["[a-c]{0,4}\n", "[a-c]{0,3}\r\n", Just("\n".to_owned())];
    let text =
        (prop::collection::vec(line, 0..30), "[a-c]{0,3}").prop_map(|(l, tail)| l.concat() + &tail);
    runner
        .run(&(text.clone(), text), |(before, after)| {
            let mut s = s.borrow_mut();
            round.set(round.get() + 1);
            let round = round.get();
            // Distinct contents each round, so every save is a change.
            let before = format!("round {round}\n{before}");
            let after = format!("round {round} edited\n{after}");
            // A new file each round, so no event of an earlier round can be mistaken for this one.
            let path = format!("p{round}.txt");
            s.workspace.write(&path, &before);
            s.track("t", &path);
            s.user_edit(&path, &after);
            let notice = s.take_with_diffs("t");
            let diff = notice["changes"][0]["diff"]
                .as_str()
                .unwrap_or_else(|| panic!("{notice}"));
            let on_disk = std::fs::read_to_string(s.workspace.path(&path)).unwrap();
            prop_assert_eq!(apply_unified_diff(&before, diff), Some(on_disk));
            s.ack("t", &notice);
            Ok(())
        })
        .unwrap();
}

/// File text in a reply goes through the wire encoding (a U+FDD0 + plane-15 pair in a file must
/// come back as those characters, never as the lone surrogate escape the pair encodes).
#[test]
fn file_text_with_the_wire_encoding_marker_comes_back_unchanged() {
    let original = "a\u{FDD0}\u{F0000}b\nsecond\n";
    let mut s = TaskSetup::new(&[("w.ts", original)]);
    s.track("t", "w.ts");
    let edited = "a\u{FDD0}\u{F0000}b\nsecond changed\n";
    s.user_edit("w.ts", edited);
    let notice = s.take_with_diffs("t");
    let diff = notice["changes"][0]["diff"].as_str().unwrap();
    assert!(diff.contains(" a\u{FDD0}\u{F0000}b\n"), "{diff:?}");
    assert_eq!(apply_unified_diff(original, diff).as_deref(), Some(edited));
}

/// A partial read (the host says the agent saw only a line range) stores the whole file at
/// read time, flagged `partial` in `seen.json` and in the changes of a take.
#[test]
fn a_partial_read_stores_the_whole_file_and_flags_the_change_partial() {
    let a = lines(40);
    let mut s = TaskSetup::new(&[("a.ts", &a), ("b.ts", &a)]);
    let dir = s.task_dir("t");
    let part: String = a
        .lines()
        .skip(9)
        .take(5)
        .map(|l| format!("{l}\n"))
        .collect();
    let tracked = s.server.call(
        "roo/files/track",
        json!({"taskId": "t", "storageDir": dir, "path": "a.ts", "source": "read_tool",
               "content": part, "partial": true}),
    );
    assert_eq!(tracked["watched"], true);
    s.track("t", "b.ts");
    let index: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("roo-context/seen.json")).unwrap())
            .unwrap();
    assert_eq!(index["files"]["a.ts"]["partial"], true, "{index}");
    assert_eq!(index["files"]["b.ts"]["partial"], false, "{index}");
    assert_eq!(
        index["files"]["a.ts"]["bytes"],
        a.len(),
        "the whole file is the baseline"
    );
    // An edit outside the part the agent saw still gets an exact diff against the whole file.
    let edited = edit(&a, &[30]);
    s.user_edit("a.ts", &edited);
    s.user_edit("b.ts", &edited);
    let notice = s.take_with_diffs("t");
    let change = |path: &str| {
        notice["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["path"] == path)
            .cloned()
            .unwrap()
    };
    assert_eq!(change("a.ts")["partial"], true, "{notice}");
    assert!(change("b.ts").get("partial").is_none(), "{notice}");
    let diff = change("a.ts")["diff"].as_str().unwrap().to_owned();
    assert_eq!(
        apply_unified_diff(&a, &diff).as_deref(),
        Some(edited.as_str())
    );
    // Still partial after the acknowledgement (the diff showed the changed lines only); a full
    // read clears it.
    s.ack("t", &notice);
    s.user_edit("a.ts", &edit(&edited, &[35]));
    assert_eq!(s.take_with_diffs("t")["changes"][0]["partial"], true);
    s.track("t", "a.ts");
    s.user_edit("a.ts", &edit(&a, &[1]));
    assert!(
        s.take_with_diffs("t")["changes"][0]
            .get("partial")
            .is_none()
    );
}

/// `roo/files/didChange` carries the counts of the diff a take would show, when the task has
/// a small text baseline of the file; never for binary, oversized or baseline-less files.
#[test]
fn did_change_carries_the_diff_stat_of_the_take_when_a_small_text_baseline_exists() {
    let a = lines(20);
    let big = "x".repeat(300 * 1024) + "\n";
    let mut s = TaskSetup::new(&[("a.ts", &a), ("big.ts", &big), ("bin.dat", "text\n")]);
    for path in ["a.ts", "big.ts", "bin.dat"] {
        s.track("t", path);
    }
    s.workspace.replace("a.ts", &edit(&a, &[2, 3, 15]));
    let change = s.changed("a.ts");
    assert_eq!(
        change["diffStat"],
        json!({"added": 3, "removed": 3, "hunks": 2}),
        "{change}"
    );
    let notice = s.take_with_diffs("t");
    assert_eq!(notice["changes"][0]["diffStat"], change["diffStat"]);
    // Over the didChange bound (256 KiB) and binary now: no stat.
    s.workspace.replace("big.ts", &(big.clone() + "more\n"));
    assert!(s.changed("big.ts").get("diffStat").is_none());
    std::fs::write(s.workspace.path("bin.dat.swap"), b"bin\0ary\n").unwrap();
    std::fs::rename(
        s.workspace.path("bin.dat.swap"),
        s.workspace.path("bin.dat"),
    )
    .unwrap();
    assert!(s.changed("bin.dat").get("diffStat").is_none());
    // Deleted: no stat.
    std::fs::remove_file(s.workspace.path("a.ts")).unwrap();
    let gone = s.changed("a.ts");
    assert_eq!(gone["kind"], "deleted");
    assert!(gone.get("diffStat").is_none());
}
