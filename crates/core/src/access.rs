//! The access rule (`.rooignore` / `.zooignore`) and write protection for a set of workspace
//! folders. One function decides each question; ignore, protect, mentions, folding and the
//! tracker all call these.
//! One file on purpose: it is the one decider of what may be read or written (the decisions
//! below), read whole when audited; `Policy` calls `IgnoreFile`'s private `instructions_with`.
//!
//! ## Decision: Access rule
//!
//! A path is blocked if its lexical relative path or its canonical relative path (every symlink
//! resolved, the root included) matches any folder's rules; a path outside every folder is allowed
//! unless its canonical form lands inside (or `denyOutsideWorkspace` is set). Matching is
//! case-insensitive, ancestors are checked top-down as folders (git's rule: nothing inside an
//! excluded folder can be re-included), both ignore file names are always blocked. Which files are
//! in force is the flavor's (`ignore_files_in_force`): `.rooignore` only under `roo` (Roo and Zoo
//! up to 3.80 never read `.zooignore`), both under `zoo`, where a path either blocks is blocked, so
//! a second file only adds rules (an empty `.zooignore` drops none of `.rooignore`'s). The `ignore`
//! crate is never given an absolute path.
//!
//! ## Decision: Write protection
//!
//! Write protection is the union of Roo's and Zoo's patterns plus configured extras, and also
//! protects `.roo/`, `.zoo/` and `.vscode/` folders at any depth (the original only at the root).
//!
//! ## Decision: Write protection judges the file, not only the name
//!
//! A regular file with more than one name is protected (`HARD_LINK_PROTECTION`, via `canonical`):
//! `ln .roo/mcp.json src/x` made a second, unprotected name, and finding whether another name of an
//! inode is protected means walking every folder. The cost is the read gate's: hard-linked trees
//! (pnpm's store) ask before writes. `FileSystem::hard_links` is the one stat it needs.

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;

use crate::fs::FileSystem;
use crate::path::{Resolver, WorkspaceRoot};
use crate::rules::{RuleDiagnostic, RuleOrigin, RuleSet, decode_ignore_bytes};

/// The Roo ignore file name.
pub const ROO_IGNORE_FILE: &str = ".rooignore";
/// The Zoo ignore file name, preferred when present.
pub const ZOO_IGNORE_FILE: &str = ".zooignore";
/// Marker the original puts before blocked entries in listings (U+1F512).
pub const LOCK_SYMBOL: &str = "\u{1F512}";
/// Marker of write-protected files in instructions (U+1F6E1, no variation selector).
pub const SHIELD_SYMBOL: &str = "\u{1F6E1}";
/// Marker of write-protected entries in file listings (U+1F6E1 U+FE0F), as the original prints.
pub const SHIELD_LISTING_SYMBOL: &str = "\u{1F6E1}\u{FE0F}";

/// The ignore files in force in a folder, the one that names the rules in texts first.
///
/// Roo Code (3.52.1, its last release) and Zoo Code up to 3.80 read `.rooignore` only: under
/// [`Flavor::Roo`] a `.zooignore` is an ordinary (if protected) file. Zoo 3.82 reads
/// `.zooignore` when present and `.rooignore` only when it is not; here, under [`Flavor::Zoo`],
/// both are in force when both exist, so adding a second file (an empty `.zooignore` above
/// all) can only add rules, never drop the first file's.
pub fn ignore_files_in_force(
    flavor: Flavor,
    zoo_exists: bool,
    roo_exists: bool,
) -> Vec<&'static str> {
    let zoo = (flavor == Flavor::Zoo && zoo_exists).then_some(ZOO_IGNORE_FILE);
    let roo = roo_exists.then_some(ROO_IGNORE_FILE);
    zoo.into_iter().chain(roo).collect()
}

