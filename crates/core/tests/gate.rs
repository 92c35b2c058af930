//! The read gate (`fs::open_gated`) on the in-memory file system: what it opens, what it
//! refuses, a name swapped between the access check and the open, Windows path forms, and a
//! property test that no workspace content lets a blocked file's bytes into a mention.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use proptest::prelude::*;
use roo_context_core::access::{Flavor, FolderPolicy, IgnoreFile, Policy, ProtectRules};
use roo_context_core::fs::memory::MemFs;
use roo_context_core::fs::{
    DirEntry, EntryKind, FileSystem, GateRefusal, OpenedFile, open_gated, simplify_verbatim,
};
use roo_context_core::mentions::{
    CommandCatalog, CommandLookup, FolderCommandCatalog, MentionReader,
};
use roo_context_core::path::{Resolver, WorkspaceRoot};

const SECRET: &str = "SECRET-7f3a";

fn policy(fs: &dyn FileSystem, rooignore: &str, deny_outside: bool) -> Policy {
    Policy {
        folders: vec![FolderPolicy {
            root: WorkspaceRoot::new(Path::new("/ws"), fs),
            ignore: Some(Arc::new(IgnoreFile::new(".rooignore", rooignore))),
        }],
        protect: Arc::new(ProtectRules::new(&[], Flavor::Roo)),
        deny_outside_workspace: deny_outside,
    }
}

fn gate(fs: &dyn FileSystem, policy: &Policy, path: &str, bound: u64) -> Result<String, String> {
    open_gated(fs, Path::new(path), bound, false, &|opened| {
        policy.allows_opened(opened)
    })
    .map_err(|refusal| format!("{refusal:?}"))
    .map(|mut file| {
        let mut text = String::new();
        file.read_to_string(&mut text).unwrap();
        text
    })
}

fn workspace() -> MemFs {
    let fs = MemFs::default();
    fs.file("/ws/src/a.ts", "export const a = 1;\n")
        .file("/ws/.env", format!("KEY={SECRET}\n"))
        .file("/ws/secrets/key.pem", SECRET)
        .file("/outside/notes.txt", "outside text")
        .symlink("/ws/src/env.ts", "../.env")
        .symlink("/ws/src/keys", "/ws/secrets")
        .symlink("/ws/src/out.txt", "/outside/notes.txt")
        .symlink("/ws/src/dangling.ts", "/nowhere")
        .special("/ws/src/pipe.ts")
        .symlink("/ws/src/zero.ts", "/dev/zero")
        .special("/dev/zero");
    fs
}

#[test]
fn the_gate_reads_regular_allowed_files_within_the_bound() {
    let fs = workspace();
    let policy = policy(&fs, ".env\nsecrets/\n", false);
    assert_eq!(
        gate(&fs, &policy, "/ws/src/a.ts", 1 << 20).as_deref(),
        Ok("export const a = 1;\n")
    );
    assert_eq!(
        gate(&fs, &policy, "/ws/src/a.ts", 6).as_deref(),
        Ok("export")
    );
    let too_large = open_gated(&fs, Path::new("/ws/src/a.ts"), 6, true, &|_| true);
    assert!(matches!(
        too_large,
        Err(GateRefusal::TooLarge { len: 20, limit: 6 })
    ));
}

#[test]
fn the_gate_judges_what_a_link_opens_and_refuses_everything_but_regular_files() {
    let fs = workspace();
    let policy = policy(&fs, ".env\nsecrets/\n", false);
    let refused = |path: &str| gate(&fs, &policy, path, 1 << 20).unwrap_err();
    assert_eq!(refused("/ws/src/env.ts"), "Blocked");
    assert_eq!(refused("/ws/src/keys/key.pem"), "Blocked");
    assert_eq!(refused("/ws/src/pipe.ts"), "NotRegular");
    assert_eq!(refused("/ws/src/zero.ts"), "NotRegular");
    assert_eq!(refused("/ws/src"), "Directory");
    assert!(refused("/ws/src/dangling.ts").starts_with("Io("));
    assert!(refused("/ws/src/a.ts\0").starts_with("Io("));
    // Outside the workspace: allowed unless denied, and a link inside does not make it inside.
    assert_eq!(
        gate(&fs, &policy, "/ws/src/out.txt", 1 << 20).as_deref(),
        Ok("outside text")
    );
    let deny = self::policy(&fs, ".env\n", true);
    assert_eq!(
        gate(&fs, &deny, "/ws/src/out.txt", 1 << 20).unwrap_err(),
        "Blocked"
    );
}

