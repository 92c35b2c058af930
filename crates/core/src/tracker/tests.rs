//! Tests of the tracker core: the original's worked example, round trips of existing files,
//! ordering and de-duplication of reads, the get-and-clear sets and the fingerprint decisions.

use expect_test::{Expect, expect};

use super::*;

const T1: i64 = 1_700_000_000_000;
const T2: i64 = 1_700_000_001_000;
const T3: i64 = 1_700_000_002_000;

fn content(text: &str) -> Fingerprint {
    Fingerprint::of(text.as_bytes())
}

/// Parses `input`, applies `change`, and compares the written JSON with `expect`.
fn check_round_trip(input: &str, change: impl FnOnce(&mut TaskMetadata), expect: Expect) {
    let mut metadata = TaskMetadata::parse(input).expect("parses");
    change(&mut metadata);
    expect.assert_eq(&metadata.to_json());
}

fn check_reads(tracks: &[(&str, RecordSource, i64)], since: Option<i64>, expect: &[&str]) {
    let mut task = TaskFiles::default();
    for (path, source, now) in tracks {
        task.track(path, source.clone(), None, *now);
    }
    assert_eq!(task.files_read_by_agent(since), expect);
}

#[test]
fn the_spec_example_file_round_trips_byte_for_byte() {
    let original = r#"{"files_in_context":[{"path":"src/a.ts","record_state":"active","record_source":"read_tool","roo_read_date":1700000000000,"roo_edit_date":null,"user_edit_date":null}]}"#;
    check_round_trip(
        original,
        |_| {},
        expect![[
            r#"{"files_in_context":[{"path":"src/a.ts","record_state":"active","record_source":"read_tool","roo_read_date":1700000000000,"roo_edit_date":null,"user_edit_date":null}]}"#
        ]],
    );
}

