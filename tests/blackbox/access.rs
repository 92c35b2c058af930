//! `.rooignore` / `.zooignore` decisions, instructions, command vetting and write protection over
//! stdio, with the original's exact user-visible strings.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

const ROOIGNORE: &str = "node_modules\n.git\nsecrets/**\n*.log\n!keep.log\n";

fn fixture() -> Fixture {
    Fixture::new(&[
        (".rooignore", ROOIGNORE),
        ("src/app.ts", "export {}"),
        ("secrets/api.json", "{}"),
        ("logs/app.log", "x"),
        ("keep.log", "x"),
        ("node_modules/a/index.js", "x"),
    ])
}

fn allowed(server: &mut Server, paths: &[&str]) -> Vec<bool> {
    let result = server.call("roo/ignore/validateAccess", json!({"paths": paths}));
    result["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["allowed"].as_bool().unwrap())
        .collect()
}

#[test]
fn validate_access_reports_file_line_and_pattern() {
    let fixture = fixture();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let result = server.call(
        "roo/ignore/validateAccess",
        json!({"paths": ["src/app.ts", "secrets/api.json", "logs/app.log", "keep.log", ".rooignore"]}),
    );
    let results = result["results"].as_array().unwrap();
    assert_eq!(results[0], json!({"path": "src/app.ts", "allowed": true}));
    assert_eq!(results[1]["allowed"], false);
    assert_eq!(results[1]["blockedBy"]["file"], ".rooignore");
    assert_eq!(results[1]["blockedBy"]["line"], 3);
    assert_eq!(results[1]["blockedBy"]["pattern"], "secrets/**");
    assert_eq!(
        results[1]["toolError"],
        r#"{"status":"error","type":"access_denied","message":"Access blocked by .rooignore","path":"secrets/api.json","suggestion":"Try to continue without this file, or ask the user to update the .rooignore file"}"#
    );
    assert_eq!(results[2]["blockedBy"]["pattern"], "*.log");
    assert_eq!(results[3]["allowed"], true, "negation re-includes keep.log");
    assert_eq!(
        results[4]["allowed"], false,
        "the ignore file itself is blocked"
    );
    assert!(results[4]["blockedBy"].get("line").is_none());
}

#[test]
fn filter_paths_keeps_readable_paths_in_order() {
    let fixture = fixture();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let result = server.call(
        "roo/ignore/filterPaths",
        json!({"paths": ["b.ts", "node_modules/x", "a.ts", "secrets/k", "secrets"]}),
    );
    assert_eq!(result["paths"], json!(["b.ts", "a.ts", "secrets"]));
}

#[test]
fn instructions_are_the_originals_text() {
    let fixture = fixture();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let result = server.call("roo/ignore/instructions", json!({}));
    let expected = format!(
        "# .rooignore\n\n(The following is provided by a root-level .rooignore file where the user has specified files and directories that should not be accessed. When using list_files, you'll notice a \u{1F512} next to files that are blocked. Attempting to access the file's contents e.g. through read_file will result in an error.)\n\n{ROOIGNORE}\n.rooignore"
    );
    assert_eq!(result["instructions"], expected);
    assert_eq!(result["activeIgnoreFile"], ".rooignore");

    let protect = server.call("roo/protect/instructions", json!({}));
    assert_eq!(
        protect["instructions"],
        "# Protected Files\n\n(The following Roo configuration file patterns are write-protected and always require approval for modifications, regardless of autoapproval settings. When using list_files, you'll notice a \u{1F6E1} next to files that are write-protected.)\n\nProtected patterns: .rooignore, .roomodes, .roorules*, .clinerules*, .roo/**, .vscode/**, *.code-workspace, .rooprotected, AGENTS.md, AGENT.md"
    );
    assert_eq!(
        protect["message"],
        "This is a Roo configuration file and requires approval for modifications"
    );
}

/// Roo's texts report Roo's own ten patterns (its system prompt and `getProtectedPatterns`);
/// Zoo's report the union. The decisions are the union's under both: Roo still asks before a
/// write to a `.zoo/` folder.
#[test]
fn each_flavor_reports_its_own_protected_patterns_and_both_protect_the_union() {
    let fixture = fixture();
    for (flavor, reported) in [("roo", 10), ("zoo", 13)] {
        let mut server = Server::start_in_process(&[fixture.root()], json!({ "flavor": flavor }));
        let protect = server.call("roo/protect/instructions", json!({}));
        let patterns = protect["patterns"].as_array().unwrap();
        assert_eq!(patterns.len(), reported, "{flavor}: {patterns:?}");
        assert_eq!(
            patterns.iter().any(|p| p == ".zooignore"),
            flavor == "zoo",
            "{flavor}"
        );
        let checked = server.call(
            "roo/protect/check",
            json!({"paths": [".zoo/x.json", ".zooignore", ".roo/mcp.json", "src/a.ts"]}),
        );
        let flags: Vec<bool> = checked["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["isProtected"].as_bool().unwrap())
            .collect();
        assert_eq!(flags, [true, true, true, false], "{flavor}");
    }
}

/// A `.rooignore` that is a link into a folder its own rules block: its rules apply, but its
/// bytes are not shown (the original sends them whatever the file is).
#[test]
fn instructions_withhold_an_ignore_file_linked_into_a_folder_it_blocks() {
    let fixture = Fixture::new(&[
        (
            "secrets/rooignore",
            "secrets/\n# deploy token sk-live-0042\n",
        ),
        ("config/rooignore", "build/\n"),
        ("src/a.ts", "x"),
    ]);
    fixture.symlink("secrets/rooignore", ".rooignore");
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    assert_eq!(
        allowed(&mut server, &["secrets/rooignore", "src/a.ts"]),
        vec![false, true]
    );
    let result = server.call("roo/ignore/instructions", json!({}));
    let text = result["instructions"].as_str().unwrap();
    assert!(!text.contains("sk-live-0042"), "{text}");
    assert!(text.contains("its text is not shown"), "{text}");
    assert!(text.starts_with("# .rooignore\n\n(The following is provided"));
    assert!(text.ends_with("\n.rooignore"), "{text}");
    assert_eq!(result["activeIgnoreFile"], ".rooignore");
    drop(server);

    // A link to a file the rules allow is shown as the original shows it.
    std::fs::remove_file(fixture.path(".rooignore")).unwrap();
    fixture.symlink("config/rooignore", ".rooignore");
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let result = server.call("roo/ignore/instructions", json!({}));
    let text = result["instructions"].as_str().unwrap();
    assert!(text.ends_with("\n\nbuild/\n\n.rooignore"), "{text}");
}

#[test]
fn no_ignore_file_means_everything_readable_and_no_instructions() {
    let fixture = Fixture::new(&[("secrets/a", "x")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    assert_eq!(
        allowed(&mut server, &["secrets/a", ".rooignore"]),
        vec![true, true]
    );
    let result = server.call("roo/ignore/instructions", json!({}));
    assert_eq!(result["instructions"], Value::Null);
}

#[test]
fn under_zoo_both_ignore_files_are_in_force_with_zoo_wording() {
    let fixture = Fixture::new(&[(".rooignore", "a.txt\n"), (".zooignore", "b.txt\n!a.txt\n")]);
    let mut server = Server::start_in_process(&[fixture.root()], json!({"flavor": "zoo"}));
    assert_eq!(
        allowed(&mut server, &["a.txt", "b.txt", ".rooignore", ".zooignore"]),
        vec![false, false, false, false]
    );
    let zoo_error = |path: &str| {
        format!(
            r#"{{"status":"error","type":"access_denied","message":"Access blocked by the project ignore file (.zooignore preferred, .rooignore fallback)","path":"{path}","suggestion":"Try to continue without this file, or ask the user to update the project ignore file (.zooignore preferred, .rooignore fallback)"}}"#
        )
    };
    let result = server.call(
        "roo/ignore/validateAccess",
        json!({"paths": ["b.txt", "a.txt"]}),
    );
    assert_eq!(result["results"][0]["toolError"], zoo_error("b.txt"));
    assert_eq!(result["results"][1]["toolError"], zoo_error("a.txt"));
    assert_eq!(result["results"][1]["blockedBy"]["file"], ".rooignore");
    let instructions = server.call("roo/ignore/instructions", json!({}));
    let text = instructions["instructions"].as_str().unwrap();
    assert!(text.starts_with(
        "# .zooignore\n\n(The following is provided by a root-level project ignore file"
    ));
    assert!(
        text.contains("b.txt\n!a.txt\n\n.zooignore\n\n# .rooignore\n\n(The following is provided by a root-level .rooignore file"),
        "{text}"
    );
    assert!(text.ends_with("a.txt\n\n.rooignore"), "{text}");
    let status = server.call("roo/workspace/status", json!({}));
    assert_eq!(status["folders"][0]["activeIgnoreFile"], ".zooignore");
    assert_eq!(status["folders"][0]["ruleCount"], 7, "{status}");
}

#[test]
fn under_roo_a_zooignore_is_never_read_and_a_switch_of_flavor_rereads_the_folder() {
    let fixture = Fixture::new(&[(".rooignore", "a.txt\n"), (".zooignore", "b.txt\n")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    assert_eq!(
        allowed(&mut server, &["a.txt", "b.txt", ".zooignore"]),
        vec![false, true, false]
    );
    let instructions = server.call("roo/ignore/instructions", json!({}));
    let text = instructions["instructions"].as_str().unwrap();
    assert!(text.starts_with("# .rooignore\n\n"), "{text}");
    assert!(!text.contains("b.txt"), "{text}");
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"rooContext": {"flavor": "zoo"}}}),
    );
    assert_eq!(
        allowed(&mut server, &["a.txt", "b.txt"]),
        vec![false, false]
    );
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"rooContext": {"flavor": "roo"}}}),
    );
    assert_eq!(allowed(&mut server, &["a.txt", "b.txt"]), vec![false, true]);
}

