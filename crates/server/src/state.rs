//! The workspace state the server owns: folders, their active ignore files (with the last reload
//! error), settings, and the compiled [`Policy`] every request reads. Mutations happen
//! synchronously under one lock, so they apply in the order handlers run.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use roo_context_core::access::{
    Flavor, FolderPolicy, IgnoreFile, Policy, ProtectRules, ROO_IGNORE_FILE, ZOO_IGNORE_FILE,
    ignore_files_in_force,
};
use roo_context_core::fs::OsFs;
use roo_context_core::path::{Resolver, WorkspaceRoot};
use roo_context_protocol::workspace::{
    FolderStatus, IgnoreDidReloadParams, Settings, WorkspaceStatusResult,
};

struct Folder {
    given: PathBuf,
    root: WorkspaceRoot,
    ignore: Option<Arc<IgnoreFile>>,
    last_error: Option<String>,
    /// The ignore files as the host has them (`roo/ignore/setRules`): while set, the disk's are
    /// not read.
    host: Option<HostIgnore>,
}

/// The ignore files a host provided for a folder, by name (`None`: the host has no such file).
#[derive(Debug, Clone, Default)]
struct HostIgnore {
    roo: Option<String>,
    zoo: Option<String>,
}

/// The ignore files in force among the host's, judged as files on disk would be.
fn load_host_ignore(host: &HostIgnore, flavor: Flavor) -> Result<Option<IgnoreFile>, Unusable> {
    let names = ignore_files_in_force(flavor, host.zoo.is_some(), host.roo.is_some());
    combine(names.into_iter().map(|name| {
        let content = if name == ZOO_IGNORE_FILE {
            &host.zoo
        } else {
            &host.roo
        };
        let file = IgnoreFile::from_bytes(name, content.as_deref().unwrap_or("").as_bytes());
        match file.unusable_reason() {
            Some(reason) => Err(Unusable {
                name,
                message: format!("cannot use the host's {name}: {reason}"),
            }),
            None => Ok(file),
        }
    }))
}

/// The files in force as one (the first names the rules), or the first that cannot be used:
/// one unusable file makes the folder's rules unusable, whatever the other file says.
fn combine(
    files: impl Iterator<Item = Result<IgnoreFile, Unusable>>,
) -> Result<Option<IgnoreFile>, Unusable> {
    let mut combined: Option<IgnoreFile> = None;
    for file in files {
        let file = file?;
        combined = Some(match combined {
            None => file,
            Some(first) => first.with_also(file),
        });
    }
    Ok(combined)
}

/// A folder's ignore files: the host's when it provided them, else the disk's.
fn load_folder_ignore(
    host: Option<&HostIgnore>,
    root: &Path,
    flavor: Flavor,
) -> Result<Option<IgnoreFile>, Unusable> {
    match host {
        Some(host) => load_host_ignore(host, flavor),
        None => load_ignore_files(root, flavor),
    }
}

/// What write protection is compiled from: the extra patterns and the wording.
type ProtectInputs = (Vec<String>, Flavor);

/// An ignore file that exists but cannot be used: its name and why.
struct Unusable {
    name: &'static str,
    message: String,
}

impl Folder {
    fn blocks_everything(&self) -> bool {
        self.ignore
            .as_ref()
            .is_some_and(|i| i.unusable_reason().is_some())
    }
}

struct Workspace {
    folders: Vec<Folder>,
    settings: Settings,
    policy: Arc<Policy>,
    // The last protection that compiled, and why the configured one did not.
    protect: Option<Arc<ProtectRules>>,
    protection_error: Option<String>,
    // The configured protection and the settings it was compiled from.
    protect_compiled: Option<(ProtectInputs, Arc<ProtectRules>)>,
}

/// Shared, thread-safe server state.
pub struct SharedState {
    workspace: RwLock<Workspace>,
    /// Canonical-folder cache, cleared by the watcher when folders or links change.
    pub resolver: Resolver,
    /// The real file system.
    pub fs: OsFs,
}

/// The largest ignore file read; a bigger one cannot be used (and so blocks everything).
const MAX_IGNORE_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Reads the ignore files in force in `root` ([`ignore_files_in_force`]): `Ok(None)` when there
/// are none, `Err` (the folder then blocks everything) when one exists but cannot be used. A
/// link counts as present even when dangling: an ignore file that cannot be read never allows.
fn load_ignore_files(root: &Path, flavor: Flavor) -> Result<Option<IgnoreFile>, Unusable> {
    let present = |name: &str| std::fs::symlink_metadata(root.join(name)).is_ok();
    let names = ignore_files_in_force(flavor, present(ZOO_IGNORE_FILE), present(ROO_IGNORE_FILE));
    combine(names.into_iter().map(|name| load_ignore_file(root, name)))
}

