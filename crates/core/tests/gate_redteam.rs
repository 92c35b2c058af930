//! Red-team classes of the read gate and the access rule that the first gate tests did not
//! cover: hard links, Unicode normalisation of names, names as Windows opens them (trailing
//! dots and spaces, alternate data streams, drive letters, UNC and verbatim prefixes, mixed
//! separators), kernel pseudo files, and a name that looks like the kernel's "deleted" mark.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use proptest::prelude::*;
use roo_context_core::access::{Flavor, FolderPolicy, IgnoreFile, Policy, ProtectRules};
use roo_context_core::fs::memory::MemFs;
use roo_context_core::fs::{FileSystem, GateRefusal, OsFs, open_gated, simplify_verbatim};
use roo_context_core::mentions::{
    CommandCatalog, CommandLookup, FolderCommandCatalog, MentionReader,
};
use roo_context_core::path::{Resolver, WorkspaceRoot, normalize_lexically, to_posix};
use roo_context_core::rules::{RuleSet, windows_alias};

const SECRET: &str = "SECRET-51c0";

fn policy_at(fs: &dyn FileSystem, root: &Path, rooignore: Option<&str>) -> Policy {
    Policy {
        folders: vec![FolderPolicy {
            root: WorkspaceRoot::new(root, fs),
            ignore: rooignore.map(|text| Arc::new(IgnoreFile::new(".rooignore", text))),
        }],
        protect: Arc::new(ProtectRules::new(&[], Flavor::Roo)),
        deny_outside_workspace: false,
    }
}

fn policy(fs: &dyn FileSystem, rooignore: Option<&str>) -> Policy {
    policy_at(fs, Path::new("/ws"), rooignore)
}

fn gate(fs: &dyn FileSystem, policy: &Policy, path: &str) -> Result<String, String> {
    open_gated(fs, Path::new(path), 1 << 20, false, &|opened| {
        policy.allows_opened(opened)
    })
    .map_err(|refusal| format!("{refusal:?}"))
    .map(|mut file| {
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        text
    })
}

fn mention(fs: &dyn FileSystem, policy: &Policy, path: &str) -> String {
    let resolver = Resolver::default();
    let reader = MentionReader {
        fs,
        policy,
        resolver: &resolver,
        cwd: Path::new("/ws"),
        show_ignored_files: false,
        zoo_wording: false,
    };
    reader.read_path_mention(path).block.content
}

#[test]
fn a_hard_link_to_a_blocked_file_is_refused_while_an_ignore_file_is_active() {
    let fs = MemFs::default();
    fs.file("/ws/secrets/key.pem", SECRET)
        .file("/ws/src/a.ts", "fine")
        .hard_link("/ws/src/notes.txt", "/ws/secrets/key.pem")
        .hard_link("/ws/.roo/commands/setup.md", "/ws/secrets/key.pem");
    let guarded = policy(&fs, Some("secrets/\n"));
    assert_eq!(
        gate(&fs, &guarded, "/ws/src/notes.txt").unwrap_err(),
        "HardLinked { links: 3 }"
    );
    assert_eq!(gate(&fs, &guarded, "/ws/src/a.ts").as_deref(), Ok("fine"));
    assert!(mention(&fs, &guarded, "src/notes.txt").contains("3 hard links"));
    for path in ["src/notes.txt", "src/"] {
        let text = mention(&fs, &guarded, path);
        assert!(!text.contains(SECRET), "{path}: {text}");
    }
    let resolver = Resolver::default();
    let catalog = FolderCommandCatalog::new(&fs, &guarded, &resolver, Some(Path::new("/ws")), None);
    assert!(catalog.lookup("setup").is_none());
    // With no ignore file anywhere nothing is blocked, so a shared file is read as usual.
    let open = policy(&fs, None);
    assert_eq!(gate(&fs, &open, "/ws/src/notes.txt").as_deref(), Ok(SECRET));
    let catalog = FolderCommandCatalog::new(&fs, &open, &resolver, Some(Path::new("/ws")), None);
    assert!(matches!(
        catalog.lookup("setup"),
        Some(CommandLookup::Command(_))
    ));
}

#[test]
fn a_real_hard_link_is_refused_by_the_os_gate() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("secrets")).unwrap();
    std::fs::write(root.join("secrets/key.pem"), SECRET).unwrap();
    std::fs::hard_link(root.join("secrets/key.pem"), root.join("notes.txt")).unwrap();
    std::fs::write(root.join("plain.txt"), "plain").unwrap();
    let guarded = policy_at(&OsFs, &root, Some("secrets/\n"));
    let notes = root.join("notes.txt");
    assert_eq!(
        gate(&OsFs, &guarded, &notes.to_string_lossy()).unwrap_err(),
        "HardLinked { links: 2 }"
    );
    let plain = root.join("plain.txt");
    assert_eq!(
        gate(&OsFs, &guarded, &plain.to_string_lossy()).as_deref(),
        Ok("plain")
    );
}