/// The active ignore file of one workspace folder, compiled, with the second file in force
/// beside it, if any ([`ignore_files_in_force`]).
#[derive(Debug)]
pub struct IgnoreFile {
    /// `.rooignore` or `.zooignore`: the file that names the rules in texts.
    pub name: String,
    /// The raw content, as read.
    pub content: String,
    /// The compiled rules (content plus both ignore file names, which are always blocked).
    pub rules: RuleSet,
    /// What the bytes were read from, when the server read them from disk; `None` for a text
    /// given directly.
    pub source: Option<IgnoreSource>,
    /// The other ignore file in force in the same folder (`.rooignore` beside a `.zooignore`):
    /// a path either blocks is blocked, so neither file's negations re-include the other's.
    pub also: Option<Box<IgnoreFile>>,
}

/// The object an ignore file's bytes were read from, as the read gate saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoreSource {
    /// The real path, every link resolved.
    pub real_path: std::path::PathBuf,
    /// Its number of hard links (names).
    pub links: u64,
}

/// What `roo/ignore/instructions` says in place of the file's text when it is withheld.
pub const WITHHELD_IGNORE_TEXT: &str = "(The rules of this file are in force, but its text is not shown: the file is not a plain file of this folder, and its bytes may belong to a path those rules block.)";

impl IgnoreFile {
    /// Compiles an ignore file's content.
    pub fn new(name: &str, content: &str) -> IgnoreFile {
        IgnoreFile {
            name: name.to_owned(),
            content: content.to_owned(),
            rules: RuleSet::new(Some(name), content, &[ROO_IGNORE_FILE, ZOO_IGNORE_FILE]),
            source: None,
            also: None,
        }
    }

    /// Compiles an ignore file's bytes, decoded as git does (see
    /// [`decode_ignore_bytes`]); lines that were not valid UTF-8 are reported as diagnostics.
    ///
    /// A negation (`!…`) on such a line is dropped rather than read with U+FFFD: U+FFFD stands
    /// for any invalid byte, so it would re-include names the user never listed (blocking more
    /// is the safe side; a positive rule keeps its U+FFFD and blocks every such name).
    pub fn from_bytes(name: &str, bytes: &[u8]) -> IgnoreFile {
        let (content, bad_lines) = decode_ignore_bytes(bytes);
        let rules_text: String = if bad_lines.is_empty() {
            content.clone()
        } else {
            content
                .split('\n')
                .enumerate()
                .map(|(index, line)| {
                    let negation = line.trim_start().starts_with('!');
                    if negation && bad_lines.contains(&(index + 1)) {
                        ""
                    } else {
                        line
                    }
                })
                .collect::<Vec<_>>()
                .join("\n")
        };
        let mut file = IgnoreFile {
            name: name.to_owned(),
            content: content.clone(),
            rules: RuleSet::new(Some(name), &rules_text, &[ROO_IGNORE_FILE, ZOO_IGNORE_FILE]),
            source: None,
            also: None,
        };
        file.rules
            .diagnostics
            .extend(bad_lines.into_iter().map(|line| {
                let negation = content
                    .split('\n')
                    .nth(line - 1)
                    .is_some_and(|text| text.trim_start().starts_with('!'));
                RuleDiagnostic {
                    line,
                    message: if negation {
                        "not valid UTF-8; a negation with invalid bytes is dropped".to_owned()
                    } else {
                        "not valid UTF-8; invalid bytes read as U+FFFD".to_owned()
                    },
                }
            }));
        file.rules.diagnostics.sort_by_key(|d| d.line);
        file
    }

    /// An ignore file that exists but cannot be used (unreadable, not a regular file, rules that
    /// cannot be compiled): it blocks every path of its folder.
    pub fn unusable(name: &str, reason: String) -> IgnoreFile {
        IgnoreFile {
            name: name.to_owned(),
            content: String::new(),
            rules: RuleSet::block_everything(Some(name), reason),
            source: None,
            also: None,
        }
    }