/// Reads one ignore file of `root`, which exists (maybe as a dangling link).
fn load_ignore_file(root: &Path, name: &'static str) -> Result<IgnoreFile, Unusable> {
    let path = root.join(name);
    let unusable = |why: String| {
        Err(Unusable {
            name,
            message: format!("cannot use {}: {why}", path.display()),
        })
    };
    // Checked before opening: opening a FIFO would wait for a writer.
    match std::fs::metadata(&path) {
        Ok(meta) if !meta.is_file() => return unusable("not a regular file".to_owned()),
        Ok(meta) if meta.len() > MAX_IGNORE_FILE_BYTES => {
            return unusable(format!(
                "{} bytes is more than the {MAX_IGNORE_FILE_BYTES}-byte limit",
                meta.len()
            ));
        }
        Ok(_) => {}
        Err(error) => return unusable(error.to_string()),
    }
    // Read through the gate's opener: a swap for a FIFO after the check above is an error,
    // never a reload that waits for a writer for ever.
    let read = roo_context_core::fs::read_regular_file_opened(
        &roo_context_core::fs::OsFs,
        &path,
        MAX_IGNORE_FILE_BYTES,
    );
    match read {
        Err(error) => unusable(error.to_string()),
        Ok((bytes, real_path, links)) => {
            let mut file = IgnoreFile::from_bytes(name, &bytes);
            // What the bytes are, for `roo/ignore/instructions`: a link into a blocked folder
            // must not show them.
            file.source = Some(roo_context_core::access::IgnoreSource { real_path, links });
            // Lines skipped, decoded lossily or read with their trailing whitespace trimmed:
            // the host sees them in `ruleDiagnostics` of `roo/workspace/status`.
            for diagnostic in &file.rules.diagnostics {
                tracing::warn!(file = %path.display(), line = diagnostic.line, "{}", diagnostic.message);
            }
            match file.unusable_reason() {
                Some(reason) => unusable(reason.to_owned()),
                None => Ok(file),
            }
        }
    }
}

/// Applies a load outcome to a folder: a failure keeps the last usable rules, and blocks
/// everything when there are none (at start-up, or when the folder had no ignore file).
fn apply_load(
    previous: Option<Arc<IgnoreFile>>,
    loaded: Result<Option<IgnoreFile>, Unusable>,
) -> (Option<Arc<IgnoreFile>>, Option<String>) {
    match loaded {
        Ok(file) => (file.map(Arc::new), None),
        Err(Unusable { name, message }) => {
            let error = message.clone();
            let keep = previous.filter(|p| p.unusable_reason().is_none());
            if keep.is_some() {
                tracing::warn!(%error, "ignore file unusable; keeping the last good rules");
            } else {
                tracing::warn!(%error, "ignore file unusable; blocking the whole folder");
            }
            let blocking = || Arc::new(IgnoreFile::unusable(name, message));
            (keep.or_else(|| Some(blocking())), Some(error))
        }
    }
}

fn flavor(settings: &Settings) -> Flavor {
    match settings.flavor {
        Some(roo_context_protocol::workspace::Flavor::Zoo) => Flavor::Zoo,
        _ => Flavor::Roo,
    }
}

fn merge(settings: &mut Settings, update: Settings) {
    if update.log_level.is_some() {
        settings.log_level = update.log_level;
    }
    if update.deny_outside_workspace.is_some() {
        settings.deny_outside_workspace = update.deny_outside_workspace;
    }
    if update.extra_protected_patterns.is_some() {
        settings.extra_protected_patterns = update.extra_protected_patterns;
    }
    if update.flavor.is_some() {
        settings.flavor = update.flavor;
    }
    if update.warm_tokenizer.is_some() {
        settings.warm_tokenizer = update.warm_tokenizer;
    }
    if update.prefix_reuse_condense.is_some() {
        settings.prefix_reuse_condense = update.prefix_reuse_condense;
    }
}

