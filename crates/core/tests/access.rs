//! The access rule and write protection as a table on the in-memory file system: one
//! `check(fixture, expect)` per case, the fixture a workspace in `//- /path` sections, the
//! expectation one line per path (`allowed`/`blocked` with the rule and form, `protected`).
//! Path cases belong here; the stdio tests keep only what needs the real server.

use std::path::Path;
use std::sync::Arc;

use expect_test::{Expect, expect};
use roo_context_core::access::{
    BlockReason, Flavor, FolderPolicy, IgnoreFile, PathForm, Policy, ProtectRules,
    ignore_files_in_force,
};
use roo_context_core::fs::memory::MemFs;
use roo_context_core::path::{Resolver, WorkspaceRoot};

/// Builds `/ws` from `fixture` and judges each path of `paths` (relative to `/ws`).
///
/// Fixture sections: `//- /abs/path` then the file's lines; `//- /abs/link -> target` for a
/// symlink; `//- /abs/name => existing` for a second name (hard link). `/ws/.rooignore` (and,
/// under Zoo's flavor, `/ws/.zooignore`) are the folder's ignore files ([`ignore_files_in_force`]).
fn check(fixture: &str, paths: &[&str], expect: Expect) {
    check_in(Flavor::Roo, fixture, paths, expect)
}

fn check_in(flavor: Flavor, fixture: &str, paths: &[&str], expect: Expect) {
    let fs = MemFs::default();
    let mut files: Vec<(String, String)> = Vec::new();
    for section in fixture.split("//- ").filter(|s| !s.trim().is_empty()) {
        let (header, body) = section.split_once('\n').unwrap_or((section, ""));
        let header = header.trim();
        if let Some((link, target)) = header.split_once(" -> ") {
            fs.symlink(link, target);
        } else if let Some((name, existing)) = header.split_once(" => ") {
            fs.hard_link(name, existing);
        } else {
            fs.file(header, body);
            files.push((header.to_owned(), body.to_owned()));
        }
    }
    let body = |name: &str| {
        files
            .iter()
            .find(|(path, _)| *path == format!("/ws/{name}"))
            .map(|(_, body)| body.clone())
    };
    let in_force = ignore_files_in_force(
        flavor,
        body(".zooignore").is_some(),
        body(".rooignore").is_some(),
    );
    let ignore = in_force
        .iter()
        .map(|name| IgnoreFile::new(name, &body(name).unwrap()))
        .reduce(IgnoreFile::with_also)
        .map(Arc::new);
    let policy = Policy {
        folders: vec![FolderPolicy {
            root: WorkspaceRoot::new(Path::new("/ws"), &fs),
            ignore,
        }],
        protect: Arc::new(ProtectRules::new(&[], flavor)),
        deny_outside_workspace: false,
    };
    let resolver = Resolver::default();
    let mut out = String::new();
    for path in paths {
        let access = policy.check_access(&resolver, &fs, None, path);
        let protection = policy.check_protection(&resolver, &fs, None, path);
        let verdict = match &access.blocked {
            None => "allowed".to_owned(),
            Some(BlockReason::OutsideWorkspace) => "blocked outside workspace".to_owned(),
            Some(BlockReason::IgnoreRule {
                origin,
                matched_path,
                via,
                ..
            }) => format!(
                "blocked by {}:{} `{}` on {matched_path} ({})",
                origin.file.as_deref().unwrap_or("implicit"),
                origin.line.map_or("-".to_owned(), |l| l.to_string()),
                origin.pattern,
                form(*via),
            ),
        };
        let protected = match (&protection.pattern, protection.via) {
            (Some(pattern), Some(via)) => format!("; protected by `{pattern}` ({})", form(via)),
            (Some(pattern), None) => format!("; protected by `{pattern}`"),
            _ => String::new(),
        };
        out.push_str(&format!("{path}: {verdict}{protected}\n"));
    }
    expect.assert_eq(&out);
}

fn form(via: PathForm) -> &'static str {
    match via {
        PathForm::Lexical => "lexical",
        PathForm::Canonical => "canonical",
    }
}