#[test]
fn an_empty_zooignore_drops_no_rooignore_rule() {
    let fixture = Fixture::new(&[
        (".rooignore", "secrets/\n"),
        (".zooignore", ""),
        ("secrets/key.pem", "k"),
    ]);
    for flavor in ["roo", "zoo"] {
        let mut server = Server::start_in_process(&[fixture.root()], json!({"flavor": flavor}));
        assert_eq!(
            allowed(&mut server, &["secrets/key.pem"]),
            vec![false],
            "{flavor}"
        );
    }
}

#[test]
fn write_protection_covers_the_union_nested_folders_and_extras() {
    let fixture = Fixture::new(&[]);
    let mut server = Server::start_in_process(
        &[fixture.root()],
        json!({"extraProtectedPatterns": ["*.lock"]}),
    );
    let paths = [
        ".roo/mcp.json",
        "AGENTS.md",
        "docs/agents.md",
        ".roorules-code",
        "x/y.code-workspace",
        ".zoo/a",
        "packages/x/.roo/rules.md",
        "sub/.vscode/settings.json",
        "Cargo.lock",
        "src/app.ts",
        ".roo",
        "README.md",
    ];
    let result = server.call("roo/protect/check", json!({"paths": paths}));
    let protected: Vec<bool> = result["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["isProtected"].as_bool().unwrap())
        .collect();
    assert_eq!(
        protected,
        vec![
            true, true, true, true, true, true, true, true, true, false, false, false
        ]
    );
    assert_eq!(result["results"][0]["pattern"], ".roo/**");
    let annotated = server.call(
        "roo/protect/annotate",
        json!({"paths": ["AGENTS.md", "a.ts"]}),
    );
    assert_eq!(
        annotated["paths"],
        json!([{"path": "AGENTS.md", "isProtected": true}, {"path": "a.ts", "isProtected": false}])
    );
}

#[test]
fn multi_root_workspaces_apply_each_folders_rules() {
    let first = Fixture::new(&[(".rooignore", "one.txt\n")]);
    let second = Fixture::new(&[(".rooignore", "two.txt\n")]);
    let mut server = Server::start_in_process(&[first.root(), second.root()], Value::Null);
    let paths = [
        first.path("one.txt"),
        first.path("two.txt"),
        second.path("one.txt"),
        second.path("two.txt"),
    ];
    let paths: Vec<String> = paths
        .iter()
        .map(|p| p.to_string_lossy().into_owned())
        .collect();
    let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
    assert_eq!(allowed(&mut server, &refs), vec![false, true, true, false]);
    // `cwd` picks the base for relative paths.
    let result = server.call(
        "roo/ignore/validateAccess",
        json!({"paths": ["two.txt"], "cwd": second.root()}),
    );
    assert_eq!(result["results"][0]["allowed"], false);
}

#[test]
fn workspace_folders_can_change_at_run_time() {
    let first = Fixture::new(&[(".rooignore", "one.txt\n")]);
    let second = Fixture::new(&[(".rooignore", "two.txt\n")]);
    let mut server = Server::start_in_process(&[first.root()], Value::Null);
    let two = second.path("two.txt").to_string_lossy().into_owned();
    assert_eq!(allowed(&mut server, &[&two]), vec![true]);
    server.notify(
        "workspace/didChangeWorkspaceFolders",
        json!({"event": {"added": [{"uri": crate::harness::file_uri(second.root()), "name": "second"}], "removed": []}}),
    );
    assert_eq!(allowed(&mut server, &[&two]), vec![false]);
}

#[test]
fn deny_outside_workspace_setting_blocks_outside_paths() {
    let fixture = Fixture::new(&[]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    assert_eq!(
        allowed(&mut server, &["/etc/hostname", "../x"]),
        vec![true, true]
    );
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"rooContext": {"denyOutsideWorkspace": true}}}),
    );
    let result = server.call(
        "roo/ignore/validateAccess",
        json!({"paths": ["/etc/hostname", "../x", "in.txt"]}),
    );
    assert_eq!(
        result["results"][0]["blockedBy"]["kind"],
        "outsideWorkspace"
    );
    assert_eq!(result["results"][1]["allowed"], false);
    assert_eq!(result["results"][2]["allowed"], true);
}

