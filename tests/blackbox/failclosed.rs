//! Fail closed: an ignore file or protection setting that cannot be used blocks (or protects)
//! instead of allowing, and says so in `roo/workspace/status` and `roo/ignore/didReload`.

use serde_json::{Value, json};

use crate::harness::{Fixture, Server};

const RELOADED: &str = "roo/ignore/didReload";

fn allowed(server: &mut Server, path: &str) -> bool {
    let result = server.call("roo/ignore/validateAccess", json!({"paths": [path]}));
    result["results"][0]["allowed"].as_bool().unwrap()
}

fn protected(server: &mut Server, path: &str) -> bool {
    let result = server.call("roo/protect/check", json!({"paths": [path]}));
    result["results"][0]["isProtected"].as_bool().unwrap()
}

fn status(server: &mut Server) -> Value {
    server.call("roo/workspace/status", json!({}))
}

/// One glob per line that needs the regex engine, enough to exceed one matcher's size limit.
fn many_globs(count: usize) -> String {
    (0..count).map(|i| format!("**/d{i}*x/*.k{i}?\n")).collect()
}

/// A single pattern too big for any matcher.
fn huge_pattern() -> String {
    "*a?".repeat(70_000)
}

#[test]
fn a_latin1_byte_costs_at_most_its_line_and_is_reported() {
    let fixture = Fixture::new(&[("a.txt", "x"), ("secret.txt", "x")]);
    std::fs::write(
        fixture.path(".rooignore"),
        b"# caf\xe9 notes\nsecret.txt\n".as_slice(),
    )
    .unwrap();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    assert!(!allowed(&mut server, "secret.txt"));
    assert!(allowed(&mut server, "a.txt"));
    let status = status(&mut server);
    let diagnostics = status["folders"][0]["ruleDiagnostics"].to_string();
    assert!(
        diagnostics.contains(".rooignore:1") && diagnostics.contains("UTF-8"),
        "{diagnostics}"
    );
    assert_eq!(status["folders"][0]["blocksEverything"], false);
}

#[test]
fn a_byte_order_mark_does_not_disable_the_first_rule() {
    let fixture = Fixture::new(&[("secret.txt", "x"), ("a.txt", "x")]);
    std::fs::write(fixture.path(".rooignore"), "\u{FEFF}secret.txt\n").unwrap();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    assert!(!allowed(&mut server, "secret.txt"));
    assert!(allowed(&mut server, "a.txt"));
}