impl Workspace {
    fn rebuild(&mut self) {
        let settings = &self.settings;
        let inputs = (
            settings
                .extra_protected_patterns
                .clone()
                .unwrap_or_default(),
            flavor(settings),
        );
        // Compiling is the costly part of a rebuild; ignore reloads do not change protection.
        let configured = match &self.protect_compiled {
            Some((compiled_from, compiled)) if *compiled_from == inputs => compiled.clone(),
            _ => {
                let compiled = Arc::new(ProtectRules::new(&inputs.0, inputs.1));
                self.protect_compiled = Some((inputs, compiled.clone()));
                compiled
            }
        };
        // Patterns that cannot be compiled keep the last good protection; with none (start-up)
        // the failed set itself is used, and it protects every path.
        self.protection_error = configured
            .compile_error()
            .map(|e| format!("extraProtectedPatterns: {e}"));
        let protect = match (&self.protection_error, &self.protect) {
            (Some(error), Some(last_good)) => {
                tracing::warn!(%error, "keeping the last good write protection");
                last_good.clone()
            }
            (Some(error), None) => {
                tracing::warn!(%error, "write protection cannot be compiled; protecting every path");
                configured
            }
            (None, _) => {
                self.protect = Some(configured.clone());
                configured
            }
        };
        self.policy = Arc::new(Policy {
            folders: self
                .folders
                .iter()
                .map(|f| FolderPolicy {
                    root: f.root.clone(),
                    ignore: f.ignore.clone(),
                })
                .collect(),
            protect,
            deny_outside_workspace: settings.deny_outside_workspace.unwrap_or(false),
        });
    }
}

