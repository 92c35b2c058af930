//! The workspace state the server owns: folders, their active ignore files (with the last reload
//! error), settings, and the compiled [`Policy`] every request reads. Mutations happen
//! synchronously under one lock, so they apply in the order handlers run.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use roo_context_core::access::{
    Flavor, FolderPolicy, IgnoreFile, Policy, ProtectRules, ROO_IGNORE_FILE, ZOO_IGNORE_FILE,
    active_ignore_file_name,
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
}

struct Workspace {
    folders: Vec<Folder>,
    settings: Settings,
    policy: Arc<Policy>,
}

/// Shared, thread-safe server state.
pub struct SharedState {
    workspace: RwLock<Workspace>,
    /// Canonical-folder cache, cleared by the watcher when folders or links change.
    pub resolver: Resolver,
    /// The real file system.
    pub fs: OsFs,
}

/// Reads the active ignore file of `root`: `Ok(None)` when there is none.
fn load_ignore_file(root: &Path) -> Result<Option<IgnoreFile>, String> {
    let zoo = root.join(ZOO_IGNORE_FILE);
    let roo = root.join(ROO_IGNORE_FILE);
    let Some(name) = active_ignore_file_name(zoo.exists(), roo.exists()) else {
        return Ok(None);
    };
    let path = root.join(name);
    std::fs::read_to_string(&path)
        .map(|content| Some(IgnoreFile::new(name, &content)))
        .map_err(|e| format!("cannot read {}: {e}", path.display()))
}

fn flavor(settings: &Settings) -> Flavor {
    match settings.flavor.as_deref() {
        Some("zoo") => Flavor::Zoo,
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
}

impl Workspace {
    fn rebuild(&mut self) {
        let settings = &self.settings;
        let protect = ProtectRules::new(
            settings.extra_protected_patterns.as_deref().unwrap_or(&[]),
            flavor(settings),
        );
        self.policy = Arc::new(Policy {
            folders: self
                .folders
                .iter()
                .map(|f| FolderPolicy {
                    root: f.root.clone(),
                    ignore: f.ignore.clone(),
                })
                .collect(),
            protect: Arc::new(protect),
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
        workspace.folders = folders
            .iter()
            .map(|given| {
                let root = WorkspaceRoot::new(given, &self.fs);
                let (ignore, last_error) = match load_ignore_file(&root.lexical) {
                    Ok(file) => (file.map(Arc::new), None),
                    Err(error) => (None, Some(error)),
                };
                Folder {
                    given: given.clone(),
                    root,
                    ignore,
                    last_error,
                }
            })
            .collect();
        workspace.rebuild();
        drop(workspace);
        self.resolver.clear();
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

    /// Applies a settings update (only the fields it names).
    pub fn update_settings(&self, update: Settings) -> Settings {
        let mut workspace = self.write();
        merge(&mut workspace.settings, update);
        workspace.rebuild();
        workspace.settings.clone()
    }

    /// Re-reads the ignore file of the folder at `root`. A read error keeps the last good rules.
    pub fn reload_ignore(&self, root: &Path) -> Option<IgnoreDidReloadParams> {
        let mut workspace = self.write();
        let folder = workspace
            .folders
            .iter_mut()
            .find(|f| f.root.lexical == root || f.given == root)?;
        match load_ignore_file(&folder.root.lexical) {
            Ok(file) => {
                folder.ignore = file.map(Arc::new);
                folder.last_error = None;
            }
            Err(error) => {
                tracing::warn!(%error, "ignore file reload failed; keeping the last good rules");
                folder.last_error = Some(error);
            }
        }
        let outcome = IgnoreDidReloadParams {
            folder: folder.given.to_string_lossy().into_owned(),
            active_ignore_file: folder.ignore.as_ref().map(|i| i.name.clone()),
            rule_count: folder.ignore.as_ref().map_or(0, |i| i.rules.len()),
            error: folder.last_error.clone(),
        };
        workspace.rebuild();
        Some(outcome)
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
                    rule_count: f.ignore.as_ref().map_or(0, |i| i.rules.len()),
                    rule_diagnostics: f
                        .ignore
                        .as_ref()
                        .map(|i| {
                            i.rules
                                .diagnostics
                                .iter()
                                .map(|d| format!("{}:{}: {}", i.name, d.line, d.message))
                                .collect()
                        })
                        .unwrap_or_default(),
                    last_error: f.last_error.clone(),
                })
                .collect(),
            settings: workspace.settings.clone(),
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