    /// This file with `other` in force beside it (see [`IgnoreFile::also`]), after any file
    /// already there: adding a file never drops one.
    pub fn with_also(mut self, other: IgnoreFile) -> IgnoreFile {
        self.also = Some(Box::new(match self.also.take() {
            Some(second) => second.with_also(other),
            None => other,
        }));
        self
    }

    /// This file, then the files in force beside it.
    pub fn files(&self) -> impl Iterator<Item = &IgnoreFile> {
        std::iter::successors(Some(self), |file| file.also.as_deref())
    }

    /// The rule that blocks `relative` (a relative posix path, as [`RuleSet::matched`] takes
    /// it) in any file in force, this one first.
    pub fn matched(&self, relative: &str) -> Option<RuleOrigin> {
        self.files().find_map(|file| file.rules.matched(relative))
    }

    /// Number of compiled patterns, over the files in force.
    pub fn rule_count(&self) -> usize {
        self.files().map(|file| file.rules.len()).sum()
    }

    /// Why a file in force cannot be used (the folder then blocks everything), if so.
    pub fn unusable_reason(&self) -> Option<&str> {
        self.files()
            .find_map(|file| file.rules.compile_error.as_deref())
    }

    fn is_zoo(&self) -> bool {
        self.name == ZOO_IGNORE_FILE
    }

    /// The text the original appends to the system prompt while the file is active, one block
    /// per file in force.
    pub fn instructions(&self) -> String {
        self.files()
            .map(|file| file.instructions_with(&file.content))
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// This file's block of [`Self::instructions`] with `content` in place of its text.
    fn instructions_with(&self, content: &str) -> String {
        let paragraph = if self.is_zoo() {
            "(The following is provided by a root-level project ignore file where the user has specified files and directories that should not be accessed. Zoo prefers .zooignore and falls back to .rooignore when needed. When using list_files, you'll notice a \u{1F512} next to files that are blocked. Attempting to access the file's contents e.g. through read_file will result in an error.)"
        } else {
            "(The following is provided by a root-level .rooignore file where the user has specified files and directories that should not be accessed. When using list_files, you'll notice a \u{1F512} next to files that are blocked. Attempting to access the file's contents e.g. through read_file will result in an error.)"
        };
        format!(
            "# {name}\n\n{paragraph}\n\n{content}\n{name}",
            name = self.name,
        )
    }

    /// The tool result the original returns when a tool touches a blocked path
    /// (`formatResponse.rooIgnoreError`): compact JSON, keys in this order.
    pub fn access_denied_error(&self, path: &str) -> String {
        access_denied_error(self.is_zoo(), path)
    }
}

/// The access-denied tool result for `path`, in Roo (`zoo == false`) or Zoo wording.
pub fn access_denied_error(zoo: bool, path: &str) -> String {
    let (message, suggestion) = if zoo {
        (
            "Access blocked by the project ignore file (.zooignore preferred, .rooignore fallback)",
            "Try to continue without this file, or ask the user to update the project ignore file (.zooignore preferred, .rooignore fallback)",
        )
    } else {
        (
            "Access blocked by .rooignore",
            "Try to continue without this file, or ask the user to update the .rooignore file",
        )
    };
    let value = serde_json::json!({
        "status": "error",
        "type": "access_denied",
        "message": message,
        "path": path,
        "suggestion": suggestion,
    });
    value.to_string()
}

/// Wording of user-visible protection texts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Deserialize, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Flavor {
    /// Roo Code wording.
    #[default]
    Roo,
    /// Zoo Code wording.
    Zoo,
}

/// The write-protected patterns: the union of Roo's and Zoo's lists, in Zoo's order.
pub const PROTECTED_PATTERNS: [&str; 13] = [
    ".zooignore",
    ".rooignore",
    ".zoomodes",
    ".roomodes",
    ".roorules*",
    ".clinerules*",
    ".zoo/**",
    ".roo/**",
    ".vscode/**",
    "*.code-workspace",
    ".rooprotected",
    "AGENTS.md",
    "AGENT.md",
];

