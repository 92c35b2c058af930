//! The read gate over stdio: FIFOs and devices never hang or flood any reader, links and swaps
//! never carry a blocked file's bytes into an answer (mentions, command files, folded context,
//! outlines, symbols, folding ranges, git), NUL paths are refused with -32602, and
//! `denyOutsideWorkspace` sees through links.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::{Value, json};

use crate::harness::{Fixture, Server, file_uri};

const SECRET: &str = "leakedSecretName";

fn start(fixture: &Fixture, home: &Path, options: Value) -> Server {
    let home = home.to_string_lossy().into_owned();
    let mut server = Server::spawn_with_env(&[("HOME", home.as_str())]);
    server
        .initialize(&[fixture.root()], options)
        .expect("initialize");
    server
}

fn hostile_workspace() -> Fixture {
    let fixture = Fixture::new(&[
        (".rooignore", ".env\nsecrets/\n"),
        (".env", &format!("TOKEN={SECRET}\n")),
        (
            "secrets/token.ts",
            &format!("export function {SECRET}() {{\n  return 1;\n}}\n"),
        ),
        (
            "src/app.ts",
            "export function app() {\n  const a = 1;\n  const b = 2;\n  const c = 3;\n  return 2;\n}\n",
        ),
    ]);
    let status = Command::new("mkfifo")
        .arg(fixture.path("src/pipe.ts"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    fixture.symlink("/dev/zero", "src/zero.ts");
    fixture.symlink("/dev/urandom", "src/random.md");
    fixture
}

fn text_of(value: &Value) -> String {
    value.to_string()
}

#[test]
fn fifos_and_devices_never_hang_or_flood_any_reader() {
    let fixture = hostile_workspace();
    let home = tempfile::tempdir().unwrap();
    let storage = tempfile::tempdir().unwrap();
    let mut server = start(&fixture, home.path(), Value::Null);
    let specials = ["src/pipe.ts", "src/zero.ts", "src/random.md"];
    // Each twice: before the fix four such requests filled every handler slot for good.
    for _ in 0..2 {
        let context = server.call(
            "roo/fold/context",
            json!({"paths": ["src/pipe.ts", "src/zero.ts", "src/random.md", "src/app.ts"]}),
        );
        assert!(
            context["content"].as_str().unwrap().contains("app"),
            "{context}"
        );
        let kinds: Vec<&str> = context["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["path"] != "src/app.ts")
            .map(|d| d["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["unreadable"; 3], "{context}");
        for path in specials {
            let outline = server.request("roo/fold/outline", json!({"path": path}));
            assert!(outline.is_err(), "{path}: {outline:?}");
            let uri = file_uri(&fixture.path(path));
            for method in ["textDocument/foldingRange", "textDocument/documentSymbol"] {
                let answer = server.call(method, json!({"textDocument": {"uri": uri}}));
                assert!(answer.is_null(), "{method} {path}: {answer}");
            }
            let tracked = server.call(
                "roo/files/track",
                json!({"taskId": "t1", "storageDir": storage.path(), "path": path, "source": "read_tool"}),
            );
            assert!(tracked.is_object(), "{tracked}");
        }
        let mentions = server.call(
            "roo/mentions/parse",
            json!({"text": "@/src/pipe.ts @/src/zero.ts @/src/random.md @/src/"}),
        );
        let blocks = mentions["contentBlocks"].as_array().unwrap();
        for block in &blocks[..3] {
            assert!(
                block["content"]
                    .as_str()
                    .unwrap()
                    .contains("Unable to read"),
                "{block}"
            );
        }
        assert!(text_of(&mentions).contains("return 2"), "{mentions}");
    }
    // The tracker still judges changes after it met the FIFO.
    let tracked = server.call(
        "roo/files/track",
        json!({"taskId": "t1", "storageDir": storage.path(), "path": "src/app.ts", "source": "read_tool"}),
    );
    assert!(tracked.is_object());
    let answer = server.call(
        "roo/ignore/validateAccess",
        json!({"paths": ["src/app.ts"]}),
    );
    assert_eq!(answer["results"][0]["allowed"], true);
}

#[test]
fn a_command_file_linked_to_an_ignored_file_never_reaches_the_help() {
    let fixture = hostile_workspace();
    fixture.symlink("../../.env", ".roo/commands/setup.md");
    fixture.symlink("../../secrets/token.ts", ".roo/commands/token.md");
    fixture.write(".roo/commands/fine.md", "Do the fine thing.\n");
    let home = tempfile::tempdir().unwrap();
    let mut server = start(&fixture, home.path(), Value::Null);
    for text in ["/setup now", "/token now"] {
        let result = server.call("roo/mentions/parse", json!({"text": text}));
        assert!(!text_of(&result).contains(SECRET), "{text}: {result}");
    }
    let fine = server.call("roo/mentions/parse", json!({"text": "/fine now"}));
    assert!(
        fine["slashCommandHelp"]
            .as_str()
            .unwrap()
            .contains("Do the fine thing."),
        "{fine}"
    );
}

fn git(root: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .current_dir(root)
        .output()
        .expect("git runs");
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn git_mentions_leave_out_blocked_paths() {
    let fixture = Fixture::new(&[
        (".rooignore", ".env\nsecrets/\n*.pem\n"),
        (".env", "TOKEN=old\n"),
        ("secrets/a b.txt", "old\n"),
        ("src/app.ts", "export const app = 1;\n"),
    ]);
    let root = fixture.root();
    git(root, &["init", "-q"]);
    git(root, &["add", "-A", "-f"]);
    git(root, &["commit", "-q", "-m", "first"]);
    fixture.write(".env", &format!("TOKEN={SECRET}\n"));
    fixture.write("secrets/a b.txt", &format!("{SECRET}\n"));
    fixture.write("secrets/\u{e9}.txt", &format!("{SECRET}\n"));
    fixture.write("deploy.pem", &format!("{SECRET}\n"));
    fixture.write("src/app.ts", "export const app = 2;\n");
    git(root, &["add", "-A", "-f"]);
    git(root, &["commit", "-q", "-m", "second"]);
    let hash = git(root, &["rev-parse", "HEAD"]).trim().to_owned();
    fixture.write(".env", &format!("TOKEN={SECRET}-2\n"));
    fixture.write("secrets/a b.txt", &format!("{SECRET}-2\n"));
    fixture.write("src/app.ts", "export const app = 3;\n");
    fixture.write("new.pem", &format!("{SECRET}\n"));

    let home = tempfile::tempdir().unwrap();
    let mut server = start(&fixture, home.path(), Value::Null);
    let changes = server.call("roo/mentions/parse", json!({"text": "see @git-changes"}));
    let changes = text_of(&changes);
    assert!(!changes.contains(SECRET), "{changes}");
    assert!(!changes.contains(".env"), "{changes}");
    assert!(changes.contains("app = 3"), "{changes}");
    let commit = server.call(
        "roo/mentions/parse",
        json!({"text": format!("see @{hash}")}),
    );
    let commit = text_of(&commit);
    assert!(!commit.contains(SECRET), "{commit}");
    assert!(!commit.contains("deploy.pem"), "{commit}");
    assert!(commit.contains("app = 2"), "{commit}");
}

#[test]
fn a_nul_in_any_path_is_refused_naming_the_field() {
    let fixture = hostile_workspace();
    let home = tempfile::tempdir().unwrap();
    let storage = tempfile::tempdir().unwrap();
    let mut server = start(&fixture, home.path(), Value::Null);
    let cases = [
        (
            "roo/ignore/validateAccess",
            json!({"paths": ["ok", "a.pem\u{0}"]}),
            "paths[1]",
        ),
        (
            "roo/ignore/validateAccess",
            json!({"paths": ["ok"], "cwd": "src\u{0}"}),
            "cwd",
        ),
        (
            "roo/protect/check",
            json!({"paths": ["x\u{0}y"]}),
            "paths[0]",
        ),
        (
            "roo/fold/context",
            json!({"paths": ["src/app.ts\u{0}"]}),
            "paths[0]",
        ),
        (
            "roo/fold/outline",
            json!({"path": "src/app.ts\u{0}"}),
            "path",
        ),
        (
            "roo/files/track",
            json!({"taskId": "t", "storageDir": storage.path(), "path": ".env\u{0}", "source": "read_tool"}),
            "path",
        ),
        (
            "roo/mentions/parse",
            json!({"text": "hi", "options": {"cwd": "src\u{0}"}}),
            "options.cwd",
        ),
        // A NUL-suffixed name no rule matches would be listed although `.env` is hidden.
        (
            "roo/ignore/formatFilesList",
            json!({"files": ["src/app.ts", ".env\u{0}"]}),
            "files[1]",
        ),
        (
            "roo/ignore/formatFilesList",
            json!({"files": ["app.ts"], "listedDir": "src\u{0}"}),
            "listedDir",
        ),
    ];
    for (method, params, field) in cases {
        let error = server.request(method, params).unwrap_err();
        assert_eq!(error["code"], -32602, "{method}: {error}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .contains(&format!("`{field}`")),
            "{method}: {error}"
        );
    }
    assert_eq!(
        server.call(
            "roo/ignore/validateAccess",
            json!({"paths": ["src/app.ts"]})
        )["results"][0]["allowed"],
        true
    );
}

#[test]
fn deny_outside_workspace_sees_through_links_inside() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("notes.txt"), SECRET).unwrap();
    let fixture = Fixture::new(&[("src/app.ts", "export {}\n")]);
    fixture.symlink(outside.path().join("notes.txt"), "src/notes.txt");
    fixture.symlink(outside.path(), "src/out");
    let home = tempfile::tempdir().unwrap();
    let mut server = start(&fixture, home.path(), json!({"denyOutsideWorkspace": true}));
    let result = server.call(
        "roo/ignore/validateAccess",
        json!({"paths": ["src/notes.txt", "src/out/notes.txt", "src/app.ts"]}),
    );
    let allowed: Vec<&Value> = result["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["allowed"])
        .collect();
    assert_eq!(allowed, [false, false, true], "{result}");
    let mentions = server.call(
        "roo/mentions/parse",
        json!({"text": "@/src/notes.txt @/src/out/notes.txt @/src/"}),
    );
    assert!(!text_of(&mentions).contains(SECRET), "{mentions}");
    let context = server.call("roo/fold/context", json!({"paths": ["src/notes.txt"]}));
    assert!(!text_of(&context).contains(SECRET), "{context}");
}

/// Swaps `src/swap.ts` between a harmless file and a link to the secret in a loop while every
/// reader runs: whatever the timing, no answer may carry a byte of the secret.
#[test]
fn a_file_swapped_for_a_link_in_a_loop_never_leaks() {
    let fixture = hostile_workspace();
    fixture.write("src/swap.ts", "export function harmless() {}\n");
    let home = tempfile::tempdir().unwrap();
    let mut server = start(&fixture, home.path(), Value::Null);
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let stop = stop.clone();
        let swap = fixture.path("src/swap.ts");
        let staged_file = fixture.path("src/.staged-file");
        let staged_link = fixture.path("src/.staged-link");
        let secret = fixture.path("secrets/token.ts");
        std::thread::spawn(move || {
            let mut swaps = 0u64;
            while !stop.load(Ordering::Relaxed) {
                std::fs::write(&staged_file, "export function harmless() {}\n").unwrap();
                std::fs::rename(&staged_file, &swap).unwrap();
                let _ = std::fs::remove_file(&staged_link);
                std::os::unix::fs::symlink(&secret, &staged_link).unwrap();
                std::fs::rename(&staged_link, &swap).unwrap();
                swaps += 1;
            }
            swaps
        })
    };
    let uri = file_uri(&fixture.path("src/swap.ts"));
    let mut answers = Vec::new();
    for round in 0..150 {
        answers.push(server.call(
            "roo/mentions/parse",
            json!({"text": "@/src/swap.ts @/src/"}),
        ));
        answers.push(server.call("roo/fold/context", json!({"paths": ["src/swap.ts"]})));
        if let Ok(outline) = server.request("roo/fold/outline", json!({"path": "src/swap.ts"})) {
            answers.push(outline);
        }
        answers.push(server.call(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": uri}}),
        ));
        answers.push(server.call(
            "textDocument/foldingRange",
            json!({"textDocument": {"uri": uri}}),
        ));
        for answer in &answers {
            assert!(!text_of(answer).contains(SECRET), "round {round}: {answer}");
        }
        answers.clear();
    }
    stop.store(true, Ordering::Relaxed);
    let swaps = swapper.join().unwrap();
    assert!(swaps > 0);
}

#[derive(Debug, Clone)]
enum Entry {
    Public,
    Secret,
    Link(usize),
    Fifo,
    Device,
    Folder,
}

fn entry() -> impl proptest::strategy::Strategy<Value = Entry> {
    use proptest::prelude::*;
    prop_oneof![
        2 => Just(Entry::Public),
        2 => Just(Entry::Secret),
        3 => (0usize..10).prop_map(Entry::Link),
        1 => Just(Entry::Fifo),
        1 => Just(Entry::Device),
        1 => Just(Entry::Folder),
    ]
}

/// Entry `index` lives in `src/` or, for every third, in the blocked `secrets/`.
fn entry_path(index: usize) -> String {
    if index % 3 == 2 {
        format!("secrets/e{index}.ts")
    } else {
        format!("src/e{index}.ts")
    }
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config::with_cases(12))]

    /// Any workspace (files, links anywhere, FIFOs, devices, folders) leaves the server
    /// answering every reader and never lets a blocked file's bytes into an answer.
    #[test]
    fn no_workspace_content_lets_a_blocked_byte_into_any_answer(
        entries in proptest::collection::vec(entry(), 1..10),
    ) {
        let fixture = Fixture::new(&[(".rooignore", "secrets/\n*.secret.ts\n")]);
        std::fs::create_dir_all(fixture.path("src")).unwrap();
        std::fs::create_dir_all(fixture.path("secrets")).unwrap();
        let body = |name: &str| format!("export function {name}() {{\n  const a = 1;\n  const b = 2;\n  return a + b;\n}}\n");
        for (index, entry) in entries.iter().enumerate() {
            let path = entry_path(index);
            match entry {
                Entry::Public if !path.starts_with("secrets") => fixture.write(&path, &body("visible")),
                Entry::Public | Entry::Secret => {
                    fixture.write(&path, &body(SECRET));
                    // A secret in `src/` is blocked by its own rule-matching link name.
                    if !path.starts_with("secrets") {
                        std::fs::rename(fixture.path(&path), fixture.path(&format!("src/e{index}.secret.ts"))).unwrap();
                        fixture.symlink(format!("e{index}.secret.ts"), &path);
                    }
                }
                Entry::Link(target) => {
                    let target = if *target < entries.len() { fixture.path(&entry_path(*target)) } else { "/nowhere".into() };
                    fixture.symlink(target, &path);
                }
                Entry::Fifo => {
                    let created = Command::new("mkfifo").arg(fixture.path(&path)).status().unwrap();
                    proptest::prop_assert!(created.success());
                }
                Entry::Device => fixture.symlink("/dev/zero", &path),
                Entry::Folder => std::fs::create_dir_all(fixture.path(&path)).unwrap(),
            }
        }
        let home = tempfile::tempdir().unwrap();
        let mut server = start(&fixture, home.path(), Value::Null);
        let paths: Vec<String> = (0..entries.len()).map(entry_path).collect();
        let mut answers = vec![
            server.call("roo/fold/context", json!({"paths": paths})),
            server.call("roo/mentions/parse", json!({"text": format!(
                "{} @/src/ @/secrets/",
                paths.iter().map(|p| format!("@/{p}")).collect::<Vec<_>>().join(" ")
            )})),
        ];
        for path in &paths {
            if let Ok(outline) = server.request("roo/fold/outline", json!({"path": path})) {
                answers.push(outline);
            }
            let uri = file_uri(&fixture.path(path));
            for method in ["textDocument/foldingRange", "textDocument/documentSymbol"] {
                answers.push(server.call(method, json!({"textDocument": {"uri": uri}})));
            }
        }
        for answer in &answers {
            proptest::prop_assert!(!text_of(answer).contains(SECRET), "{}", answer);
        }
    }
}

#[test]
fn a_hash_mention_of_a_blob_or_tree_never_shows_its_content() {
    let fixture = Fixture::new(&[
        (".rooignore", ".env\nsecrets/\n"),
        (".env", &format!("TOKEN={SECRET}\n")),
        ("secrets/key.txt", &format!("{SECRET}\n")),
        ("src/app.ts", "export const app = 1;\n"),
    ]);
    let root = fixture.root();
    git(root, &["init", "-q"]);
    git(root, &["add", "-A", "-f"]);
    git(root, &["commit", "-q", "-m", "first"]);
    let home = tempfile::tempdir().unwrap();
    let mut server = start(&fixture, home.path(), Value::Null);
    for object in [
        "HEAD:.env",
        "HEAD:secrets/key.txt",
        "HEAD:secrets",
        "HEAD^{tree}",
    ] {
        let hash = git(root, &["rev-parse", object]).trim().to_owned();
        for shown in [&hash[..], &hash[..7]] {
            let answer = server.call(
                "roo/mentions/parse",
                json!({"text": format!("see @{shown}")}),
            );
            let answer = text_of(&answer);
            assert!(!answer.contains(SECRET), "{object}: {answer}");
            assert!(!answer.contains("key.txt"), "{object}: {answer}");
            assert!(answer.contains("not a commit"), "{object}: {answer}");
        }
    }
    // A real commit is still shown.
    let hash = git(root, &["rev-parse", "HEAD"]).trim().to_owned();
    let commit = server.call(
        "roo/mentions/parse",
        json!({"text": format!("see @{}", &hash[..8])}),
    );
    let commit = text_of(&commit);
    assert!(commit.contains("app = 1"), "{commit}");
    assert!(!commit.contains(SECRET), "{commit}");
}

#[test]
fn a_task_metadata_file_that_is_a_fifo_or_device_never_hangs_or_floods_track() {
    let fixture = hostile_workspace();
    let home = tempfile::tempdir().unwrap();
    let mut server = start(&fixture, home.path(), Value::Null);
    let fifo = tempfile::tempdir().unwrap();
    let status = Command::new("mkfifo")
        .arg(fifo.path().join("task_metadata.json"))
        .status()
        .expect("mkfifo runs");
    assert!(status.success());
    let zero = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink("/dev/zero", zero.path().join("task_metadata.json")).unwrap();
    for (task, storage) in [("fifo", fifo.path()), ("zero", zero.path())] {
        let tracked = server.request(
            "roo/files/track",
            json!({"taskId": task, "storageDir": storage, "path": "src/app.ts", "source": "read_tool"}),
        );
        let error = tracked.expect_err("an unusable metadata file is an error");
        assert!(error.to_string().contains("task_metadata.json"), "{error}");
    }
    // Still serving, and the special files were left in place.
    server.call("roo/workspace/status", json!({}));
    assert!(fifo.path().join("task_metadata.json").exists());
}

/// A user's git configuration must not change the output the filters parse: colours would
/// hide the `diff --git` headers, `diff.relative` would make paths relative to another folder.
#[test]
fn git_mentions_stay_filtered_whatever_the_users_git_configuration() {
    let fixture = Fixture::new(&[
        ("pkg/.rooignore", "secret.txt\n"),
        ("pkg/secret.txt", "old\n"),
        ("pkg/app.ts", "export const app = 1;\n"),
    ]);
    let root = fixture.root();
    git(root, &["init", "-q"]);
    git(root, &["add", "-A", "-f"]);
    git(root, &["commit", "-q", "-m", "first"]);
    fixture.write("pkg/secret.txt", &format!("{SECRET}\n"));
    fixture.write("pkg/app.ts", "export const app = 2;\n");
    git(root, &["add", "-A", "-f"]);
    git(root, &["commit", "-q", "-m", "second"]);
    let hash = git(root, &["rev-parse", "HEAD"]).trim().to_owned();
    fixture.write("pkg/secret.txt", &format!("{SECRET}-2\n"));
    fixture.write("pkg/app.ts", "export const app = 3;\n");

    for config in [
        "[color]\n\tui = always\n",
        "[color]\n\tdiff = always\n\tstatus = always\n",
        "[diff]\n\trelative = true\n",
    ] {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join(".gitconfig"), config).unwrap();
        let home_text = home.path().to_string_lossy().into_owned();
        let mut server = Server::spawn_with_env(&[
            ("HOME", home_text.as_str()),
            ("XDG_CONFIG_HOME", home_text.as_str()),
        ]);
        server
            .initialize(&[&fixture.path("pkg")], Value::Null)
            .expect("initialize");
        for text in ["see @git-changes".to_owned(), format!("see @{hash}")] {
            let answer = server.call("roo/mentions/parse", json!({"text": text}));
            let answer = text_of(&answer);
            assert!(!answer.contains(SECRET), "{config}: {answer}");
            assert!(answer.contains("app = "), "{config}: {answer}");
        }
    }
}

/// Open-document text is the editor's copy of a file: it obeys the same rule as the file, under
/// every spelling of its address (links, `..`, case, percent-encoding).
#[test]
fn open_documents_of_blocked_files_never_reach_symbols_folding_or_outlines() {
    let fixture = hostile_workspace();
    fixture.symlink("../secrets/token.ts", "src/link.ts");
    let home = tempfile::tempdir().unwrap();
    let mut server = start(&fixture, home.path(), Value::Null);
    let text = format!(
        "export function {SECRET}() {{\n  const a = 1;\n  const b = 2;\n  return a + b;\n}}\n"
    );
    let root = file_uri(fixture.root());
    let uris = [
        file_uri(&fixture.path("secrets/token.ts")),
        file_uri(&fixture.path("src/link.ts")),
        format!("{root}/src/../secrets/token.ts"),
        format!("{root}/SECRETS/token.ts"),
        format!("{root}/%73ecrets/token.ts"),
        format!("{root}/.env"),
    ];
    for uri in &uris {
        server.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "typescript", "version": 1, "text": text}}),
        );
        for method in ["textDocument/documentSymbol", "textDocument/foldingRange"] {
            let answer = server.request(method, json!({"textDocument": {"uri": uri}}));
            let answer = format!("{answer:?}");
            assert!(!answer.contains(SECRET), "{method} {uri}: {answer}");
            assert!(
                answer.contains("Null") || answer.contains("[]") || answer.contains("Err"),
                "{method} {uri}: {answer}"
            );
        }
    }
    // Control: an allowed file's open text does reach symbols, so the checks above can fail.
    let allowed = file_uri(&fixture.path("src/app.ts"));
    server.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": allowed, "languageId": "typescript", "version": 1, "text": text}}),
    );
    let symbols = server.call(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": allowed}}),
    );
    assert!(symbols.to_string().contains(SECRET), "{symbols}");
    for path in [
        "secrets/token.ts",
        "src/link.ts",
        "src/../secrets/token.ts",
        "SECRETS/token.ts",
    ] {
        let outline = server.request("roo/fold/outline", json!({"path": path}));
        assert!(
            !format!("{outline:?}").contains(SECRET),
            "{path}: {outline:?}"
        );
        let context = server.call("roo/fold/context", json!({"paths": [path]}));
        assert!(!context.to_string().contains(SECRET), "{path}: {context}");
    }
}
