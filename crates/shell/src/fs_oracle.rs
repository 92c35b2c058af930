//! The oracle over a real folder: glob expansion and recursive walks against the file system,
//! bounded per command (not per word), with the access rule supplied by the caller.

use std::cell::Cell;
use std::path::{Component, Path, PathBuf};

use roo_context_core::path::normalize_lexically;

use crate::{Construct, Judgement, Oracle};

/// Most directory entries all glob expansions and recursive walks of one command may visit.
pub const VISIT_BUDGET: usize = 50_000;
/// Most glob words one command may expand.
pub const GLOB_WORD_BUDGET: usize = 256;

/// A name no one uses: when `folder/<probe>` is blocked, everything in the folder is.
const PROBE: &str = ".roo-context-probe-\u{2400}";

/// Judges operands against the folder `base` on disk; `blocked` is the access rule (it gets a
/// path relative to `base`, or an absolute one). One oracle per command: the budgets are its own.
pub struct FsOracle<'a> {
    base: PathBuf,
    blocked: &'a dyn Fn(&str) -> bool,
    protected: Option<&'a dyn Fn(&str) -> bool>,
    visits: Cell<usize>,
    globs: Cell<usize>,
    home: Option<String>,
    refuse_hard_links: bool,
}

impl std::fmt::Debug for FsOracle<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FsOracle")
            .field("base", &self.base)
            .finish()
    }
}

enum Walked {
    Done,
    Limit,
    Invalid,
}

impl<'a> FsOracle<'a> {
    /// An oracle for commands starting in `base`.
    pub fn new(base: &Path, blocked: &'a dyn Fn(&str) -> bool) -> Self {
        FsOracle {
            base: base.to_path_buf(),
            blocked,
            protected: None,
            visits: Cell::new(0),
            globs: Cell::new(0),
            home: std::env::var("HOME").ok().filter(|h| !h.is_empty()),
            refuse_hard_links: true,
        }
    }

    /// Whether a file with more than one name is undecidable (the default): the server says
    /// `false` only when no folder has an ignore file, as the read gate does
    /// (`Policy::allows_links`).
    pub fn with_hard_link_rule(mut self, refuse: bool) -> Self {
        self.refuse_hard_links = refuse;
        self
    }

    /// Sets the home folder `~` stands for (`None`: `~` is undecidable).
    pub fn with_home(mut self, home: Option<String>) -> Self {
        self.home = home;
        self
    }

    /// Sets the write-protection rule (same paths as `blocked`), so a command that links a
    /// protected file is not allowed.
    pub fn with_protection(mut self, protected: &'a dyn Fn(&str) -> bool) -> Self {
        self.protected = Some(protected);
        self
    }

    fn absolute(&self, path: &str) -> PathBuf {
        normalize_lexically(&self.base, path)
    }

    /// `path` as the kernel resolves it when a link comes before a `..`: the links before each
    /// `..` are followed first (`u/../../x` with `u` a link to `src/util` is `x`), where the
    /// lexical reading drops `u/..`. `None` when the two agree.
    fn physical(&self, path: &str) -> Option<String> {
        if !path.split(['/', '\\']).any(|c| c == "..") {
            return None;
        }
        let mut resolved = PathBuf::new();
        for component in self.base.join(path).components() {
            match component {
                Component::ParentDir => {
                    if let Ok(real) = std::fs::canonicalize(&resolved) {
                        resolved = real;
                    }
                    resolved.pop();
                }
                Component::CurDir => {}
                other => resolved.push(other),
            }
        }
        (resolved != self.absolute(path)).then(|| resolved.to_string_lossy().into_owned())
    }

    /// The path and, when a link before a `..` leads elsewhere, where the kernel goes: a read
    /// is blocked when either is.
    fn blocked_reading(&self, path: &str) -> Option<String> {
        if (self.blocked)(path) {
            return Some(path.to_owned());
        }
        self.physical(path).filter(|real| (self.blocked)(real))
    }

    fn spend(&self) -> bool {
        let used = self.visits.get() + 1;
        self.visits.set(used);
        used <= VISIT_BUDGET
    }