/// The patterns only Zoo Code has. Roo Code's own list is [`PROTECTED_PATTERNS`] without them, in
/// the same order: what Roo's texts report (its system prompt and `getProtectedPatterns`) under
/// [`Flavor::Roo`]. The decisions always use the union (a `.zoo/` folder is no less a
/// configuration folder in Roo), only the reported list differs.
const ZOO_ONLY_PATTERNS: [&str; 3] = [".zooignore", ".zoomodes", ".zoo/**"];

/// The pattern reported for a regular file with more than one name: one of its other names may
/// be protected (`ln .roo/mcp.json src/x`), and nothing finds a file's other names short of
/// walking every folder, so it is protected whatever its name.
pub const HARD_LINK_PROTECTION: &str = "(a hard link: another name of this file may be protected)";

/// Config folders are protected at any depth too (the original only protects them at the root).
const NESTED_CONFIG_PATTERNS: [&str; 3] = ["**/.zoo/**", "**/.roo/**", "**/.vscode/**"];

/// Write protection for configuration files.
#[derive(Debug)]
pub struct ProtectRules {
    /// Patterns in the order they are reported: the flavor's built-in list, then configured
    /// extras.
    pub patterns: Vec<String>,
    rules: RuleSet,
    flavor: Flavor,
}

impl ProtectRules {
    /// Built-in patterns plus `extra` ones from settings.
    pub fn new(extra: &[String], flavor: Flavor) -> ProtectRules {
        let extra: Vec<String> = extra
            .iter()
            .filter(|p| !p.trim().is_empty())
            .cloned()
            .collect();
        let reported = PROTECTED_PATTERNS
            .iter()
            .filter(|p| flavor == Flavor::Zoo || !ZOO_ONLY_PATTERNS.contains(p));
        let mut patterns: Vec<String> = reported.map(|p| (*p).to_owned()).collect();
        patterns.extend(extra.iter().cloned());
        // Nested patterns first: on a tie the later, more familiar pattern is the one reported.
        let mut content = NESTED_CONFIG_PATTERNS.join("\n");
        content.push('\n');
        content.push_str(&PROTECTED_PATTERNS.join("\n"));
        content.push('\n');
        content.push_str(&extra.join("\n"));
        ProtectRules {
            rules: RuleSet::new(None, &content, &[]),
            patterns,
            flavor,
        }
    }

    /// The protecting pattern of a relative posix path, if any.
    pub fn matched(&self, relative: &str) -> Option<RuleOrigin> {
        self.rules.matched(relative).map(|mut origin| {
            origin.line = None;
            origin
        })
    }

    /// The agent whose wording the texts use (and whose ignore files are read).
    pub fn flavor(&self) -> Flavor {
        self.flavor
    }

    /// Why the patterns cannot be compiled, if so; every path is then protected.
    pub fn compile_error(&self) -> Option<&str> {
        self.rules.compile_error.as_deref()
    }

    /// The original's `getInstructions()` text (no trailing newline).
    pub fn instructions(&self) -> String {
        let who = match self.flavor {
            Flavor::Roo => "Roo",
            Flavor::Zoo => "Zoo and Roo",
        };
        format!(
            "# Protected Files\n\n(The following {who} configuration file patterns are write-protected and always require approval for modifications, regardless of autoapproval settings. When using list_files, you'll notice a {SHIELD_SYMBOL} next to files that are write-protected.)\n\nProtected patterns: {}",
            self.patterns.join(", ")
        )
    }

    /// The original's protection message.
    pub fn message(&self) -> &'static str {
        match self.flavor {
            Flavor::Roo => {
                "This is a Roo configuration file and requires approval for modifications"
            }
            Flavor::Zoo => {
                "This is a Zoo or Roo configuration file and requires approval for modifications"
            }
        }
    }
}

/// Everything the rules need to know about one workspace folder.
#[derive(Debug, Clone)]
pub struct FolderPolicy {
    /// The folder, lexical and canonical.
    pub root: WorkspaceRoot,
    /// The active ignore file, if any.
    pub ignore: Option<Arc<IgnoreFile>>,
}