#[test]
fn large_batches_are_decided_in_order() {
    let fixture = fixture();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let paths: Vec<String> = (0..2_000)
        .map(|i| {
            if i % 3 == 0 {
                format!("secrets/{i}.json")
            } else {
                format!("src/{i}.ts")
            }
        })
        .collect();
    let result = server.call("roo/ignore/validateAccess", json!({"paths": paths}));
    let results = result["results"].as_array().unwrap();
    assert_eq!(results.len(), 2_000);
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r["path"], paths[i]);
        assert_eq!(r["allowed"], i % 3 != 0);
    }
}

/// `roo/ignore/setRules`: a host whose files are not on the sidecar's disk (an in-memory file
/// system, `vscode.workspace.fs`) provides the ignore file's text; while it does, the disk's
/// file is not read; `hostOwned: false` gives the folder back to its disk.
#[test]
fn host_provided_rules_replace_the_disk_ones_until_given_back() {
    let fixture = fixture();
    let root = fixture.root().to_string_lossy().into_owned();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    let paths = ["secrets/api.json", "src/app.ts", "keep.log"];
    assert_eq!(allowed(&mut server, &paths), [false, true, true]);
    let set = |server: &mut Server, params: Value| server.call("roo/ignore/setRules", params);
    let result = set(
        &mut server,
        json!({"folder": root, "file": ".rooignore", "content": "src/\n"}),
    );
    assert_eq!(result["activeIgnoreFile"], ".rooignore");
    assert!(result["ruleCount"].as_u64().unwrap() >= 1, "{result}");
    assert_eq!(allowed(&mut server, &paths), [true, false, true]);
    let instructions = server.call("roo/ignore/instructions", json!({}));
    assert!(
        instructions["instructions"]
            .as_str()
            .unwrap()
            .ends_with("src/\n\n.rooignore"),
        "{instructions}"
    );
    // As on disk: under Roo's flavor a host .zooignore is not read; under Zoo's both are in force.
    set(
        &mut server,
        json!({"folder": root, "file": ".zooignore", "content": "*.log\n"}),
    );
    assert_eq!(allowed(&mut server, &paths), [true, false, true]);
    server.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"rooContext": {"flavor": "zoo"}}}),
    );
    assert_eq!(allowed(&mut server, &paths), [true, false, false]);
    // The host has no ignore file at all: nothing is blocked by one (the disk's is not read).
    set(
        &mut server,
        json!({"folder": root, "file": ".zooignore", "content": null}),
    );
    let none = set(
        &mut server,
        json!({"folder": root, "file": ".rooignore", "content": null}),
    );
    assert_eq!(none["activeIgnoreFile"], Value::Null);
    assert_eq!(allowed(&mut server, &paths), [true, true, true]);
    // Given back: the disk's .rooignore again.
    set(
        &mut server,
        json!({"folder": root, "file": ".rooignore", "content": null, "hostOwned": false}),
    );
    assert_eq!(allowed(&mut server, &paths), [false, true, true]);
    // Bad params name the field.
    for (params, field) in [
        (
            json!({"folder": "/no/such/folder", "file": ".rooignore", "content": ""}),
            "folder",
        ),
        (
            json!({"folder": root, "file": ".gitignore", "content": ""}),
            "file",
        ),
    ] {
        let error = server.request("roo/ignore/setRules", params).unwrap_err();
        assert_eq!(error["code"], -32602);
        assert!(
            error["message"].as_str().unwrap().contains(field),
            "{error}"
        );
    }
}