    /// Calls `each` with every path `pattern` expands to, until it returns `false`.
    fn expand(&self, pattern: &str, each: &mut dyn FnMut(&str) -> bool) -> Walked {
        let globs = self.globs.get() + 1;
        self.globs.set(globs);
        if globs > GLOB_WORD_BUDGET {
            return Walked::Limit;
        }
        // Where the kernel goes when a link comes before a `..` (`u/../../config/*`).
        let absolute = self
            .physical(pattern)
            .map_or_else(|| self.absolute(pattern), PathBuf::from);
        let text = absolute.to_string_lossy();
        let Ok(glob) = globset::GlobBuilder::new(&text)
            .literal_separator(true)
            .build()
            .map(|g| g.compile_matcher())
        else {
            // Not a glob the matcher understands: the shell may still expand it.
            return Walked::Invalid;
        };
        // Walk from the longest folder prefix without glob characters.
        let mut start = PathBuf::from("/");
        let mut depth = 0usize;
        let mut recursive = false;
        let mut in_prefix = true;
        for component in absolute.components().skip(1) {
            let name = component.as_os_str().to_string_lossy();
            if in_prefix && !name.contains(['*', '?', '[', '{']) {
                start.push(component);
            } else {
                in_prefix = false;
                depth += 1;
                recursive |= name.contains("**");
            }
        }
        let mut walker = ignore::WalkBuilder::new(&start);
        // Through symlinked folders too: the shell's globs follow them (`link*/key.json`).
        walker.standard_filters(false).follow_links(true);
        if !recursive {
            walker.max_depth(Some(depth));
        }
        for entry in walker.build() {
            if !self.spend() {
                return Walked::Limit;
            }
            let Ok(entry) = entry else { continue };
            if glob.is_match(entry.path()) && !each(&entry.path().to_string_lossy()) {
                return Walked::Done;
            }
        }
        Walked::Done
    }

    /// Walks a folder for its first blocked entry; a regular file with more than one name
    /// inside makes the walk's answer unknown (found only when nothing inside is blocked).
    fn first_blocked_inside(&self, folder: &Path) -> Result<Option<String>, Construct> {
        let mut walker = ignore::WalkBuilder::new(folder);
        walker.standard_filters(false).follow_links(false);
        let mut linked = false;
        for entry in walker.build() {
            if !self.spend() {
                return Err(Construct::Limit);
            }
            let Ok(entry) = entry else { continue };
            let path = entry.path().to_string_lossy();
            if entry.depth() > 0 && (self.blocked)(&path) {
                return Ok(Some(path.into_owned()));
            }
            linked |= self.refuse_hard_links
                && entry.file_type().is_some_and(|t| t.is_file())
                && entry.metadata().is_ok_and(|m| links(&m) > 1);
        }
        if linked {
            return Err(Construct::HardLink);
        }
        Ok(None)
    }
}

impl Oracle for FsOracle<'_> {
    fn path(&self, path: &str, glob: bool) -> Judgement {
        if let Some(hit) = self.blocked_reading(path) {
            return Judgement::Blocked(hit);
        }
        if !glob {
            return Judgement::Clear;
        }
        if glob_before_parent(path) {
            // `u*/../../x`: the matches of the glob decide where `..` leads; the expansion
            // here is lexical and would drop the glob.
            return Judgement::Unknown(Construct::Unparsed);
        }
        let mut hit = None;
        let mut linked = false;
        match self.expand(path, &mut |m| {
            if (self.blocked)(m) {
                hit = Some(m.to_owned());
                false
            } else {
                linked |= self.hard_linked(m);
                true
            }
        }) {
            _ if hit.is_some() => Judgement::Blocked(hit.unwrap_or_default()),
            Walked::Limit => Judgement::Unknown(Construct::Limit),
            Walked::Invalid => Judgement::Unknown(Construct::Unparsed),
            Walked::Done if linked => Judgement::Unknown(Construct::HardLink),
            Walked::Done => Judgement::Clear,
        }
    }

    fn tree(&self, path: &str, glob: bool) -> Judgement {
        if glob {
            let mut matches = Vec::new();
            match self.expand(path, &mut |m| {
                matches.push(m.to_owned());
                true
            }) {
                Walked::Done => {}
                Walked::Limit => return Judgement::Unknown(Construct::Limit),
                Walked::Invalid => return Judgement::Unknown(Construct::Unparsed),
            }
            let mut unknown = None;
            for m in matches {
                match self.tree(&m, false) {
                    Judgement::Clear => {}
                    Judgement::Blocked(p) => return Judgement::Blocked(p),
                    Judgement::Unknown(c) => unknown = unknown.or(Some(c)),
                }
            }
            return unknown.map_or(Judgement::Clear, Judgement::Unknown);
        }
        if glob_before_parent(path) {
            return Judgement::Unknown(Construct::Unparsed);
        }
        if let Some(hit) = self.blocked_reading(path) {
            return Judgement::Blocked(hit);
        }
        let folder = self
            .physical(path)
            .map_or_else(|| self.absolute(path), PathBuf::from);
        if !folder.is_dir() {
            return Judgement::Clear;
        }
        match self.first_blocked_inside(&folder) {
            Err(construct) => Judgement::Unknown(construct),
            Ok(None) => Judgement::Clear,
            Ok(Some(inside)) => {
                let probe = folder.join(PROBE);
                if (self.blocked)(&probe.to_string_lossy()) {
                    Judgement::Blocked(inside)
                } else {
                    Judgement::Unknown(Construct::RecursiveRead)
                }
            }
        }
    }

    fn existing_blocked(&self, path: &str) -> bool {
        if let Some(real) = self.physical(path)
            && std::fs::symlink_metadata(&real).is_ok()
            && (self.blocked)(&real)
        {
            return true;
        }
        let absolute = self.absolute(path);
        match std::fs::metadata(&absolute) {
            // A folder whose contents are all blocked counts as blocked (`frobnicate secrets`).
            Ok(meta) if meta.is_dir() => {
                (self.blocked)(path) || (self.blocked)(&absolute.join(PROBE).to_string_lossy())
            }
            Ok(_) => (self.blocked)(path),
            Err(_) => std::fs::symlink_metadata(&absolute).is_ok() && (self.blocked)(path),
        }
    }

    fn home(&self) -> Option<String> {
        self.home.clone()
    }

    fn exists(&self, path: &str) -> bool {
        std::fs::symlink_metadata(self.absolute(path)).is_ok()
    }

    fn protected(&self, path: &str) -> bool {
        self.protected.is_some_and(|protected| protected(path))
    }

    fn git_runs_workspace_code(&self, dir: &str, subcommand: &str) -> bool {
        let hooks = !crate::programs::GIT_RUNS_NO_HOOK.contains(&subcommand);
        let alias = format!("alias.{}", subcommand.to_ascii_lowercase());
        let start = self.absolute(dir);
        let Some(git_dir) = start.ancestors().find_map(git_dir_of) else {
            return false;
        };
        let Ok(git_dir) = git_dir else {
            return true; // a `.git` that cannot be read: fail closed
        };
        // A linked worktree's hooks and config are the main repository's.
        let common = match std::fs::read_to_string(git_dir.join("commondir")) {
            Ok(text) => git_dir.join(text.trim()),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => git_dir.clone(),
            Err(_) => return true,
        };
        // The user's and the system's settings are not read: they commonly hold helpers and
        // editors the user chose, and a line that writes them is judged where it does
        // (`loads_as_configuration`); the agent's file tools cannot write outside the
        // workspace without asking.
        for config in [git_dir.join("config.worktree"), common.join("config")] {
            match std::fs::read(&config) {
                Ok(bytes) => {
                    let text = String::from_utf8_lossy(&bytes);
                    if git_config_keys(&text).any(|key| {
                        key == alias
                            || crate::programs::git_setting_runs_commands(&key)
                                && (hooks || key != "core.hookspath")
                                && !key.starts_with("alias.")
                    }) {
                        return true;
                    }
                }
                Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
                Err(_) => return true,
            }
        }
        if !hooks {
            return false;
        }
        match std::fs::read_dir(common.join("hooks")) {
            Ok(entries) => entries.into_iter().any(|entry| {
                entry.map_or(true, |entry| {
                    !entry.file_name().to_string_lossy().ends_with(".sample")
                })
            }),
            Err(error) => error.kind() != std::io::ErrorKind::NotFound,
        }
    }

    fn hard_linked(&self, path: &str) -> bool {
        self.refuse_hard_links
            && std::fs::metadata(self.absolute(path)).is_ok_and(|m| m.is_file() && links(&m) > 1)
    }
}

