//! Settings, workspace status and reload notifications.

use serde::{Deserialize, Serialize};

/// Settings, given as `initializationOptions`, in `workspace/didChangeConfiguration`
/// (`settings.rooContext` or `settings` itself) or with `roo/settings/update`. Every field is
/// optional; an update changes only the fields it names.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// `error`, `warn`, `info`, `debug` or `trace` (stderr logging).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<String>,
    /// Block paths outside every workspace folder (default false, as the original).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deny_outside_workspace: Option<bool>,
    /// Extra write-protected patterns (gitignore syntax).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra_protected_patterns: Option<Vec<String>>,
    /// Wording of protection texts: `roo` (default) or `zoo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flavor: Option<Flavor>,
    /// Load the tokenizer tables in the background right after `initialize` (default true);
    /// false loads them on the first count, keeping memory low until then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_tokenizer: Option<bool>,
    /// The host can replay its last model request (issue 30): every `roo/context/manage`
    /// condense asks `roo/host/summarize` for a continuation of it unless the request's
    /// `cache.prefixReuse` says `false`. Default false (today's standalone request).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix_reuse_condense: Option<bool>,
}

/// Wording of protection texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum Flavor {
    /// Roo Code's (the default).
    Roo,
    /// Zoo Code's.
    Zoo,
}

/// Params of `roo/workspace/status` (none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct WorkspaceStatusParams {}

/// Result of `roo/workspace/status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceStatusResult {
    /// One entry per workspace folder, in order.
    pub folders: Vec<FolderStatus>,
    /// Effective settings.
    pub settings: Settings,
    /// Set when `extraProtectedPatterns` could not be compiled: the last good protection stays
    /// in force (at start-up, every path is protected) until the setting is fixed.
    #[serde(default)]
    pub protection_error: Option<String>,
}

/// One workspace folder's state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FolderStatus {
    /// The folder as given by the client.
    pub path: String,
    /// The folder with symlinks resolved.
    pub canonical_path: String,
    /// `.rooignore`, `.zooignore`, or null when no ignore file is active.
    pub active_ignore_file: Option<String>,
    /// Number of compiled ignore patterns (implicit ones included).
    pub rule_count: usize,
    /// Lines of the ignore file that could not be compiled.
    pub rule_diagnostics: Vec<String>,
    /// The last reload error; the previous rules stay in force while it is set.
    pub last_error: Option<String>,
    /// True when the ignore file cannot be used (unreadable, not a regular file, or rules that
    /// cannot be compiled) and no earlier rules exist: every path in the folder is blocked.
    #[serde(default)]
    pub blocks_everything: bool,
}

/// Notification `roo/workspace/didWatch`: the recursive watch of every workspace folder is set
/// up (after `initialize`, a change of folders, or a folder deleted and created again) and the
/// files tasks track were compared with the disk once. From here on a change is seen as it
/// happens; one made before was found by that comparison, where a rename cannot be told from a
/// delete.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceDidWatchParams {
    /// One entry per folder whose watch was (re)started.
    pub folders: Vec<FolderWatch>,
}

/// One folder's watch.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FolderWatch {
    /// The workspace folder.
    pub folder: String,
    /// False when the recursive watch could not be set up (the system's watch limit, a folder
    /// that is gone): changes below the folder are then not seen until a restart.
    pub recursive: bool,
}

/// Notification `roo/ignore/didReload`, sent after every reload of a folder's ignore file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct IgnoreDidReloadParams {
    /// The workspace folder.
    pub folder: String,
    /// The active ignore file after the reload.
    pub active_ignore_file: Option<String>,
    /// Number of compiled patterns now in force.
    pub rule_count: usize,
    /// Set when the file could not be read or compiled; the last good rules stay in force.
    pub error: Option<String>,
    /// True when the rules now in force block every path of the folder, because the ignore file
    /// cannot be used and there are no earlier rules to keep.
    #[serde(default)]
    pub blocks_everything: bool,
}