#[test]
fn deny_outside_workspace_is_not_defeated_by_a_link_inside() {
    let fs = workspace();
    let deny = policy(&fs, "", true);
    let resolver = Resolver::default();
    let decision = deny.check_access(&resolver, &fs, None, "src/out.txt");
    assert!(!decision.allowed(), "{decision:?}");
    assert!(
        deny.check_access(&resolver, &fs, None, "src/a.ts")
            .allowed()
    );
    let allow = policy(&fs, "", false);
    assert!(
        allow
            .check_access(&resolver, &fs, None, "src/out.txt")
            .allowed()
    );
}

/// A file system whose named file turns into a link to the secret between the access check
/// (which sees the benign file) and the open: the race the gate exists for, made certain.
struct SwapOnOpen {
    inner: MemFs,
}

impl FileSystem for SwapOnOpen {
    fn canonicalize(&self, path: &Path) -> std::io::Result<PathBuf> {
        self.inner.canonicalize(path)
    }
    fn is_symlink(&self, path: &Path) -> Option<bool> {
        self.inner.is_symlink(path)
    }
    fn kind(&self, path: &Path) -> std::io::Result<EntryKind> {
        self.inner.kind(path)
    }
    fn read_dir(&self, path: &Path) -> std::io::Result<Vec<DirEntry>> {
        self.inner.read_dir(path)
    }
    fn open_file(&self, path: &Path) -> std::io::Result<OpenedFile> {
        if path.ends_with("a.ts") || path.ends_with("setup.md") {
            self.inner
                .symlink(&path.to_string_lossy(), "/ws/secrets/key.pem");
        }
        self.inner.open_file(path)
    }
    fn list_dir(&self, path: &Path) -> std::io::Result<(PathBuf, Vec<DirEntry>)> {
        if path.ends_with("swapdir") {
            self.inner.remove(&path.to_string_lossy());
            self.inner.symlink(&path.to_string_lossy(), "/ws/secrets");
        }
        self.inner.list_dir(path)
    }
}

fn reader<'a>(
    fs: &'a dyn FileSystem,
    policy: &'a Policy,
    resolver: &'a Resolver,
) -> MentionReader<'a> {
    MentionReader {
        fs,
        policy,
        resolver,
        cwd: Path::new("/ws"),
        show_ignored_files: false,
        zoo_wording: false,
    }
}

#[test]
fn a_file_swapped_for_a_link_after_its_check_is_not_read() {
    let fs = SwapOnOpen { inner: workspace() };
    let policy = policy(&fs, ".env\nsecrets/\n", false);
    let resolver = Resolver::default();
    let mention = reader(&fs, &policy, &resolver).read_path_mention("src/a.ts");
    assert!(!mention.block.content.contains(SECRET), "{mention:?}");
    assert!(mention.block.content.contains("ignored"), "{mention:?}");
    assert_eq!(mention.tracked_file, None);

    let fs = SwapOnOpen { inner: workspace() };
    let folder = reader(&fs, &policy, &resolver).read_path_mention("src/");
    assert!(!folder.block.content.contains(SECRET), "{folder:?}");

    // A folder swapped for a link to a blocked folder after its check lists nothing of it.
    let fs = SwapOnOpen { inner: workspace() };
    fs.inner.file("/ws/src/swapdir/harmless.ts", "harmless");
    let folder = reader(&fs, &policy, &resolver).read_path_mention("src/swapdir/");
    assert!(!folder.block.content.contains("key.pem"), "{folder:?}");
    // With a rule naming the folder itself the listing is refused whole.
    let fs = SwapOnOpen { inner: workspace() };
    fs.inner.file("/ws/src/swapdir/harmless.ts", "harmless");
    let whole = self::policy(&fs, "secrets\n", false);
    let folder = reader(&fs, &whole, &resolver).read_path_mention("src/swapdir/");
    assert!(!folder.block.content.contains("key.pem"), "{folder:?}");
    assert!(folder.block.content.contains("ignored"), "{folder:?}");
}