#[test]
fn names_are_matched_in_one_normalisation_form() {
    let composed = "caf\u{e9}.txt";
    let decomposed = "cafe\u{301}.txt";
    for (rule, name) in [(composed, decomposed), (decomposed, composed)] {
        let fs = MemFs::default();
        fs.file(&format!("/ws/{name}"), SECRET)
            .file(&format!("/ws/dir-{name}/inner.ts"), SECRET);
        let rules = format!("{rule}\ndir-{rule}/\n");
        let policy = policy(&fs, Some(&rules));
        let resolver = Resolver::default();
        for path in [name.to_owned(), format!("dir-{name}/inner.ts")] {
            assert!(
                !policy.check_access(&resolver, &fs, None, &path).allowed(),
                "rule {rule:?} must block {path:?}"
            );
            let text = mention(&fs, &policy, &path);
            assert!(!text.contains(SECRET), "{path:?}: {text}");
            let absolute = format!("/ws/{path}");
            assert_eq!(gate(&fs, &policy, &absolute).unwrap_err(), "Blocked");
        }
    }
    // Protection too: a decomposed `.roo` name is not a concern, but a decomposed AGENTS.md
    // twin with an accent is matched like its composed rule.
    let rules = RuleSet::new(None, "r\u{e9}sum\u{e9}.md\n", &[]);
    assert!(rules.matched("docs/re\u{301}sume\u{301}.md").is_some());
}

#[test]
fn names_are_also_matched_as_windows_opens_them() {
    let cases = [
        ("secret.txt.", Some("secret.txt")),
        ("secret.txt ", Some("secret.txt")),
        ("secret.txt. . ", Some("secret.txt")),
        ("secret.txt::$DATA", Some("secret.txt")),
        ("secret.txt:hidden:$DATA", Some("secret.txt")),
        ("secrets./key.pem", Some("secrets/key.pem")),
        ("secrets /key.pem.", Some("secrets/key.pem")),
        ("src/a.ts", None),
        ("...", None),
        ("a/.../b", None),
        ("", None),
    ];
    for (input, expected) in cases {
        assert_eq!(windows_alias(input).as_deref(), expected, "{input:?}");
    }
    let rules = RuleSet::new(
        Some(".rooignore"),
        "secret.txt\nsecrets/\n",
        &[".rooignore"],
    );
    for path in [
        "secret.txt.",
        "secret.txt ",
        "secret.txt::$DATA",
        "SECRET.TXT:x",
        "secrets./key.pem",
        "Secrets /key.pem",
        ".rooignore.",
    ] {
        assert!(rules.matched(path).is_some(), "{path:?} got through");
    }
    assert!(rules.matched("secret.txt.bak").is_none());
    let protect = ProtectRules::new(&[], Flavor::Roo);
    for path in [
        ".roomodes.",
        ".roomodes::$DATA",
        "AGENTS.md ",
        ".roo./mcp.json",
    ] {
        assert!(protect.matched(path).is_some(), "{path:?} not protected");
    }
}

/// How a test names the blocked file `secrets/key.pem` in one Windows spelling.
#[derive(Debug, Clone)]
struct Spelling {
    prefix: &'static str,
    separators: Vec<bool>,
    upper: Vec<bool>,
    suffix: &'static str,
    stream: &'static str,
}

const RELATIVE_PREFIXES: [&str; 5] = ["", "./", ".\\", "src/../", "src\\..\\"];
const FOREIGN_PREFIXES: [&str; 6] = [
    "C:\\ws\\",
    "c:/ws/",
    "\\\\?\\C:\\ws\\",
    "\\\\server\\share\\ws\\",
    "\\\\?\\UNC\\server\\share\\ws\\",
    "//?/C:/ws/",
];

fn spelling() -> impl Strategy<Value = Spelling> {
    let prefixes: Vec<&'static str> = RELATIVE_PREFIXES
        .iter()
        .chain(FOREIGN_PREFIXES.iter())
        .copied()
        .collect();
    (
        proptest::sample::select(prefixes),
        proptest::collection::vec(any::<bool>(), 1),
        proptest::collection::vec(any::<bool>(), 15),
        proptest::sample::select(vec!["", ".", " ", ". .", ".."]),
        proptest::sample::select(vec!["", "::$DATA", ":x", ":x:$DATA"]),
    )
        .prop_map(|(prefix, separators, upper, suffix, stream)| Spelling {
            prefix,
            separators,
            upper,
            suffix,
            stream,
        })
}

