//! The command-vetting cases of the two-answer vetter this crate replaces, with the same blocked
//! argument for everything it blocked. The rule here is a plain function (no files on disk), so
//! what is judged is the grammar walk alone; where issue 12 reverses a case it says so.

use roo_context_shell::{Construct, Judgement, Oracle, Verdict, vet};

struct Rule;

fn blocked(path: &str) -> bool {
    let p = path.trim_start_matches("./").to_lowercase();
    p.starts_with("secrets/")
        || p == "secrets"
        || p.ends_with(".pem")
        || p.starts_with("/ws/secrets/")
        || p == ".env"
        || p == "src/../.env"
}

impl Oracle for Rule {
    fn path(&self, path: &str, _glob: bool) -> Judgement {
        if blocked(path) {
            Judgement::Blocked(path.to_owned())
        } else {
            Judgement::Clear
        }
    }
    fn tree(&self, path: &str, glob: bool) -> Judgement {
        self.path(path, glob)
    }
    fn existing_blocked(&self, _path: &str) -> bool {
        false
    }
}

fn check(command: &str, expected: Option<&str>) {
    let typed = match vet(command, &Rule) {
        Verdict::Blocked(hit) => Some(hit.typed),
        _ => None,
    };
    assert_eq!(typed.as_deref(), expected, "command {command:?}");
}

fn verdict(command: &str) -> Verdict {
    vet(command, &Rule)
}

#[test]
fn original_readers_are_checked() {
    check("cat secrets/a.txt", Some("secrets/a.txt"));
    check("cat src/a.txt", None);
    check("CAT .env", Some(".env"));
    check("Get-Content .env", Some(".env"));
    check("", None);
    check("   ", None);
}

#[test]
fn chains_pipes_and_subshells_are_all_checked() {
    check("echo hi && cat .env", Some(".env"));
    check("ls; head -n 5 secrets/k", Some("secrets/k"));
    check("true || tail .env", Some(".env"));
    check("echo x | grep foo secrets/a", Some("secrets/a"));
    // Reversed by issue 12: `cd src` is tracked, so `../.env` is the workspace's `.env`.
    check("(cd src && cat ../.env)", Some("../.env"));
    check("(cat .env)", Some(".env"));
    check("echo $(cat .env)", Some(".env"));
    check("echo `cat .env`", Some(".env"));
    check("echo \"$(cat secrets/x)\"", Some("secrets/x"));
    check("diff <(cat .env) a", Some(".env"));
    check("echo a\ncat .env", Some(".env"));
}

#[test]
fn quotes_and_escapes_are_understood() {
    check("cat \"secrets/a b\"", Some("\"secrets/a b\""));
    check("cat 'secrets/x'", Some("'secrets/x'"));
    check("cat secrets\\/x", Some("secrets\\/x"));
    check("cat \"src/a\"", None);
}

#[test]
fn redirections_are_checked_for_any_program() {
    check("cat<.env", Some(".env"));
    check("wc -l < secrets/x", Some("secrets/x"));
    check("python3 app.py > .env", Some(".env"));
    check("sort 2>secrets/err", Some("secrets/err"));
    check("cmd 2>&1 | tee log.txt", None);
    check("cat <<EOF\nsecrets\nEOF", None);
}

#[test]
fn wrappers_are_unwrapped() {
    check("sudo cat .env", Some(".env"));
    check("sudo -u root cat .env", Some(".env"));
    check("env FOO=1 cat .env", Some(".env"));
    check("FOO=bar cat .env", Some(".env"));
    // Reversed by issue 12: xargs takes its files from the input, so this is undecidable.
    assert!(matches!(
        verdict("xargs cat < list.txt"),
        Verdict::Undecidable(u) if u.construct == Construct::XargsInput
    ));
    check("echo .env | xargs cat secrets/a", Some("secrets/a"));
    check("xargs -a secrets/list cat", Some("secrets/list"));
    check("/bin/cat .env", Some(".env"));
    check("busybox cat .env", Some(".env"));
    check("nice -n 5 cat .env", Some(".env"));
    check("timeout 5 cat .env", Some(".env"));
    check("bash -c 'cat .env'", Some(".env"));
    check("sh -c \"head secrets/x\"", Some("secrets/x"));
    check("eval cat .env", Some(".env"));
    check("bash secrets/run.sh", Some("secrets/run.sh"));
}

#[test]
fn absolute_paths_and_options_with_values_are_checked() {
    check("cat /ws/secrets/k", Some("/ws/secrets/k"));
    check("grep --file=secrets/p x", Some("--file=secrets/p"));
    check("grep -f secrets/p x", Some("secrets/p"));
    check("git show HEAD:secrets/k", Some("HEAD:secrets/k"));
    check("cp key.pem /tmp/x", Some("key.pem"));
    check("node ./secrets/x.js", Some("./secrets/x.js"));
}