/// Issue 29: the compact form lists only blocked paths, each distinct rule once, and its tool
/// result template gives back the full form's `toolError` exactly, for paths that need JSON
/// escaping too; under both wordings and for the outside-workspace rule.
#[test]
fn compact_access_answers_expand_to_the_full_form_exactly() {
    let fixture = fixture();
    for settings in [
        json!({}),
        json!({"flavor": "zoo", "denyOutsideWorkspace": true}),
    ] {
        let mut server = Server::start_in_process(&[fixture.root()], settings.clone());
        let mut paths: Vec<String> = vec![
            "src/app.ts".into(),
            "secrets/api.json".into(),
            "secrets/\"quoted\"\\back\nslash.json".into(),
            "logs/app.log".into(),
            "secrets/ünï\u{2028}code\u{7}.json".into(),
            "/etc/hostname".into(),
        ];
        paths.extend((0..200).map(|i| format!("logs/{i}.log")));
        let full = server.call("roo/ignore/validateAccess", json!({"paths": paths}));
        let compact = server.call(
            "roo/ignore/validateAccess",
            json!({"paths": paths, "compact": true}),
        );
        assert_eq!(compact["results"], json!([]), "{settings}");
        let compact = &compact["compact"];
        assert_eq!(compact["count"], paths.len());
        let rules = compact["rules"].as_array().unwrap();
        assert!(rules.len() <= 3, "each rule once: {rules:?}");
        let mut expanded: Vec<Value> = paths
            .iter()
            .map(|path| json!({"path": path, "allowed": true}))
            .collect();
        for entry in compact["blocked"].as_array().unwrap() {
            let (index, rule) = (
                entry[0].as_u64().unwrap() as usize,
                entry[1].as_u64().unwrap() as usize,
            );
            let path = &paths[index];
            let escaped = serde_json::to_string(path).unwrap();
            let template = rules[rule]["toolErrorTemplate"].as_str().unwrap();
            expanded[index]["allowed"] = json!(false);
            expanded[index]["toolError"] =
                json!(template.replace("{path}", &escaped[1..escaped.len() - 1]));
            expanded[index]["blockedBy"] = rules[rule]["blockedBy"].clone();
        }
        for (index, (want, got)) in full["results"]
            .as_array()
            .unwrap()
            .iter()
            .zip(&expanded)
            .enumerate()
        {
            assert_eq!(want["allowed"], got["allowed"], "{settings} {index}");
            assert_eq!(want["toolError"], got["toolError"], "{settings} {index}");
            let mut rule = want["blockedBy"].clone();
            if let Some(rule) = rule.as_object_mut() {
                rule.remove("matchedPath");
                rule.remove("via");
            }
            assert_eq!(rule, got["blockedBy"], "{settings} {index}");
        }
        let bytes = |v: &Value| v.to_string().len();
        assert!(
            bytes(compact) * 5 < bytes(&full["results"]),
            "{} vs {}",
            bytes(compact),
            bytes(&full["results"])
        );
    }
}