#[test]
fn eight_thousand_globs_all_apply() {
    let fixture = Fixture::new(&[(".rooignore", &many_globs(8_000))]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    assert!(!allowed(&mut server, "a/d7999yx/f.k7999z"));
    assert!(!allowed(&mut server, "d0yx/f.k0z"));
    assert!(allowed(&mut server, "a/d1yx/f.txt"));
    let status = status(&mut server);
    assert_eq!(status["folders"][0]["ruleCount"], 8_002);
    assert_eq!(status["folders"][0]["lastError"], Value::Null);
}

#[test]
fn an_uncompilable_ignore_file_at_start_up_blocks_the_whole_folder() {
    let fixture = Fixture::new(&[(".rooignore", &format!("{}\n", huge_pattern()))]);
    let other = Fixture::new(&[("b.txt", "x")]);
    let mut server = Server::start_in_process(&[fixture.root(), other.root()], Value::Null);
    assert!(!allowed(&mut server, "src/app.ts"));
    assert!(!allowed(&mut server, "README.md"));
    let other_file = other.path("b.txt");
    assert!(
        allowed(&mut server, other_file.to_str().unwrap()),
        "only the broken folder is blocked"
    );
    let status = status(&mut server);
    assert_eq!(status["folders"][0]["blocksEverything"], true);
    let error = status["folders"][0]["lastError"].as_str().unwrap();
    assert!(error.contains("cannot be compiled"), "{error}");
    assert!(error.len() < 1_000, "the error repeats the pattern");
}

#[test]
fn an_ignore_file_that_is_not_a_regular_file_blocks_at_start_up() {
    for kind in ["folder", "fifo", "dangling link"] {
        let fixture = Fixture::new(&[("a.txt", "x")]);
        let path = fixture.path(".rooignore");
        match kind {
            "folder" => std::fs::create_dir(&path).unwrap(),
            "fifo" => {
                let status = std::process::Command::new("mkfifo")
                    .arg(&path)
                    .status()
                    .unwrap();
                assert!(status.success());
            }
            _ => std::os::unix::fs::symlink("missing-target", &path).unwrap(),
        }
        let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
        assert!(!allowed(&mut server, "a.txt"), "{kind}");
        assert_eq!(
            status(&mut server)["folders"][0]["blocksEverything"],
            true,
            "{kind}"
        );
    }
}

#[test]
fn an_uncompilable_reload_keeps_the_last_good_rules_and_says_so() {
    let fixture = Fixture::new(&[(".rooignore", "secret.txt\n"), ("a.txt", "x")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    assert!(!allowed(&mut server, "secret.txt"));

    fixture.replace(".rooignore", &format!("other.txt\n{}\n", huge_pattern()));
    let reload = server.notification(RELOADED);
    assert!(
        reload["error"]
            .as_str()
            .is_some_and(|e| e.contains("cannot be compiled")),
        "{reload}"
    );
    assert_eq!(reload["blocksEverything"], false);
    assert!(!allowed(&mut server, "secret.txt"), "last good rules kept");
    assert!(allowed(&mut server, "a.txt"));
    assert!(status(&mut server)["folders"][0]["lastError"].is_string());

    fixture.replace(".rooignore", "a.txt\n");
    server.wait_until(RELOADED, |s| (!allowed(s, "a.txt")).then_some(()));
    assert_eq!(status(&mut server)["folders"][0]["lastError"], Value::Null);
}

#[test]
fn an_unusable_new_ignore_file_blocks_a_folder_that_had_none() {
    let fixture = Fixture::new(&[("a.txt", "x")]);
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    assert!(allowed(&mut server, "a.txt"));
    fixture.write(".rooignore", &format!("{}\n", huge_pattern()));
    let reload = server.wait_until(RELOADED, |s| {
        let status = status(s);
        (status["folders"][0]["blocksEverything"] == true).then_some(status)
    });
    assert!(reload["folders"][0]["lastError"].is_string());
    assert!(!allowed(&mut server, "a.txt"));
}

#[test]
fn an_uncompilable_protected_pattern_protects_everything_at_start_up() {
    let fixture = Fixture::new(&[("a.txt", "x")]);
    let options = json!({"extraProtectedPatterns": ["*.secret", huge_pattern()]});
    let mut server = Server::start_in_process(&[fixture.root()], options);
    assert!(protected(&mut server, "a.txt"));
    assert!(protected(&mut server, "src/main.rs"));
    let error = status(&mut server)["protectionError"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(error.contains("extraProtectedPatterns"), "{error}");
}

#[test]
fn an_uncompilable_protected_pattern_update_keeps_the_last_good_protection() {
    let fixture = Fixture::new(&[("a.txt", "x")]);
    let options = json!({"extraProtectedPatterns": ["*.secret"]});
    let mut server = Server::start_in_process(&[fixture.root()], options);
    assert!(protected(&mut server, "k.secret"));
    // A notification; the next request is answered after it is applied (client order).
    server.notify(
        "roo/settings/update",
        json!({"extraProtectedPatterns": [huge_pattern()]}),
    );
    assert!(
        protected(&mut server, "k.secret"),
        "protection not switched off"
    );
    assert!(protected(&mut server, ".roo/x"));
    assert!(!protected(&mut server, "a.txt"));
    assert!(status(&mut server)["protectionError"].is_string());
    server.notify(
        "roo/settings/update",
        json!({"extraProtectedPatterns": ["*.txt"]}),
    );
    assert!(protected(&mut server, "a.txt"));
    assert_eq!(status(&mut server)["protectionError"], Value::Null);
}

const SECRET: &str = "failClosedSecretValue";

fn utf16le_with_mark(text: &str) -> Vec<u8> {
    std::iter::once(0xFEFF)
        .chain(text.encode_utf16())
        .flat_map(u16::to_le_bytes)
        .collect()
}

#[test]
fn a_utf16_ignore_file_as_windows_powershell_writes_it_still_blocks() {
    let fixture = Fixture::new(&[
        ("secret.txt", SECRET),
        ("secrets/key.ts", &format!("export const {SECRET} = 1;\n")),
        ("a.txt", "x"),
    ]);
    std::fs::write(
        fixture.path(".rooignore"),
        utf16le_with_mark("secret.txt\r\nsecrets/\r\n"),
    )
    .unwrap();
    let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
    assert!(!allowed(&mut server, "secret.txt"));
    assert!(!allowed(&mut server, "secrets/key.ts"));
    assert!(allowed(&mut server, "a.txt"));
    let mention = server.call(
        "roo/mentions/parse",
        json!({"text": "@/secret.txt @/secrets/key.ts"}),
    );
    assert!(!mention.to_string().contains(SECRET), "{mention}");
}

/// Random ignore-file bytes with the rules `secret.txt` and `secrets/` on lines of their own.
fn hostile_ignore_bytes() -> impl proptest::strategy::Strategy<Value = Vec<u8>> {
    use proptest::prelude::*;
    let line = prop_oneof![
        4 => proptest::collection::vec(any::<u8>(), 0..200),
        1 => (any::<u8>(), 1usize..30_000).prop_map(|(b, n)| vec![b; n]),
        1 => (1usize..800).prop_map(|n| b"*a?".repeat(n)),
        1 => Just(b"\xEF\xBB\xBF\xFF\xFE\x00\r\\".to_vec()),
    ]
    .prop_map(|mut line| {
        line.iter_mut()
            .filter(|b| **b == b'\n')
            .for_each(|b| *b = b'x');
        if line.first() == Some(&b'!') {
            line[0] = b'#';
        }
        line
    });
    (
        proptest::collection::vec(line.clone(), 0..5),
        proptest::collection::vec(line, 0..5),
        any::<bool>(),
    )
        .prop_map(|(before, after, crlf)| {
            let mut lines = before;
            lines.extend([b"secret.txt".to_vec(), b"secrets/".to_vec()]);
            lines.extend(after);
            lines.join(if crlf { &b"\r\n"[..] } else { &b"\n"[..] })
        })
}

proptest::proptest! {
    #![proptest_config(proptest::test_runner::Config {
        cases: 6,
        failure_persistence: None,
        ..Default::default()
    })]

    /// Whatever bytes the ignore file holds at start-up and after a reload, the server keeps
    /// answering and the blocked paths' contents never reach an answer.
    #[test]
    fn no_ignore_file_bytes_open_a_folder_or_stop_the_server(
        first in hostile_ignore_bytes(),
        second in hostile_ignore_bytes(),
    ) {
        let fixture = Fixture::new(&[
            ("secret.txt", SECRET),
            ("secrets/key.ts", &format!("export function {SECRET}() {{\n  return 1;\n}}\n")),
        ]);
        std::fs::write(fixture.path(".rooignore"), &first).unwrap();
        let mut server = Server::start_in_process(&[fixture.root()], Value::Null);
        let check = |server: &mut Server| {
            assert!(!allowed(server, "secret.txt"));
            assert!(!allowed(server, "secrets/key.ts"));
            let mention = server.call(
                "roo/mentions/parse",
                json!({"text": "@/secret.txt @/secrets/key.ts @/secrets/"}),
            );
            assert!(!mention.to_string().contains(SECRET), "{mention}");
            let outline = server.request("roo/fold/outline", json!({"path": "secrets/key.ts"}));
            assert!(!format!("{outline:?}").contains(SECRET), "{outline:?}");
        };
        check(&mut server);
        // An atomic replace: every state the server can see blocks both paths.
        let mut next = second;
        next.extend_from_slice(b"\nmarker.txt\n");
        let temp = fixture.path(".rooignore.tmp-save");
        std::fs::write(&temp, &next).unwrap();
        std::fs::rename(&temp, fixture.path(".rooignore")).unwrap();
        server.wait_until(RELOADED, |s| {
            check(s);
            (!allowed(s, "marker.txt") || status(s)["folders"][0]["lastError"].is_string())
                .then_some(())
        });
        check(&mut server);
    }
}
