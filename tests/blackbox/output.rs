//! `roo/output/ingest` and `roo/output/read` over JSON-RPC (issue 31): bounded previews that keep
//! the failing lines, exact paging, unknown ids, blocked source paths, a 20 MB output.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server, assert_invalid_field};

fn setup(files: &[(&str, &str)]) -> (Fixture, tempfile::TempDir, Server) {
    let fixture = Fixture::new(files);
    let storage = tempfile::tempdir().unwrap();
    let server = Server::start_in_process(&[fixture.root()], json!({}));
    (fixture, storage, server)
}

fn failing_log(passing: usize) -> String {
    let mut log = String::from("running tests\n");
    for i in 0..passing {
        log.push_str(&format!("test suite::case_{i} ... ok\n"));
        if i == passing / 3 {
            log.push_str("test suite::broken ... FAILED\n");
        }
    }
    log.push_str(&format!(
        "test result: FAILED. {passing} passed; 1 failed\n"
    ));
    for i in 0..passing {
        log.push_str(&format!("trailing noise line {i}\n"));
    }
    log.push_str("done");
    log
}

#[test]
fn ingest_of_a_large_failing_log_keeps_failures_and_summary_under_the_cap() {
    let (_f, storage, mut server) = setup(&[("a.txt", "a")]);
    let log = failing_log(20_000);
    let result = server
        .request(
            "roo/output/ingest",
            json!({"taskId": "t", "storageDir": storage.path(), "text": log, "kind": "command", "capTokens": 2000}),
        )
        .unwrap();
    assert_eq!(result["truncated"], true);
    let text = result["text"].as_str().unwrap();
    assert!(text.contains("test suite::broken ... FAILED"), "{text}");
    assert!(
        text.contains("test result: FAILED. 20000 passed; 1 failed"),
        "{text}"
    );
    assert!(text.contains("roo/output/read"), "{text}");
    let count = server
        .request("roo/tokens/count", json!({"text": text}))
        .unwrap();
    assert!(count["total"].as_u64().unwrap() <= 2000, "{count}");
    assert_eq!(result["totalBytes"], log.len() as u64);
    assert_eq!(result["totalLines"], 40_004);
}

#[test]
fn paging_returns_the_exact_bytes_crlf_and_last_line_without_newline_included() {
    let (_f, storage, mut server) = setup(&[("a.txt", "a")]);
    let text = "first\r\nsecond\nerror: third\r\nlast without newline";
    let ingested = server
        .request(
            "roo/output/ingest",
            json!({"taskId": "t", "storageDir": storage.path(), "text": text}),
        )
        .unwrap();
    assert_eq!(ingested["truncated"], false);
    assert_eq!(ingested["text"], text);
    let id = ingested["outputId"].as_str().unwrap().to_string();
    let all = server
        .request(
            "roo/output/read",
            json!({"taskId": "t", "storageDir": storage.path(), "outputId": id}),
        )
        .unwrap();
    assert_eq!(all["text"].as_str().unwrap().as_bytes(), text.as_bytes());
    assert_eq!(all["totalLines"], 4);
    let range = server
        .request(
            "roo/output/read",
            json!({"taskId": "t", "storageDir": storage.path(), "outputId": id, "startLine": 2, "endLine": 4}),
        )
        .unwrap();
    assert_eq!(
        range["text"],
        "second\nerror: third\r\nlast without newline"
    );
    let matched = server
        .request(
            "roo/output/read",
            json!({"taskId": "t", "storageDir": storage.path(), "outputId": id, "pattern": "^(first|error)"}),
        )
        .unwrap();
    assert_eq!(
        matched["lines"],
        json!([{"line": 1, "text": "first\r\n"}, {"line": 3, "text": "error: third\r\n"}])
    );
}

#[test]
fn an_unknown_output_id_is_an_error_naming_the_field() {
    let (_f, storage, mut server) = setup(&[("a.txt", "a")]);
    let error = server
        .request(
            "roo/output/read",
            json!({"taskId": "t", "storageDir": storage.path(), "outputId": "0".repeat(64)}),
        )
        .unwrap_err();
    assert_invalid_field(&error, "outputId");
}

#[test]
fn a_blocked_source_path_is_refused_at_ingest_and_at_read_after_the_rules_change() {
    let (fixture, storage, mut server) = setup(&[
        (".rooignore", "secret.txt\n"),
        ("secret.txt", "key"),
        ("open.txt", "fine"),
    ]);
    let error = server
        .request(
            "roo/output/ingest",
            json!({"taskId": "t", "storageDir": storage.path(), "text": "key", "kind": "fileRead", "sourcePath": "secret.txt"}),
        )
        .unwrap_err();
    assert_invalid_field(&error, "sourcePath");
    let ingested: Value = server
        .request(
            "roo/output/ingest",
            json!({"taskId": "t", "storageDir": storage.path(), "text": "fine", "kind": "fileRead", "sourcePath": "open.txt"}),
        )
        .unwrap();
    let id = ingested["outputId"].as_str().unwrap().to_string();
    // The host's view of the rules changes: the stored output is judged again at read time.
    server
        .request(
            "roo/ignore/setRules",
            json!({"folder": fixture.root(), "file": ".rooignore", "content": "secret.txt\nopen.txt\n"}),
        )
        .unwrap();
    let error = server
        .request(
            "roo/output/read",
            json!({"taskId": "t", "storageDir": storage.path(), "outputId": id}),
        )
        .unwrap_err();
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("field `sourcePath`"),
        "{error}"
    );
}