impl Spelling {
    fn text(&self) -> String {
        let name: String = "secrets/key.pem"
            .chars()
            .zip(self.upper.iter().cycle())
            .map(|(c, up)| if *up { c.to_ascii_uppercase() } else { c })
            .collect();
        let separator = if self.separators[0] { "\\" } else { "/" };
        let name = name.replacen('/', separator, 1);
        format!("{}{name}{}{}", self.prefix, self.suffix, self.stream)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Drive letters, UNC and verbatim prefixes, mixed separators, case, trailing dots and
    /// spaces and stream suffixes: no spelling of the blocked file is allowed where it names
    /// it, no spelling reads its bytes anywhere, and nothing panics.
    #[test]
    fn no_windows_spelling_of_a_blocked_file_is_allowed(spelling in spelling()) {
        let fs = MemFs::default();
        fs.file("/ws/secrets/key.pem", SECRET).file("/ws/src/a.ts", "fine");
        let policy = policy(&fs, Some("/secrets/key.pem\n"));
        let resolver = Resolver::default();
        let text = spelling.text();
        let decision = policy.check_access(&resolver, &fs, None, &text);
        if RELATIVE_PREFIXES.contains(&spelling.prefix) {
            prop_assert!(!decision.allowed(), "{:?} allowed", text);
        }
        let content = mention(&fs, &policy, &text);
        prop_assert!(!content.contains(SECRET), "{:?}: {}", text, content);
        // The pure pieces never panic on any of it.
        let _ = simplify_verbatim(&text);
        let _ = normalize_lexically(Path::new("/ws"), &text);
        let _ = windows_alias(&to_posix(&text));
    }

    /// Any string at all through the pure path pieces: no panic, and a verbatim path that is
    /// simplified keeps every component it had.
    #[test]
    fn pure_path_pieces_never_panic(text in "[\\\\/?.:A-Za-z0-9 $]{0,40}") {
        if let Some(plain) = simplify_verbatim(&text) {
            prop_assert!(text.ends_with(plain.trim_start_matches('\\')), "{} -> {}", text, plain);
        }
        let _ = windows_alias(&to_posix(&text));
        let _ = normalize_lexically(Path::new("/ws"), &text);
        let rules = RuleSet::new(None, "secrets/\n", &[]);
        let _ = rules.matched(to_posix(&text).trim_start_matches('/'));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn kernel_pseudo_files_are_never_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", root.join("env.ts")).unwrap();
    std::os::unix::fs::symlink("/proc/self/status", root.join("status.md")).unwrap();
    let policy = policy_at(&OsFs, &root, None);
    for path in [
        root.join("env.ts"),
        root.join("status.md"),
        "/proc/self/environ".into(),
        "/proc/self/cmdline".into(),
        "/sys/kernel/mm/transparent_hugepage/enabled".into(),
    ] {
        let refused = open_gated(&OsFs, &path, 1 << 20, false, &|opened| {
            policy.allows_opened(opened)
        });
        assert!(
            matches!(refused, Err(GateRefusal::NotRegular | GateRefusal::Io(_))),
            "{}: {refused:?}",
            path.display()
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_name_that_looks_like_the_kernels_deleted_mark_is_judged_by_its_object() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("key.pem"), SECRET).unwrap();
    std::fs::write(root.join("notes (deleted)"), "notes").unwrap();
    let policy = policy_at(&OsFs, &root, Some("*.pem\n"));
    // A plain file of that name is read (through the full identity check).
    let notes = root.join("notes (deleted)");
    assert_eq!(
        gate(&OsFs, &policy, &notes.to_string_lossy()).as_deref(),
        Ok("notes")
    );
    // A name `key.pem (deleted)` that is a link to the blocked file is judged by its target.
    let marked = root.join("key.pem (deleted)");
    std::os::unix::fs::symlink(root.join("key.pem"), &marked).unwrap();
    assert_eq!(
        gate(&OsFs, &policy, &marked.to_string_lossy()).unwrap_err(),
        "Blocked"
    );
}

#[test]
fn a_negation_with_an_invalid_byte_re_includes_nothing() {
    // Latin-1 names: the user re-includes `geheim\xe4.ts` only; read with U+FFFD the negation
    // would also re-include `geheim\xf6.ts` (and every other invalid byte there).
    let file = IgnoreFile::from_bytes(".rooignore", b"geheim*\n!geheim\xe4.ts\n");
    assert!(file.rules.matched("geheim\u{fffd}.ts").is_some());
    assert!(file.rules.matched("geheimnis.ts").is_some());
    assert!(
        file.rules
            .diagnostics
            .iter()
            .any(|d| d.line == 2 && d.message.contains("dropped")),
        "{:?}",
        file.rules.diagnostics
    );
    // The instructions still show the file as written (lossily).
    assert!(file.instructions().contains("!geheim\u{fffd}.ts"));
    // A positive rule with an invalid byte keeps blocking every such name.
    let file = IgnoreFile::from_bytes(".rooignore", b"geheim\xe4.ts\n");
    assert!(file.rules.matched("geheim\u{fffd}.ts").is_some());
}