#[test]
fn rules_match_case_insensitively_and_folders_block_everything_inside() {
    check(
        r#"
//- /ws/.rooignore
secrets/
*.ENV
//- /ws/secrets/key.pem
k
//- /ws/src/a.ts
a
//- /ws/prod.env
x
"#,
        &[
            "src/a.ts",
            "secrets/key.pem",
            "SECRETS/key.pem",
            "prod.env",
            "secrets",
        ],
        expect![[r#"
            src/a.ts: allowed
            secrets/key.pem: blocked by .rooignore:1 `secrets/` on secrets/key.pem (lexical)
            SECRETS/key.pem: blocked by .rooignore:1 `secrets/` on SECRETS/key.pem (lexical)
            prod.env: blocked by .rooignore:2 `*.ENV` on prod.env (lexical)
            secrets: allowed
        "#]],
    );
}

#[test]
fn a_link_to_a_blocked_file_is_blocked_by_its_canonical_form() {
    check(
        r#"
//- /ws/.rooignore
.env
//- /ws/.env
KEY=1
//- /ws/src/env.ts -> ../.env
//- /ws/src/ok.ts
ok
"#,
        &["src/env.ts", "src/ok.ts", "./src/../.env"],
        expect![[r#"
            src/env.ts: blocked by .rooignore:1 `.env` on .env (canonical)
            src/ok.ts: allowed
            ./src/../.env: blocked by .rooignore:1 `.env` on .env (lexical)
        "#]],
    );
}

#[test]
fn ignore_files_themselves_are_blocked_and_protection_covers_config_folders() {
    check(
        r#"
//- /ws/.rooignore
build/
//- /ws/.roo/rules.md
r
//- /ws/sub/.vscode/settings.json
{}
//- /ws/.roomodes
m
"#,
        &[
            ".rooignore",
            ".zooignore",
            ".roo/rules.md",
            "sub/.vscode/settings.json",
            ".roomodes",
            "build/out.js",
        ],
        expect![[r#"
            .rooignore: blocked by implicit:- `.rooignore` on .rooignore (lexical); protected by `.rooignore` (lexical)
            .zooignore: blocked by implicit:- `.zooignore` on .zooignore (lexical); protected by `.zooignore` (lexical)
            .roo/rules.md: allowed; protected by `.roo/**` (lexical)
            sub/.vscode/settings.json: allowed; protected by `**/.vscode/**` (lexical)
            .roomodes: allowed; protected by `.roomodes` (lexical)
            build/out.js: blocked by .rooignore:1 `build/` on build/out.js (lexical)
        "#]],
    );
}

/// Issue 26: `ln .roo/mcp.json src/x` made `src/x` a writable name of a protected file (it was
/// `allowed` with no protection before).
#[test]
fn a_second_hard_link_of_a_protected_file_is_protected_whatever_its_name() {
    check(
        r#"
//- /ws/.roo/mcp.json
{}
//- /ws/src/x => /ws/.roo/mcp.json
//- /ws/src/plain.ts
p
//- /ws/src/link -> x
"#,
        &["src/x", "src/link", ".roo/mcp.json", "src/plain.ts"],
        expect![[r#"
            src/x: allowed; protected by `(a hard link: another name of this file may be protected)` (canonical)
            src/link: allowed; protected by `(a hard link: another name of this file may be protected)` (canonical)
            .roo/mcp.json: allowed; protected by `.roo/**` (lexical)
            src/plain.ts: allowed
        "#]],
    );
}

const BOTH_IGNORE_FILES: &str = r#"
//- /ws/.rooignore
a.txt
keep/
//- /ws/.zooignore
logs/
!logs/keep.txt
!a.txt
!keep/
b.txt
//- /ws/a.txt
a
//- /ws/b.txt
b
//- /ws/logs/keep.txt
k
//- /ws/keep/x.txt
x
"#;

#[test]
fn under_zoo_both_ignore_files_are_in_force_and_neither_negation_reincludes_the_others_rules() {
    check_in(
        Flavor::Zoo,
        BOTH_IGNORE_FILES,
        &["a.txt", "b.txt", "logs/keep.txt", "keep/x.txt"],
        expect![[r#"
            a.txt: blocked by .rooignore:1 `a.txt` on a.txt (lexical)
            b.txt: blocked by .zooignore:5 `b.txt` on b.txt (lexical)
            logs/keep.txt: blocked by .zooignore:1 `logs/` on logs/keep.txt (lexical)
            keep/x.txt: blocked by .rooignore:2 `keep/` on keep/x.txt (lexical)
        "#]],
    );
}

#[test]
fn under_roo_a_zooignore_is_not_read_as_roo_code_never_reads_it() {
    check(
        BOTH_IGNORE_FILES,
        &[
            "a.txt",
            "b.txt",
            "logs/keep.txt",
            "keep/x.txt",
            ".zooignore",
        ],
        expect![[r#"
            a.txt: blocked by .rooignore:1 `a.txt` on a.txt (lexical)
            b.txt: allowed
            logs/keep.txt: allowed
            keep/x.txt: blocked by .rooignore:2 `keep/` on keep/x.txt (lexical)
            .zooignore: blocked by implicit:- `.zooignore` on .zooignore (lexical); protected by `.zooignore` (lexical)
        "#]],
    );
}

#[test]
fn an_empty_zooignore_drops_no_rooignore_rule() {
    check_in(
        Flavor::Zoo,
        "//- /ws/.rooignore\nsecrets/\n//- /ws/.zooignore\n//- /ws/secrets/key.pem\nk\n",
        &["secrets/key.pem"],
        expect![[r#"
            secrets/key.pem: blocked by .rooignore:1 `secrets/` on secrets/key.pem (lexical)
        "#]],
    );
}

#[test]
fn which_ignore_files_are_in_force_per_flavor() {
    let table: Vec<String> = [Flavor::Roo, Flavor::Zoo]
        .into_iter()
        .flat_map(|flavor| {
            [(false, false), (true, false), (false, true), (true, true)]
                .into_iter()
                .map(move |(zoo, roo)| {
                    format!(
                        "{flavor:?} zoo={zoo} roo={roo}: {:?}",
                        ignore_files_in_force(flavor, zoo, roo)
                    )
                })
        })
        .collect();
    expect![[r#"
        Roo zoo=false roo=false: []
        Roo zoo=true roo=false: []
        Roo zoo=false roo=true: [".rooignore"]
        Roo zoo=true roo=true: [".rooignore"]
        Zoo zoo=false roo=false: []
        Zoo zoo=true roo=false: [".zooignore"]
        Zoo zoo=false roo=true: [".rooignore"]
        Zoo zoo=true roo=true: [".zooignore", ".rooignore"]"#]]
    .assert_eq(&table.join("\n"));
}

#[test]
fn paths_outside_the_workspace_are_allowed_unless_they_land_inside() {
    check(
        r#"
//- /ws/.rooignore
private/
//- /ws/private/p.txt
p
//- /outside/o.txt
o
//- /outside/in -> /ws/private/p.txt
"#,
        &["/outside/o.txt", "/outside/in", "../outside/o.txt"],
        expect![[r#"
            /outside/o.txt: allowed
            /outside/in: blocked by .rooignore:1 `private/` on private/p.txt (canonical)
            ../outside/o.txt: allowed
        "#]],
    );
}

/// Whether `roo/ignore/instructions` withholds the text of `/ws`'s ignore file, read from
/// `real` (with `links` names), with `/ws` ruled by `rules` and `/other` by `other_rules`.
fn instructions_withheld(
    rules: &str,
    other_rules: Option<&str>,
    real: &str,
    links: u64,
    deny_outside_workspace: bool,
) -> bool {
    use roo_context_core::access::{IgnoreSource, WITHHELD_IGNORE_TEXT};
    let fs = MemFs::default();
    fs.file("/ws/a", "");
    fs.file("/other/a", "");
    let mut ignore = IgnoreFile::new(".rooignore", rules);
    ignore.source = Some(IgnoreSource {
        real_path: real.into(),
        links,
    });
    let mut folders = vec![FolderPolicy {
        root: WorkspaceRoot::new(Path::new("/ws"), &fs),
        ignore: Some(Arc::new(ignore)),
    }];
    if let Some(other) = other_rules {
        folders.push(FolderPolicy {
            root: WorkspaceRoot::new(Path::new("/other"), &fs),
            ignore: Some(Arc::new(IgnoreFile::new(".rooignore", other))),
        });
    }
    let policy = Policy {
        folders,
        protect: Arc::new(ProtectRules::new(&[], Flavor::Roo)),
        deny_outside_workspace,
    };
    let text = policy
        .ignore_instructions(0)
        .expect("an ignore file is active");
    let withheld = !text.contains(rules);
    assert_eq!(withheld, text.contains(WITHHELD_IGNORE_TEXT), "{text}");
    assert_eq!(withheld, policy.ignore_text_withheld(0).is_some());
    withheld
}

/// Table: (rules of /ws, rules of /other, the real file read, its links, deny outside). The
/// original sends the ignore file's text whatever it is; a `.rooignore` that is a link into a
/// folder its own rules block (or a hard link, whose other name may be blocked) must not
/// disclose those bytes.
#[test]
fn ignore_instructions_withhold_the_text_of_a_link_to_a_blocked_file() {
    let withheld: [(&str, Option<&str>, &str, u64, bool); 14] = [
        ("secrets/**\n", None, "/ws/secrets/rules", 1, false),
        ("secrets/\n", None, "/ws/secrets/rooignore", 1, false),
        ("secrets\n", None, "/ws/secrets/deep/x.txt", 1, false),
        ("*.env\n", None, "/ws/prod.env", 1, false),
        // Named like an ignore file inside a blocked folder: the implicit rule does not hide
        // the folder's own.
        ("secrets/**\n", None, "/ws/secrets/.rooignore", 1, false),
        ("vault/\n", None, "/ws/vault/.zooignore", 1, false),
        ("SECRETS/**\n", None, "/ws/secrets/r", 1, false),
        ("x\n", None, "/ws/.rooignore", 2, false),
        ("x\n", Some("private/\n"), "/other/private/r", 1, false),
        ("x\n", None, "/elsewhere/r", 1, true),
        ("caf\u{e9}/\n", None, "/ws/cafe\u{301}/r", 1, false),
        ("key.txt\n", None, "/ws/key.txt.", 1, false),
        ("secrets\t\n", None, "/ws/secrets/r", 1, false),
        ("**/private/**\n", None, "/ws/a/private/r", 1, false),
    ];
    for (rules, other, real, links, deny) in withheld {
        assert!(
            instructions_withheld(rules, other, real, links, deny),
            "{rules:?} {other:?} {real} links {links} deny {deny}: withheld"
        );
    }
    // Another folder's own ignore file: that folder's instructions show it anyway.
    let shown: [(&str, Option<&str>, &str, u64, bool); 7] = [
        ("x\n", Some("*\n"), "/other/.rooignore", 1, false),
        ("secrets/**\n", None, "/ws/.rooignore", 1, false),
        ("secrets/**\n", None, "/ws/config/rooignore.txt", 1, false),
        (
            "secrets/**\n",
            Some("build/\n"),
            "/other/.rooignore",
            1,
            false,
        ),
        ("secrets/**\n", None, "/elsewhere/rules", 1, false),
        ("secrets/**\n", None, "/ws/sub/.rooignore", 1, false),
        ("secrets/**\n", None, "/ws/secretsfile", 1, false),
    ];
    for (rules, other, real, links, deny) in shown {
        assert!(
            !instructions_withheld(rules, other, real, links, deny),
            "{rules:?} {other:?} {real}: shown"
        );
    }
}

/// Adding a file in force never drops one already there, however many are chained.
#[test]
fn every_chained_ignore_file_stays_in_force() {
    let chained = IgnoreFile::new(".zooignore", "a\n")
        .with_also(IgnoreFile::new(".rooignore", "b\n"))
        .with_also(IgnoreFile::new(".rooignore", "c\n"));
    assert_eq!(chained.files().count(), 3);
    for path in ["a", "b", "c"] {
        assert!(chained.matched(path).is_some(), "{path}");
    }
    assert!(chained.matched("d").is_none());
}