#[test]
fn a_new_read_is_written_in_the_original_key_order() {
    let mut task = TaskFiles::default();
    task.track("src/a.ts", RecordSource::ReadTool, None, T1);
    expect![[r#"{"files_in_context":[{"path":"src/a.ts","record_state":"active","record_source":"read_tool","roo_read_date":1700000000000,"roo_edit_date":null,"user_edit_date":null}]}"#]]
        .assert_eq(&task.metadata.to_json());
}

#[test]
fn unknown_keys_keep_their_place_when_a_record_goes_stale() {
    let input = r#"{"version":2,"files_in_context":[{"path":"a","x_first":true,"record_state":"active","record_source":"read_tool","roo_read_date":1700000000000.5,"roo_edit_date":null,"extra":{"k":[1,2]}}],"trailer":"kept"}"#;
    check_round_trip(
        input,
        |m| m.files_in_context[0].record_state = RecordState::Stale,
        expect![[
            r#"{"version":2,"files_in_context":[{"path":"a","x_first":true,"record_state":"stale","record_source":"read_tool","roo_read_date":1700000000000.5,"roo_edit_date":null,"extra":{"k":[1,2]}}],"trailer":"kept"}"#
        ]],
    );
}

#[test]
fn an_older_entry_without_user_edit_date_does_not_gain_one() {
    let input = r#"{"files_in_context":[{"path":"a","record_state":"active","record_source":"read_tool","roo_read_date":5,"roo_edit_date":null}]}"#;
    let metadata = TaskMetadata::parse(input).unwrap();
    assert_eq!(metadata.files_in_context[0].user_edit_date, None);
    assert_eq!(metadata.to_json(), input);
}

#[test]
fn unknown_states_and_sources_survive_and_are_not_reads() {
    let input = r#"{"files_in_context":[{"path":"a","record_state":"archived","record_source":"future_tool","roo_read_date":9,"roo_edit_date":null,"user_edit_date":null}]}"#;
    let metadata = TaskMetadata::parse(input).unwrap();
    assert_eq!(
        metadata.files_in_context[0].record_state,
        RecordState::Other("archived".into())
    );
    assert_eq!(metadata.to_json(), input);
    assert!(files_read_by_agent(&metadata, None).is_empty());
}

#[test]
fn a_missing_files_in_context_is_an_empty_history_and_other_keys_stay() {
    let mut task = TaskFiles::new(TaskMetadata::parse(r#"{"note":"hi"}"#).unwrap());
    assert!(task.metadata.files_in_context.is_empty());
    task.track("a", RecordSource::FileMentioned, None, 7);
    expect![[r#"{"note":"hi","files_in_context":[{"path":"a","record_state":"active","record_source":"file_mentioned","roo_read_date":7,"roo_edit_date":null,"user_edit_date":null}]}"#]]
        .assert_eq(&task.metadata.to_json());
}

#[test]
fn unusable_files_are_errors_not_empty_histories() {
    let cases = [
        ("{\"files_in_context\":[", "not valid JSON"),
        ("", "not valid JSON"),
        ("[]", "the top level is not a JSON object"),
        (
            r#"{"files_in_context":{}}"#,
            "`files_in_context` is not an array",
        ),
        (
            r#"{"files_in_context":[3]}"#,
            "`files_in_context[0]`: not an object",
        ),
        (
            r#"{"files_in_context":[{"record_state":"active","record_source":"read_tool"}]}"#,
            "`files_in_context[0]`: `path` is missing or not a string",
        ),
        (
            r#"{"files_in_context":[{"path":"a","record_state":1,"record_source":"read_tool"}]}"#,
            "`files_in_context[0]`: `record_state` is missing or not a string",
        ),
    ];
    for (input, message) in cases {
        let error = TaskMetadata::parse(input).expect_err(input).to_string();
        assert!(error.starts_with(message), "{input}: {error}");
    }
}

#[test]
fn non_numeric_dates_count_as_missing_and_are_written_back_untouched() {
    let input = r#"{"files_in_context":[{"path":"a","record_state":"active","record_source":"read_tool","roo_read_date":"yesterday","roo_edit_date":null,"user_edit_date":null}]}"#;
    let mut task = TaskFiles::new(TaskMetadata::parse(input).unwrap());
    assert_eq!(task.metadata.files_in_context[0].roo_read_date, None);
    task.track("a", RecordSource::UserEdited, None, T1);
    expect![[r#"{"files_in_context":[{"path":"a","record_state":"stale","record_source":"read_tool","roo_read_date":"yesterday","roo_edit_date":null,"user_edit_date":null},{"path":"a","record_state":"active","record_source":"user_edited","roo_read_date":null,"roo_edit_date":null,"user_edit_date":1700000000000}]}"#]]
        .assert_eq(&task.metadata.to_json());
}

#[test]
fn the_worked_example_of_the_spec() {
    let mut task = TaskFiles::default();
    task.track("src/a.ts", RecordSource::ReadTool, Some(content("v1")), T1);
    task.track("src/a.ts", RecordSource::RooEdited, Some(content("v2")), T2);
    // Roo's own write: the content is what it wrote, so nothing is recorded.
    assert_eq!(
        task.observe("src/a.ts", content("v2"), &ChangeHint::Changed, T2 + 5),
        None
    );
    assert_eq!(
        task.observe("src/a.ts", content("v3"), &ChangeHint::Changed, T3),
        Some(ObservedChange {
            path: "src/a.ts".into(),
            kind: ChangeKind::Modified
        })
    );
    expect![[r#"{"files_in_context":[{"path":"src/a.ts","record_state":"stale","record_source":"read_tool","roo_read_date":1700000000000,"roo_edit_date":null,"user_edit_date":null},{"path":"src/a.ts","record_state":"stale","record_source":"roo_edited","roo_read_date":1700000001000,"roo_edit_date":1700000001000,"user_edit_date":null},{"path":"src/a.ts","record_state":"active","record_source":"user_edited","roo_read_date":1700000001000,"roo_edit_date":1700000001000,"user_edit_date":1700000002000}]}"#]]
        .assert_eq(&task.metadata.to_json());
    assert_eq!(task.take_recently_modified(), ["src/a.ts"]);
    assert!(task.take_recently_modified().is_empty());
    assert_eq!(task.take_checkpoint_possible(), ["src/a.ts"]);
    assert!(task.take_checkpoint_possible().is_empty());
    assert_eq!(task.files_read_by_agent(None), ["src/a.ts"]);
}

#[test]
fn at_most_one_record_per_path_is_active() {
    let mut task = TaskFiles::default();
    for (i, source) in [
        RecordSource::ReadTool,
        RecordSource::FileMentioned,
        RecordSource::RooEdited,
        RecordSource::UserEdited,
    ]
    .into_iter()
    .enumerate()
    {
        task.track("a", source, None, T1 + i as i64);
        task.track("b", RecordSource::ReadTool, None, T1 + i as i64);
    }
    for path in ["a", "b"] {
        let active = task
            .metadata
            .files_in_context
            .iter()
            .filter(|e| e.path == path && e.record_state == RecordState::Active)
            .count();
        assert_eq!(active, 1, "{path}");
    }
    assert_eq!(task.metadata.files_in_context.len(), 8);
}

#[test]
fn dates_are_inherited_from_the_latest_truthy_value_and_zero_is_missing() {
    let input = r#"{"files_in_context":[{"path":"a","record_state":"stale","record_source":"roo_edited","roo_read_date":0,"roo_edit_date":0,"user_edit_date":0},{"path":"a","record_state":"stale","record_source":"roo_edited","roo_read_date":30,"roo_edit_date":20,"user_edit_date":null},{"path":"a","record_state":"active","record_source":"user_edited","roo_read_date":10,"roo_edit_date":null,"user_edit_date":40},{"path":"b","record_state":"active","record_source":"user_edited","roo_read_date":99,"roo_edit_date":99,"user_edit_date":99}]}"#;
    let mut task = TaskFiles::new(TaskMetadata::parse(input).unwrap());
    task.track("a", RecordSource::FileMentioned, None, 50);
    let last = task.metadata.files_in_context.last().unwrap();
    assert_eq!(
        (last.roo_read_date, last.roo_edit_date, last.user_edit_date),
        (Some(50), Some(20), Some(40))
    );
    task.track("c", RecordSource::UserEdited, None, 60);
    let last = task.metadata.files_in_context.last().unwrap();
    assert_eq!(
        (last.roo_read_date, last.roo_edit_date, last.user_edit_date),
        (None, None, Some(60))
    );
}

#[test]
fn files_read_are_newest_first_and_each_once() {
    use RecordSource::*;
    check_reads(
        &[
            ("a", ReadTool, T1),
            ("b", ReadTool, T2),
            ("a", ReadTool, T3),
        ],
        None,
        &["a", "b"],
    );
    check_reads(
        &[
            ("a", ReadTool, T1),
            ("b", ReadTool, T2),
            ("a", ReadTool, T3),
        ],
        Some(T3),
        &["a"],
    );
    check_reads(
        &[("a", ReadTool, T1), ("b", FileMentioned, T2)],
        Some(0),
        &["b", "a"],
    );
    // Edits carry a read date but are not reads.
    check_reads(
        &[
            ("a", RooEdited, T1),
            ("b", UserEdited, T2),
            ("c", ReadTool, T1),
        ],
        None,
        &["c"],
    );
    // Equal dates keep history order (stable sort).
    check_reads(
        &[
            ("x", ReadTool, T1),
            ("y", ReadTool, T1),
            ("z", ReadTool, T1),
        ],
        None,
        &["x", "y", "z"],
    );
}

#[test]
fn stale_reads_count_and_undated_reads_survive_the_since_filter() {
    let input = r#"{"files_in_context":[{"path":"old","record_state":"stale","record_source":"read_tool","roo_read_date":null,"roo_edit_date":null,"user_edit_date":null},{"path":"new","record_state":"stale","record_source":"read_tool","roo_read_date":5,"roo_edit_date":null,"user_edit_date":null},{"path":"gone","record_state":"active","record_source":"read_tool","roo_read_date":1,"roo_edit_date":null,"user_edit_date":null}]}"#;
    let metadata = TaskMetadata::parse(input).unwrap();
    assert_eq!(files_read_by_agent(&metadata, None), ["new", "gone", "old"]);
    assert_eq!(files_read_by_agent(&metadata, Some(5)), ["new", "old"]);
}

#[test]
fn the_sets_keep_insertion_order_and_hold_each_path_once() {
    let mut task = TaskFiles::default();
    for path in ["b", "a", "b"] {
        task.track(path, RecordSource::UserEdited, None, T1);
        task.track(path, RecordSource::RooEdited, None, T1);
    }
    assert_eq!(task.take_recently_modified(), ["b", "a"]);
    assert_eq!(task.take_checkpoint_possible(), ["b", "a"]);
    assert_eq!(task.take_recently_modified(), Vec::<String>::new());
}

#[test]
fn a_user_edit_right_after_an_agent_edit_is_reported() {
    let mut task = TaskFiles::default();
    task.track("a", RecordSource::ReadTool, Some(content("read")), T1);
    task.mark_agent_edited("a", content("agent"));
    // Both writes coalesced into one observation: the user's content is what is on disk.
    let change = task.observe("a", content("user"), &ChangeHint::Changed, T2);
    assert_eq!(change.map(|c| c.kind), Some(ChangeKind::Modified));
    assert_eq!(task.take_recently_modified(), ["a"]);
}

#[test]
fn an_agent_write_observed_late_or_twice_is_never_a_user_edit() {
    let mut task = TaskFiles::default();
    task.track("a", RecordSource::RooEdited, Some(content("agent")), T1);
    for _ in 0..3 {
        assert_eq!(
            task.observe("a", content("agent"), &ChangeHint::Changed, T2),
            None
        );
    }
    assert!(task.take_recently_modified().is_empty());
}

#[test]
fn repeated_events_for_one_user_edit_are_reported_once() {
    let mut task = TaskFiles::default();
    task.track("a", RecordSource::ReadTool, Some(content("v1")), T1);
    assert!(
        task.observe("a", content("v2"), &ChangeHint::Changed, T2)
            .is_some()
    );
    assert_eq!(
        task.observe("a", content("v2"), &ChangeHint::Changed, T3),
        None
    );
    let user_records = task
        .metadata
        .files_in_context
        .iter()
        .filter(|e| e.record_source == RecordSource::UserEdited)
        .count();
    assert_eq!(user_records, 1);
}

#[test]
fn a_save_with_identical_content_is_not_an_edit() {
    let mut task = TaskFiles::default();
    task.track("a", RecordSource::ReadTool, Some(content("same")), T1);
    assert_eq!(
        task.observe("a", content("same"), &ChangeHint::Changed, T2),
        None
    );
    assert_eq!(task.metadata.files_in_context.len(), 1);
}

#[test]
fn deletion_rename_and_recreation_are_classified() {
    let mut task = TaskFiles::default();
    task.track("a", RecordSource::ReadTool, Some(content("x")), T1);
    task.track("b", RecordSource::ReadTool, Some(content("y")), T1);
    let deleted = task.observe("a", Fingerprint::Missing, &ChangeHint::Changed, T2);
    assert_eq!(deleted.map(|c| c.kind), Some(ChangeKind::Deleted));
    let renamed = task.observe(
        "b",
        Fingerprint::Missing,
        &ChangeHint::RenamedAway {
            to: Some("c".into()),
        },
        T2,
    );
    assert_eq!(
        renamed.map(|c| c.kind),
        Some(ChangeKind::Renamed {
            to: Some("c".into())
        })
    );
    // Still missing: nothing new.
    assert_eq!(
        task.observe("a", Fingerprint::Missing, &ChangeHint::Changed, T3),
        None
    );
    // Back again with content: a modification.
    let back = task.observe("a", content("x"), &ChangeHint::Changed, T3);
    assert_eq!(back.map(|c| c.kind), Some(ChangeKind::Modified));
    // A rename hint whose path still has content (replaced in place) is a modification.
    let replaced = task.observe("b", content("z"), &ChangeHint::RenamedAway { to: None }, T3);
    assert_eq!(replaced.map(|c| c.kind), Some(ChangeKind::Modified));
    assert_eq!(task.take_recently_modified(), ["a", "b"]);
}

#[test]
fn an_agent_delete_marked_in_advance_is_not_reported() {
    let mut task = TaskFiles::default();
    task.track("a", RecordSource::ReadTool, Some(content("x")), T1);
    task.mark_agent_edited("a", Fingerprint::Missing);
    assert_eq!(
        task.observe("a", Fingerprint::Missing, &ChangeHint::Changed, T2),
        None
    );
}

#[test]
fn unwatched_paths_and_disposed_tasks_report_nothing() {
    let mut task = TaskFiles::default();
    task.track("unseen", RecordSource::ReadTool, None, T1);
    assert_eq!(
        task.observe("unseen", content("x"), &ChangeHint::Changed, T2),
        None
    );
    task.track("a", RecordSource::ReadTool, Some(content("x")), T1);
    assert!(task.is_watched("a"));
    task.stop_watching();
    assert_eq!(
        task.observe("a", content("y"), &ChangeHint::Changed, T2),
        None
    );
    assert_eq!(task.watched_paths().count(), 0);
}

#[test]
fn fingerprints_tell_contents_apart() {
    assert_eq!(content("abc"), content("abc"));
    assert_ne!(content("abc"), content("abd"));
    assert_ne!(content(""), Fingerprint::Missing);
    assert_eq!(
        classify(
            content("a"),
            content("a"),
            &ChangeHint::RenamedAway { to: None }
        ),
        None
    );
    assert_eq!(ChangeKind::Renamed { to: None }.as_str(), "renamed");
    assert_eq!(ChangeKind::Deleted.as_str(), "deleted");
    assert_eq!(ChangeKind::Modified.as_str(), "modified");
}

#[test]
fn sources_and_states_spell_like_the_original() {
    for source in [
        "read_tool",
        "user_edited",
        "roo_edited",
        "file_mentioned",
        "x",
    ] {
        assert_eq!(RecordSource::parse(source).as_str(), source);
    }
    for state in ["active", "stale", "y"] {
        assert_eq!(RecordState::parse(state).as_str(), state);
    }
}

#[test]
fn a_file_with_lone_surrogate_escapes_round_trips_byte_for_byte() {
    // JSON.stringify writes a path cut inside an emoji with a lone escape: not a corrupt file.
    let original = r#"{"files_in_context":[{"path":"src/\ud83d.ts","record_state":"active","record_source":"read_tool","roo_read_date":1,"roo_edit_date":null,"user_edit_date":null,"note\udc00":"\uDBFF"}]}"#;
    let metadata = TaskMetadata::parse(original).expect("parses");
    assert_eq!(metadata.to_json(), original);
}

#[test]
fn files_edited_by_the_agent_come_newest_edit_first_each_once() {
    let mut task = TaskFiles::default();
    task.track("src/old.ts", RecordSource::RooEdited, None, T1);
    task.track("src/read.ts", RecordSource::ReadTool, None, T2);
    task.track("src/new.ts", RecordSource::RooEdited, None, T2);
    task.track("src/old.ts", RecordSource::RooEdited, None, T3);
    task.track("src/user.ts", RecordSource::UserEdited, None, T3);
    assert_eq!(task.files_edited_by_agent(), ["src/old.ts", "src/new.ts"]);
}

#[test]
fn content_read_before_an_announced_agent_write_landed_is_not_a_user_edit() {
    // The flaky `files::the_agent_own_write...` run: a rescan read the old content, then the
    // mark was applied, then the stale observation was judged against the marked content.
    let mut task = TaskFiles::default();
    task.track("a", RecordSource::ReadTool, Some(content("original")), T1);
    task.mark_agent_edited("a", content("agent"));
    assert_eq!(
        task.observe("a", content("original"), &ChangeHint::Changed, T2),
        None
    );
    assert_eq!(
        task.observe("a", content("agent"), &ChangeHint::Changed, T2),
        None
    );
    // Once the write is seen, the old content coming back is the user's (an undo).
    let undo = task.observe("a", content("original"), &ChangeHint::Changed, T3);
    assert_eq!(undo.map(|c| c.kind), Some(ChangeKind::Modified));
    assert_eq!(task.take_recently_modified(), ["a"]);
}

#[test]
fn a_file_the_agent_creates_is_not_reported_missing_before_the_write_lands() {
    let mut task = TaskFiles::default();
    task.track(
        "new",
        RecordSource::ReadTool,
        Some(Fingerprint::Missing),
        T1,
    );
    task.mark_agent_edited("new", content("created"));
    assert_eq!(
        task.observe("new", Fingerprint::Missing, &ChangeHint::Changed, T2),
        None
    );
    let edit = task.observe("new", content("user"), &ChangeHint::Changed, T3);
    assert_eq!(edit.map(|c| c.kind), Some(ChangeKind::Modified));
}

#[test]
fn a_restored_path_is_judged_against_what_was_persisted_or_adopts_its_first_observation() {
    let mut task = TaskFiles::default();
    task.restore("known", Some(content("seen")));
    task.restore("unknown", None);
    assert!(task.is_watched("known") && task.is_watched("unknown"));
    // Edited while the server was down: reported once.
    let offline = task.observe("known", content("edited"), &ChangeHint::Changed, T2);
    assert_eq!(offline.map(|c| c.kind), Some(ChangeKind::Modified));
    assert_eq!(
        task.observe("known", content("edited"), &ChangeHint::Changed, T2),
        None
    );
    // Nothing to compare with: the first observation is adopted, the next change reported.
    assert_eq!(
        task.observe("unknown", content("x"), &ChangeHint::Changed, T2),
        None
    );
    assert!(
        task.observe("unknown", content("y"), &ChangeHint::Changed, T3)
            .is_some()
    );
    // A path tracked since the task was opened keeps its fresher knowledge.
    task.track("fresh", RecordSource::ReadTool, Some(content("new")), T1);
    task.restore("fresh", Some(content("old")));
    assert_eq!(task.known("fresh"), Some(content("new")));
    assert_eq!(task.take_recently_modified(), ["known", "unknown"]);
}

#[test]
fn active_paths_are_newest_first_and_each_once() {
    let mut task = TaskFiles::default();
    task.track("a", RecordSource::ReadTool, None, T1);
    task.track("b", RecordSource::ReadTool, None, T2);
    task.track("a", RecordSource::RooEdited, None, T3);
    assert_eq!(task.active_paths(), ["a", "b"]);
}

#[test]
fn the_disk_differing_from_what_the_host_told_is_no_edit_until_the_disk_changes() {
    // (name, on disk when tracked, then observed in order with whether each is reported)
    type Case<'a> = (&'a str, Fingerprint, &'a [(Fingerprint, bool)]);
    let missing = Fingerprint::Missing;
    let cases: &[Case] = &[
        ("crlf", content("a\r\n"), &[(content("a\r\n"), false)]),
        ("absent", missing, &[(missing, false), (missing, false)]),
        // A real edit is reported; undoing it back to the old disk content is one too.
        (
            "edited",
            content("disk"),
            &[(content("user"), true), (content("disk"), true)],
        ),
        // Once the disk shows what the host told, the old disk content is an edit again.
        (
            "caught up",
            content("disk"),
            &[(content("told"), false), (content("disk"), true)],
        ),
        // The same content as told: nothing is remembered.
        ("same", content("told"), &[(missing, true)]),
    ];
    for (name, on_disk, observations) in cases {
        let mut task = TaskFiles::default();
        task.track("a", RecordSource::ReadTool, Some(content("told")), T1);
        task.disk_differs_from_seen("a", *on_disk);
        for (i, (observed, reported)) in observations.iter().enumerate() {
            let change = task.observe("a", *observed, &ChangeHint::Changed, T2);
            assert_eq!(change.is_some(), *reported, "{name}: observation {i}");
        }
    }
    // An untracked path gains nothing.
    let mut task = TaskFiles::default();
    task.disk_differs_from_seen("a", content("disk"));
    assert!(task.superseded("a").is_empty());
}