#[test]
fn a_command_file_linked_to_an_ignored_file_is_no_command() {
    let fs = workspace();
    fs.folder("/ws/.roo/commands")
        .symlink("/ws/.roo/commands/setup.md", "../../.env")
        .file(
            "/ws/.roo/commands/ok.md",
            "---\ndescription: fine\n---\nDo it.\n",
        );
    let policy = policy(&fs, ".env\nsecrets/\n", false);
    let resolver = Resolver::default();
    let catalog = FolderCommandCatalog::new(&fs, &policy, &resolver, Some(Path::new("/ws")), None);
    assert!(catalog.lookup("setup").is_none());
    let Some(CommandLookup::Command(ok)) = catalog.lookup("ok") else {
        panic!("ok.md is a command");
    };
    assert_eq!(ok.content, "Do it.");

    // The same through a swap after the check.
    let swapping = SwapOnOpen { inner: workspace() };
    swapping
        .inner
        .file("/ws/.roo/commands/setup.md", "harmless");
    let catalog =
        FolderCommandCatalog::new(&swapping, &policy, &resolver, Some(Path::new("/ws")), None);
    assert!(catalog.lookup("setup").is_none());
}

#[test]
fn fifos_and_devices_never_reach_a_mention() {
    let fs = workspace();
    let policy = policy(&fs, ".env\n", false);
    let resolver = Resolver::default();
    for path in ["src/pipe.ts", "src/zero.ts"] {
        let mention = reader(&fs, &policy, &resolver).read_path_mention(path);
        assert!(
            mention.block.content.contains("Unable to read"),
            "{path}: {mention:?}"
        );
    }
    let folder = reader(&fs, &policy, &resolver).read_path_mention("src/");
    assert!(folder.block.content.contains("pipe.ts"));
}

#[test]
fn windows_verbatim_paths_simplify_only_when_lossless() {
    let cases = [
        (r"\\?\C:\ws\src\a.ts", Some(r"C:\ws\src\a.ts")),
        (r"\\?\c:\Users\Ada", Some(r"c:\Users\Ada")),
        (r"\\?\UNC\server\share\ws", Some(r"\\server\share\ws")),
        (r"C:\ws", None),
        (r"\\?\C:\ws\CON", None),
        (r"\\?\C:\ws\nul.txt", None),
        (r"\\?\C:\ws\trailing.", None),
        (r"\\?\C:\ws\space ", None),
        (r"\\?\C:\ws/slash", None),
        (r"\\?\Volume{1234}\x", None),
        (r"\\?\C:", None),
    ];
    for (input, expected) in cases {
        assert_eq!(simplify_verbatim(input).as_deref(), expected, "{input}");
    }
    let long = format!(r"\\?\C:\{}", "a".repeat(300));
    assert_eq!(simplify_verbatim(&long), None);
}

#[test]
fn backslashes_and_case_do_not_hide_a_blocked_file() {
    let fs = workspace();
    fs.file("/ws/Secrets/Other.PEM", SECRET);
    let policy = policy(&fs, "secrets/\n*.pem\n", false);
    let resolver = Resolver::default();
    for path in [
        r"src\keys\key.pem",
        r"Secrets\Other.PEM",
        "SECRETS/key.pem",
        r"src\..\secrets\KEY.PEM",
    ] {
        assert!(
            !policy.check_access(&resolver, &fs, None, path).allowed(),
            "{path}"
        );
        let mention = reader(&fs, &policy, &resolver).read_path_mention(path);
        assert!(
            !mention.block.content.contains(SECRET),
            "{path}: {mention:?}"
        );
    }
}

#[derive(Debug, Clone)]
enum Entry {
    File { blocked: bool },
    Link { target: usize },
    Fifo,
    Folder,
}

fn entry() -> impl Strategy<Value = Entry> {
    prop_oneof![
        3 => any::<bool>().prop_map(|blocked| Entry::File { blocked }),
        3 => (0usize..12).prop_map(|target| Entry::Link { target }),
        1 => Just(Entry::Fifo),
        1 => Just(Entry::Folder),
    ]
}