/// Whether a glob component comes before a `..` (`u*/../x`).
fn glob_before_parent(path: &str) -> bool {
    let mut glob = false;
    for component in path.split(['/', '\\']) {
        if component == ".." && glob {
            return true;
        }
        glob |= component.contains(['*', '?', '[']);
    }
    false
}

/// The git folder of a repository whose work tree is `folder`: `folder/.git` itself, or the
/// folder a `.git` file names (`gitdir: …`, a linked worktree or a submodule); `Some(Err)` when a
/// `.git` is there but cannot be read.
fn git_dir_of(folder: &Path) -> Option<Result<PathBuf, ()>> {
    let dot_git = folder.join(".git");
    let metadata = std::fs::symlink_metadata(&dot_git).ok()?;
    if metadata.is_dir() {
        return Some(Ok(dot_git));
    }
    let Ok(text) = std::fs::read_to_string(&dot_git) else {
        return Some(Err(()));
    };
    match text.trim().strip_prefix("gitdir:") {
        Some(target) => Some(Ok(folder.join(target.trim()))),
        None => Some(Err(())),
    }
}

/// The keys of a git config file, lowercased as `section.key` or `section.subsection.key`
/// (the subsection keeps its case in git; lowercasing it only widens the match).
fn git_config_keys(text: &str) -> impl Iterator<Item = String> + '_ {
    let mut section = String::new();
    text.lines().filter_map(move |line| {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            let header = header.split(']').next().unwrap_or("");
            section = match header.split_once(char::is_whitespace) {
                Some((name, sub)) => format!("{}.{}", name, sub.trim().trim_matches('"')),
                None => header.to_owned(),
            }
            .to_ascii_lowercase();
            return None;
        }
        if line.is_empty() || line.starts_with(['#', ';']) {
            return None;
        }
        let key = line
            .split(['=', ' ', '\t'])
            .next()
            .unwrap_or("")
            .to_ascii_lowercase();
        Some(format!("{section}.{key}"))
    })
}

#[cfg(unix)]
fn links(metadata: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    metadata.nlink()
}

#[cfg(not(unix))]
fn links(_: &std::fs::Metadata) -> u64 {
    1
}