#[test]
fn a_twenty_megabyte_output_is_ingested_and_paged() {
    let (_f, storage, mut server) = setup(&[("a.txt", "a")]);
    let line = "x".repeat(99) + "\n";
    let text = line.repeat(200_000) + "error: at the very end\n";
    let ingested = server
        .request(
            "roo/output/ingest",
            json!({"taskId": "t", "storageDir": storage.path(), "text": text, "kind": "command"}),
        )
        .unwrap();
    assert_eq!(ingested["truncated"], true);
    assert!(
        ingested["text"]
            .as_str()
            .unwrap()
            .contains("error: at the very end")
    );
    let id = ingested["outputId"].as_str().unwrap().to_string();
    let last = server
        .request(
            "roo/output/read",
            json!({"taskId": "t", "storageDir": storage.path(), "outputId": id, "startLine": 200_001}),
        )
        .unwrap();
    assert_eq!(last["text"], "error: at the very end\n");
}

/// The same bytes read from two files: both sources are kept, so a rule added later on either
/// one withholds them (the second ingest used to replace the first's record). A source record
/// that cannot be parsed withholds them too, never "no source".
#[test]
fn every_source_of_the_same_bytes_is_judged_at_read_and_a_broken_record_fails_closed() {
    let (fixture, storage, mut server) = setup(&[("first.txt", "same"), ("second.txt", "same")]);
    let ingest = |server: &mut Server, source: &str| -> String {
        let answer: Value = server
            .request(
                "roo/output/ingest",
                json!({"taskId": "t", "storageDir": storage.path(), "text": "same", "kind": "fileRead", "sourcePath": source}),
            )
            .unwrap();
        answer["outputId"].as_str().unwrap().to_string()
    };
    let id = ingest(&mut server, "first.txt");
    assert_eq!(ingest(&mut server, "second.txt"), id);
    let read = |server: &mut Server| {
        server.request(
            "roo/output/read",
            json!({"taskId": "t", "storageDir": storage.path(), "outputId": id}),
        )
    };
    assert_eq!(read(&mut server).unwrap()["text"], "same");
    server
        .request(
            "roo/ignore/setRules",
            json!({"folder": fixture.root(), "file": ".rooignore", "content": "first.txt\n"}),
        )
        .unwrap();
    assert_invalid_field(&read(&mut server).unwrap_err(), "sourcePath");
    server
        .request(
            "roo/ignore/setRules",
            json!({"folder": fixture.root(), "file": ".rooignore", "content": null}),
        )
        .unwrap();
    assert_eq!(read(&mut server).unwrap()["text"], "same");
    let record = storage
        .path()
        .join("roo-context/outputs")
        .join(format!("{id}.source"));
    std::fs::write(&record, "not json").unwrap();
    let error = read(&mut server).unwrap_err();
    assert_ne!(error["code"], Value::Null, "{error}");
    // A record that cannot be read at all (here a folder in its place) was taken as none.
    std::fs::remove_file(&record).unwrap();
    std::fs::create_dir(&record).unwrap();
    let error = read(&mut server).unwrap_err();
    assert_ne!(error["code"], Value::Null, "{error}");
}

#[test]
fn lines_a_command_or_search_quotes_from_a_blocked_file_are_withheld_before_storing() {
    let (fixture, storage, mut server) = setup(&[
        (".rooignore", ".env\nsecrets/\n"),
        (".env", "API_KEY=sk-live-51\n"),
        ("secrets/db.ts", "export const PASSWORD = \"hunter2\"\n"),
        ("src/app.ts", "const key = process.env.API_KEY\n"),
    ]);
    // `grep -rn` walks the whole tree; nothing about the command named the blocked files.
    let grep = "./.env:1:API_KEY=sk-live-51\n./src/app.ts:1:const key = process.env.API_KEY\nsecrets/db.ts:1:export const PASSWORD = \"hunter2\"\n";
    let search = "Found 2 results.\n\n# src/app.ts\n  1 | const key = process.env.API_KEY\n----\n\n# secrets/db.ts\n  1 | export const PASSWORD = \"hunter2\"\n----";
    for (kind, text, paths, lines) in [
        ("command", grep, json!(["./.env", "secrets/db.ts"]), 2),
        ("search", search, json!(["secrets/db.ts"]), 3),
    ] {
        let ingested: Value = server
            .request(
                "roo/output/ingest",
                json!({"taskId": "t", "storageDir": storage.path(), "text": text, "kind": kind, "cwd": fixture.root()}),
            )
            .unwrap();
        assert_eq!(ingested["withheldPaths"], paths, "{ingested}");
        assert_eq!(ingested["withheldLines"], lines, "{ingested}");
        let shown = ingested["text"].as_str().unwrap();
        assert!(shown.contains("const key = process.env.API_KEY"), "{shown}");
        assert!(shown.contains("withheld: the file is blocked"), "{shown}");
        // What is stored is what was shown: paging can never return the blocked bytes.
        let read: Value = server
            .request(
                "roo/output/read",
                json!({"taskId": "t", "storageDir": storage.path(), "outputId": ingested["outputId"], "maxLines": 100}),
            )
            .unwrap();
        for answer in [ingested.to_string(), read.to_string()] {
            for secret in ["sk-live-51", "hunter2"] {
                assert!(!answer.contains(secret), "{secret} leaked: {answer}");
            }
        }
    }
    // Nothing blocked: the answer carries no withheld fields and the bytes are untouched.
    let plain: Value = server
        .request(
            "roo/output/ingest",
            json!({"taskId": "t", "storageDir": storage.path(), "text": "./src/app.ts:1:x\n", "kind": "command"}),
        )
        .unwrap();
    assert_eq!(plain["text"], "./src/app.ts:1:x\n");
    assert!(plain.get("withheldPaths").is_none() && plain.get("withheldLines").is_none());
}