/// Path `index` of a generated workspace: half in `secrets/` (blocked), half in `src/`.
fn generated_path(index: usize) -> String {
    let folder = if index.is_multiple_of(2) {
        "src"
    } else {
        "secrets"
    };
    let nested = if index.is_multiple_of(3) { "/deep" } else { "" };
    format!("/ws/{folder}{nested}/e{index}.ts")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn no_workspace_content_lets_a_blocked_byte_into_a_mention(
        entries in prop::collection::vec(entry(), 1..12),
        swap in any::<bool>(),
    ) {
        let fs = MemFs::default();
        fs.file("/outside/x.ts", "outside");
        for (index, entry) in entries.iter().enumerate() {
            let path = generated_path(index);
            match entry {
                // A file in `secrets/` carries the secret; so does any file marked blocked,
                // which is then also named by a rule.
                Entry::File { blocked } if *blocked || path.contains("secrets") => {
                    fs.file(&path, format!("{SECRET} {index}"));
                }
                Entry::File { .. } => { fs.file(&path, format!("public {index}")); }
                Entry::Link { target } => {
                    let target = if *target >= entries.len() { "/outside/x.ts".to_owned() } else { generated_path(*target) };
                    fs.symlink(&path, &target);
                }
                Entry::Fifo => { fs.special(&path); }
                Entry::Folder => { fs.folder(&path); }
            }
        }
        let blocked_names: Vec<String> = entries.iter().enumerate()
            .filter(|(_, e)| matches!(e, Entry::File { blocked: true }))
            .map(|(i, _)| format!("e{i}.ts"))
            .collect();
        let rules = format!("secrets/\n{}\n", blocked_names.join("\n"));
        let swapping = SwapOnOpen { inner: fs };
        let fs: &dyn FileSystem = if swap { &swapping } else { &swapping.inner };
        let policy = policy(fs, &rules, false);
        let resolver = Resolver::default();
        let reader = reader(fs, &policy, &resolver);
        let mut mentions: Vec<String> = (0..entries.len())
            .map(|i| generated_path(i).trim_start_matches("/ws/").to_owned())
            .collect();
        mentions.extend(["src/", "src/deep/", "secrets/", "./"].map(String::from));
        for mention in mentions {
            let read = reader.read_path_mention(&mention);
            prop_assert!(!read.block.content.contains(SECRET), "{}: {:?}", mention, read);
        }
    }
}

#[test]
fn macos_private_var_roots_judge_real_paths_inside() {
    // macOS: /var is a link to /private/var, so temp workspaces resolve under /private.
    let fs = MemFs::default();
    fs.file("/private/var/folders/ws/.env", SECRET)
        .file("/private/var/folders/ws/src/a.ts", "fine")
        .symlink("/private/var/folders/ws/src/env.ts", "../.env")
        .symlink("/var", "/private/var");
    let policy = Policy {
        folders: vec![FolderPolicy {
            root: WorkspaceRoot::new(Path::new("/var/folders/ws"), &fs),
            ignore: Some(Arc::new(IgnoreFile::new(".rooignore", ".env\n"))),
        }],
        protect: Arc::new(ProtectRules::new(&[], Flavor::Roo)),
        deny_outside_workspace: true,
    };
    assert_eq!(
        policy.folders[0].root.canonical,
        PathBuf::from("/private/var/folders/ws")
    );
    assert_eq!(
        gate(&fs, &policy, "/var/folders/ws/src/a.ts", 1 << 20).as_deref(),
        Ok("fine")
    );
    assert_eq!(
        gate(&fs, &policy, "/var/folders/ws/src/env.ts", 1 << 20).unwrap_err(),
        "Blocked"
    );
    let resolver = Resolver::default();
    let reader = MentionReader {
        fs: &fs,
        policy: &policy,
        resolver: &resolver,
        cwd: Path::new("/var/folders/ws"),
        show_ignored_files: false,
        zoo_wording: false,
    };
    for path in ["src/env.ts", ".env", "/private/var/folders/ws/.env"] {
        let mention = reader.read_path_mention(path);
        assert!(
            !mention.block.content.contains(SECRET),
            "{path}: {mention:?}"
        );
    }
    assert!(
        reader
            .read_path_mention("src/a.ts")
            .block
            .content
            .contains("fine")
    );
}