impl SharedState {
    /// State for `folders` with `settings`; ignore files are read now.
    pub fn new(folders: &[PathBuf], settings: Settings) -> SharedState {
        let state = SharedState {
            workspace: RwLock::new(Workspace {
                folders: Vec::new(),
                settings,
                policy: Arc::new(Policy {
                    folders: Vec::new(),
                    protect: Arc::new(ProtectRules::new(&[], Flavor::Roo)),
                    deny_outside_workspace: false,
                }),
                protect: None,
                protection_error: None,
                protect_compiled: None,
            }),
            resolver: Resolver::default(),
            fs: OsFs,
        };
        state.set_folders(folders);
        state
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Workspace> {
        self.workspace.write().unwrap_or_else(|e| e.into_inner())
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Workspace> {
        self.workspace.read().unwrap_or_else(|e| e.into_inner())
    }

    /// The policy in force now (cheap to clone, immutable).
    pub fn policy(&self) -> Arc<Policy> {
        self.read().policy.clone()
    }

    /// Replaces the workspace folders.
    pub fn set_folders(&self, folders: &[PathBuf]) {
        let mut workspace = self.write();
        let flavor = flavor(&workspace.settings);
        let previous = std::mem::take(&mut workspace.folders);
        workspace.folders = folders
            .iter()
            .map(|given| {
                let root = WorkspaceRoot::new(given, &self.fs);
                let before = previous.iter().find(|f| &f.given == given);
                let last = before.and_then(|f| f.ignore.clone());
                let host = before.and_then(|f| f.host.clone());
                let loaded = load_folder_ignore(host.as_ref(), &root.lexical, flavor);
                let (ignore, last_error) = apply_load(last, loaded);
                Folder {
                    given: given.clone(),
                    root,
                    ignore,
                    last_error,
                    host,
                }
            })
            .collect();
        workspace.rebuild();
        let roots = workspace.folders.iter().map(|f| f.root.clone()).collect();
        drop(workspace);
        // Also clears the cache.
        self.resolver.set_watched_roots(roots);
    }

    /// Adds and removes folders (`workspace/didChangeWorkspaceFolders`).
    pub fn change_folders(&self, added: &[PathBuf], removed: &[PathBuf]) {
        let mut folders: Vec<PathBuf> = self.folder_paths();
        folders.retain(|f| !removed.contains(f));
        for folder in added {
            if !folders.contains(folder) {
                folders.push(folder.clone());
            }
        }
        self.set_folders(&folders);
    }

    /// The folders as the client gave them.
    pub fn folder_paths(&self) -> Vec<PathBuf> {
        self.read()
            .folders
            .iter()
            .map(|f| f.given.clone())
            .collect()
    }

    /// Starts afresh as at start-up: until the next settings compile, there is no earlier
    /// protection to keep, so protection that cannot be compiled protects every path.
    pub fn forget_last_good_protection(&self) {
        self.write().protect = None;
    }

    /// Applies a settings update (only the fields it names). A change of flavor changes which
    /// ignore files are in force, so every folder's are read again: the reloads are returned,
    /// to be reported as the watcher's are.
    pub fn update_settings(&self, update: Settings) -> Vec<IgnoreDidReloadParams> {
        let mut workspace = self.write();
        let before = flavor(&workspace.settings);
        merge(&mut workspace.settings, update);
        workspace.rebuild();
        let after = flavor(&workspace.settings);
        drop(workspace);
        if after == before {
            return Vec::new();
        }
        self.folder_paths()
            .iter()
            .filter_map(|root| self.reload_ignore(root))
            .collect()
    }

    /// Re-reads the ignore file of the folder at `root`. A read error keeps the last good rules.
    /// The folder's real path is resolved again too: a root that is a link may now point
    /// elsewhere (`current -> releases/v2`), and a stale real root would judge every path
    /// under the new target as outside the workspace.
    pub fn reload_ignore(&self, root: &Path) -> Option<IgnoreDidReloadParams> {
        let is_it = |f: &Folder| f.root.lexical == root || f.given == root;
        // Read and compile outside the lock: requests keep reading the current policy meanwhile.
        let (given, host, flavor) = {
            let workspace = self.read();
            let folder = workspace.folders.iter().find(|f| is_it(f))?;
            (
                folder.given.clone(),
                folder.host.clone(),
                flavor(&workspace.settings),
            )
        };
        let resolved = WorkspaceRoot::new(&given, &self.fs);
        let loaded = load_folder_ignore(host.as_ref(), &resolved.lexical, flavor);
        let mut workspace = self.write();
        let folder = workspace.folders.iter_mut().find(|f| is_it(f))?;
        let moved = folder.root != resolved;
        folder.root = resolved;
        let (ignore, last_error) = apply_load(folder.ignore.take(), loaded);
        folder.ignore = ignore;
        folder.last_error = last_error;
        let outcome = IgnoreDidReloadParams {
            folder: folder.given.to_string_lossy().into_owned(),
            active_ignore_file: folder.ignore.as_ref().map(|i| i.name.clone()),
            rule_count: folder.ignore.as_ref().map_or(0, |i| i.rule_count()),
            error: folder.last_error.clone(),
            blocks_everything: folder.blocks_everything(),
        };
        workspace.rebuild();
        if moved {
            let roots = workspace.folders.iter().map(|f| f.root.clone()).collect();
            drop(workspace);
            // Also clears the cache of folders resolved under the old real root.
            self.resolver.set_watched_roots(roots);
        }
        Some(outcome)
    }

    /// `roo/ignore/setRules`: the host's text of one ignore file of the folder `given` (`None`:
    /// the host has no such file), or, with `host_owned` false, the folder back to its disk.
    /// Answers as a reload does; `None` when `given` is no workspace folder.
    pub fn set_host_ignore(
        &self,
        given: &Path,
        name: &str,
        content: Option<String>,
        host_owned: bool,
    ) -> Option<IgnoreDidReloadParams> {
        {
            let mut workspace = self.write();
            let folder = workspace
                .folders
                .iter_mut()
                .find(|f| f.given == given || f.root.lexical == given)?;
            if host_owned {
                let host = folder.host.get_or_insert_with(HostIgnore::default);
                if name == ZOO_IGNORE_FILE {
                    host.zoo = content;
                } else {
                    host.roo = content;
                }
            } else {
                folder.host = None;
            }
        }
        self.reload_ignore(given)
    }

    /// The settings in force.
    pub fn settings(&self) -> Settings {
        self.read().settings.clone()
    }

    /// Folders, ignore files and settings, for `roo/workspace/status`.
    pub fn status(&self) -> WorkspaceStatusResult {
        let workspace = self.read();
        WorkspaceStatusResult {
            folders: workspace
                .folders
                .iter()
                .map(|f| FolderStatus {
                    path: f.given.to_string_lossy().into_owned(),
                    canonical_path: f.root.canonical.to_string_lossy().into_owned(),
                    active_ignore_file: f.ignore.as_ref().map(|i| i.name.clone()),
                    rule_count: f.ignore.as_ref().map_or(0, |i| i.rule_count()),
                    rule_diagnostics: f
                        .ignore
                        .as_ref()
                        .map(|i| {
                            i.files()
                                .flat_map(|file| {
                                    file.rules.diagnostics.iter().map(move |d| {
                                        format!("{}:{}: {}", file.name, d.line, d.message)
                                    })
                                })
                                .collect()
                        })
                        .unwrap_or_default(),
                    last_error: f.last_error.clone(),
                    blocks_everything: f.blocks_everything(),
                })
                .collect(),
            settings: workspace.settings.clone(),
            protection_error: workspace.protection_error.clone(),
        }
    }

    /// Roots (lexical form) of all folders, for the watcher.
    pub fn roots(&self) -> Vec<PathBuf> {
        self.read()
            .folders
            .iter()
            .map(|f| f.root.lexical.clone())
            .collect()
    }
}