/// The rules of a whole (possibly multi-root) workspace.
#[derive(Debug, Clone)]
pub struct Policy {
    /// Workspace folders; relative paths resolve against the first.
    pub folders: Vec<FolderPolicy>,
    /// Write protection, shared by all folders.
    pub protect: Arc<ProtectRules>,
    /// Block every path whose lexical and canonical forms both lie outside all folders.
    pub deny_outside_workspace: bool,
}

/// Which form of a path a rule matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum PathForm {
    /// The path as requested, lexically normalised.
    Lexical,
    /// The path with every symlink resolved.
    Canonical,
}

/// Why a path may not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum BlockReason {
    /// A pattern of an ignore file (or an implicit one) matched.
    #[serde(rename_all = "camelCase")]
    IgnoreRule {
        /// The workspace folder whose rules matched.
        folder: String,
        /// The rule.
        #[serde(flatten)]
        origin: RuleOrigin,
        /// The relative path that matched.
        matched_path: String,
        /// Whether the requested or the resolved form matched.
        via: PathForm,
    },
    /// The path lies outside every workspace folder and the settings deny that.
    OutsideWorkspace,
}

/// The answer to "may the agent read this path?".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessDecision {
    /// `None` when allowed.
    pub blocked: Option<BlockReason>,
    /// The folder the path belongs to (lexically, else canonically), if any.
    pub folder: Option<usize>,
}

impl AccessDecision {
    /// Whether the path may be read.
    pub fn allowed(&self) -> bool {
        self.blocked.is_none()
    }
}

/// The answer to "does writing this path need approval?".
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProtectionDecision {
    /// The protecting pattern, `None` when not protected.
    pub pattern: Option<String>,
    /// Which form matched.
    pub via: Option<PathForm>,
}

impl Policy {
    /// The folder relative inputs resolve against.
    pub fn base(&self) -> &Path {
        self.folders
            .first()
            .map(|f| f.root.lexical.as_path())
            .unwrap_or(Path::new("/"))
    }

    /// Whether `absolute` lies inside a workspace folder (either form of its root), by its
    /// spelling alone: nothing is read.
    pub fn spelled_inside_folder(&self, absolute: &Path) -> bool {
        self.folders.iter().any(|f| f.root.contains(absolute))
    }

    /// Decides read access for `requested` (relative to `base`, or to the first folder).
    pub fn check_access(
        &self,
        resolver: &Resolver,
        fs: &dyn FileSystem,
        base: Option<&Path>,
        requested: &str,
    ) -> AccessDecision {
        let resolved = resolver.resolve(base.unwrap_or(self.base()), requested, fs);
        // Without a symlink on the way both forms are equal: judge it once.
        let forms = [
            (PathForm::Lexical, &resolved.lexical),
            (PathForm::Canonical, &resolved.canonical),
        ];
        let forms = if resolved.lexical == resolved.canonical {
            &forms[..1]
        } else {
            &forms[..]
        };
        let mut folder_of_path = None;
        for (index, folder) in self.folders.iter().enumerate() {
            for &(form, absolute) in forms {
                let Some(relative) = folder.root.relative(absolute) else {
                    continue;
                };
                folder_of_path.get_or_insert(index);
                let Some(ignore) = &folder.ignore else {
                    continue;
                };
                if let Some(origin) = ignore.matched(&relative) {
                    return AccessDecision {
                        blocked: Some(BlockReason::IgnoreRule {
                            folder: folder.root.lexical.to_string_lossy().into_owned(),
                            origin,
                            matched_path: relative,
                            via: form,
                        }),
                        folder: Some(index),
                    };
                }
            }
        }
        // Where the bytes really are decides "outside": a link inside the workspace that points
        // outside it is outside.
        let blocked = (self.deny_outside_workspace
            && !self
                .folders
                .iter()
                .any(|f| f.root.contains(&resolved.canonical)))
        .then_some(BlockReason::OutsideWorkspace);
        AccessDecision {
            blocked,
            folder: folder_of_path,
        }
    }