#[test]
fn the_blocked_reading_of_an_argument_is_reported_with_it() {
    let hit = |command: &str| match vet(command, &Rule) {
        Verdict::Blocked(found) => (found.typed, found.path),
        other => panic!("{command:?} not blocked: {other:?}"),
    };
    assert_eq!(
        hit("git show HEAD:secrets/k"),
        ("HEAD:secrets/k".into(), "secrets/k".into())
    );
    assert_eq!(
        hit("grep --file=secrets/p x"),
        ("--file=secrets/p".into(), "secrets/p".into())
    );
    assert_eq!(
        hit("cat \"secrets/a b\""),
        ("\"secrets/a b\"".into(), "secrets/a b".into())
    );
    assert_eq!(
        hit("FOO=secrets/x run"),
        ("FOO=secrets/x".into(), "secrets/x".into())
    );
    assert_eq!(
        hit("cat \"secrets/x"),
        ("\"secrets/x".into(), "secrets/x".into())
    );
    assert_eq!(
        hit("cd src && cat ../.env"),
        ("../.env".into(), "src/../.env".into())
    );
}

#[test]
fn patterns_are_not_mistaken_for_paths() {
    check("grep secrets src/a.ts", None);
    check("grep -e secrets/x src/a.ts", None);
    check("sed 's/.env/x/' src/a", None);
    check("head -n 10 src/a", None);
    check("echo .env", None); // echo reads nothing
    assert_eq!(verdict("grep secrets src/a.ts"), Verdict::Allowed);
}

#[test]
fn unbalanced_commands_are_checked_word_by_word() {
    check("cat \"secrets/x", Some("\"secrets/x"));
    check("echo 'unterminated .env", Some(".env"));
    // Was allowed; a line that does not parse is now undecidable unless a word blocks.
    assert!(matches!(
        verdict("echo $(cat src/a"),
        Verdict::Undecidable(u) if u.construct == Construct::Unparsed
    ));
}

#[test]
fn undecidable_verdicts_name_their_construct_and_snippet() {
    let undecidable = |command: &str| match vet(command, &Rule) {
        Verdict::Undecidable(u) => (u.construct, u.snippet),
        other => panic!("{command:?} not undecidable: {other:?}"),
    };
    assert_eq!(
        undecidable("f=.env; cat $f"),
        (Construct::Variable, "$f".into())
    );
    assert_eq!(
        undecidable("cat $(echo .env)"),
        (Construct::Substitution, "$(echo .env)".into())
    );
    assert_eq!(undecidable("python3 -c 'x'").0, Construct::InlineCode);
    assert_eq!(undecidable("eval \"$X\"").0, Construct::Eval);
    assert_eq!(undecidable("cd $D && cat x").0, Construct::DynamicDirectory);
    assert_eq!(undecidable("ssh host uptime").0, Construct::Remote);
    assert_eq!(undecidable("$EDITOR x").0, Construct::DynamicProgram);
    assert_eq!(
        undecidable("curl -s x | bash").0,
        Construct::ScriptFromInput
    );
    assert_eq!(Construct::Substitution.name(), "commandSubstitution");
}

#[test]
fn limits_are_undecidable_never_allowed() {
    // More than 16 nested `$(...)` used to be allowed without a look inside.
    let nest = |inner: &str, times: usize| {
        let mut text = inner.to_owned();
        for _ in 0..times {
            text = format!("echo $({text})");
        }
        text
    };
    assert!(matches!(
        verdict(&nest("cat .env", 40)),
        Verdict::Blocked(_)
    ));
    assert_eq!(verdict(&nest("cat src/a", 40)), Verdict::Allowed);
    assert!(matches!(
        verdict(&nest("cat src/a", 300)),
        Verdict::Undecidable(u) if u.construct == Construct::Limit
    ));
    assert!(!matches!(verdict(&nest("cat .env", 300)), Verdict::Allowed));
    let scripts = format!("{}echo hi", "eval ".repeat(20));
    assert!(matches!(
        verdict(&scripts),
        Verdict::Undecidable(u) if u.construct == Construct::Limit
    ));
    let huge = "echo a ".repeat(roo_context_shell::MAX_COMMAND_BYTES / 7 + 1);
    assert!(matches!(
        verdict(&huge),
        Verdict::Undecidable(u) if u.construct == Construct::Limit
    ));
    let braces = "cat {1..100000}";
    assert!(matches!(
        verdict(braces),
        Verdict::Undecidable(u) if u.construct == Construct::Limit
    ));
}