    /// Judges what the read gate opened: its real path ([`Policy::allows_real_path`]) and its
    /// other names. A file with more than one hard link is refused while any folder has an
    /// ignore file: its other names cannot be found (no reverse lookup short of walking every
    /// folder), and one of them may be blocked (`ln secrets/key.pem src/notes.txt`). Without
    /// an ignore file nothing is blocked, so nothing can be exposed and nothing is refused.
    pub fn allows_opened(&self, opened: &crate::fs::OpenedObject<'_>) -> bool {
        self.allows_real_path(opened.real_path) && self.allows_links(opened.links)
    }

    /// Whether the access rule blocks nothing at all: no folder has ignore rules (from disk or
    /// from the host) and paths outside the workspace are not denied. Then no read can expose a
    /// blocked file, so what a command might read does not matter.
    pub fn blocks_nothing(&self) -> bool {
        !self.deny_outside_workspace && self.folders.iter().all(|f| f.ignore.is_none())
    }

    /// The hard-link half of [`Policy::allows_opened`]: one name, or no ignore file anywhere.
    pub fn allows_links(&self, links: u64) -> bool {
        links <= 1 || self.folders.iter().all(|f| f.ignore.is_none())
    }

    /// Judges a real path (every link already resolved: what the read gate opened). The
    /// second half of the access rule, applied to the object rather than to a name.
    pub fn allows_real_path(&self, real: &Path) -> bool {
        !self.real_path_blocked_by_rules(real)
            && (!self.deny_outside_workspace || self.folders.iter().any(|f| f.root.contains(real)))
    }

    /// Whether a folder's ignore rules block a real path (the outside rule left aside).
    pub fn real_path_blocked_by_rules(&self, real: &Path) -> bool {
        self.folders.iter().any(|folder| {
            folder.ignore.as_ref().is_some_and(|ignore| {
                folder
                    .root
                    .relative(real)
                    .is_some_and(|relative| ignore.matched(&relative).is_some())
            })
        })
    }

    /// The instructions of folder `index`'s ignore files, each file's text withheld when its
    /// bytes may be bytes the rules block ([`Policy::ignore_text_withheld`]); `None` without one.
    pub fn ignore_instructions(&self, index: usize) -> Option<String> {
        let folder = self.folders.get(index)?;
        let ignore = folder.ignore.as_ref()?;
        let blocks: Vec<String> = ignore
            .files()
            .map(|file| match self.file_text_withheld(folder, file) {
                Some(_) => file.instructions_with(WITHHELD_IGNORE_TEXT),
                None => file.instructions_with(&file.content),
            })
            .collect();
        Some(blocks.join("\n\n"))
    }

    /// Why the text of one of folder `index`'s ignore files must not be shown, if so. The
    /// original sends the text whatever the file is; here a `.rooignore` that is a link (or one
    /// name of a hard-linked file) must not disclose bytes the rules block: its real target is
    /// judged like any read. The target's own name being `.rooignore` or `.zooignore` (blocked
    /// by the implicit rule everywhere) does not count: a link to another folder's ignore file
    /// is a plain setup; that folder's rules still count (its contents judged by a probe name).
    pub fn ignore_text_withheld(&self, index: usize) -> Option<String> {
        let folder = self.folders.get(index)?;
        folder
            .ignore
            .as_ref()?
            .files()
            .find_map(|file| self.file_text_withheld(folder, file))
    }

    fn file_text_withheld(&self, folder: &FolderPolicy, file: &IgnoreFile) -> Option<String> {
        let source = file.source.as_ref()?;
        if source.links > 1 {
            return Some(format!(
                "{} has {} hard links, and another name may be a blocked path",
                file.name, source.links
            ));
        }
        let real = &source.real_path;
        let own = [&folder.root.lexical, &folder.root.canonical]
            .iter()
            .any(|root| *real == root.join(&file.name));
        if own {
            return None;
        }
        let implicit = |origin: &RuleOrigin| {
            origin.file.is_none()
                && (origin.pattern == ROO_IGNORE_FILE || origin.pattern == ZOO_IGNORE_FILE)
        };
        let mut inside = false;
        for other in &self.folders {
            let Some(relative) = other.root.relative(real) else {
                continue;
            };
            inside = true;
            let Some(rules) = other.ignore.as_deref() else {
                continue;
            };
            let verdict = match rules.matched(&relative) {
                Some(origin) if implicit(&origin) => {
                    let parent = relative.rsplit_once('/').map_or("", |(parent, _)| parent);
                    let probe = if parent.is_empty() {
                        None
                    } else {
                        rules.matched(&format!("{parent}/roo-context-probe"))
                    };
                    probe.filter(|origin| !implicit(origin))
                }
                verdict => verdict,
            };
            if let Some(origin) = verdict {
                return Some(format!(
                    "{} is a link to {} in {}, which the rule `{}` blocks",
                    file.name,
                    relative,
                    other.root.lexical.display(),
                    origin.pattern
                ));
            }
        }
        if !inside && self.deny_outside_workspace {
            return Some(format!(
                "{} is a link to a file outside the workspace, which the settings deny",
                file.name
            ));
        }
        None
    }

    /// Decides read access for many paths, in order, using every core for large batches.
    pub fn check_access_many(
        &self,
        resolver: &Resolver,
        fs: &dyn FileSystem,
        base: Option<&Path>,
        requested: &[String],
    ) -> Vec<AccessDecision> {
        const PER_THREAD_MINIMUM: usize = 512;
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(requested.len() / PER_THREAD_MINIMUM)
            .max(1);
        // A cancelled request stops early; its (shorter) answer is never sent.
        if threads == 1 {
            return requested
                .iter()
                .take_while(|_| !crate::cancel::cancelled())
                .map(|p| self.check_access(resolver, fs, base, p))
                .collect();
        }
        let chunk = requested.len().div_ceil(threads);
        let flag = crate::cancel::current_flag();
        std::thread::scope(|scope| {
            let workers: Vec<_> = requested
                .chunks(chunk)
                .map(|paths| {
                    let flag = flag.clone();
                    scope.spawn(move || {
                        crate::cancel::with_flag(flag, || {
                            paths
                                .iter()
                                .take_while(|_| !crate::cancel::cancelled())
                                .map(|p| self.check_access(resolver, fs, base, p))
                                .collect::<Vec<_>>()
                        })
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("access worker panicked"))
                .collect()
        })
    }

    /// Decides write protection for `requested`. Paths outside every folder are not protected.
    pub fn check_protection(
        &self,
        resolver: &Resolver,
        fs: &dyn FileSystem,
        base: Option<&Path>,
        requested: &str,
    ) -> ProtectionDecision {
        let resolved = resolver.resolve(base.unwrap_or(self.base()), requested, fs);
        for folder in &self.folders {
            for (form, absolute) in [
                (PathForm::Lexical, &resolved.lexical),
                (PathForm::Canonical, &resolved.canonical),
            ] {
                let Some(relative) = folder.root.relative(absolute) else {
                    continue;
                };
                if let Some(origin) = self.protect.matched(&relative) {
                    return ProtectionDecision {
                        pattern: Some(origin.pattern),
                        via: Some(form),
                    };
                }
            }
        }
        // Protection judges the file, not only the name: a second name of a protected file
        // writes the protected file.
        if fs
            .hard_links(&resolved.canonical)
            .is_some_and(|links| links > 1)
        {
            return ProtectionDecision {
                pattern: Some(HARD_LINK_PROTECTION.to_owned()),
                via: Some(PathForm::Canonical),
            };
        }
        ProtectionDecision {
            pattern: None,
            via: None,
        }
    }
}
