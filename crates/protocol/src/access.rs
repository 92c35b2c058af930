//! `.rooignore` access control, shell-command vetting and write protection.

use serde::{Deserialize, Serialize};

/// Params of `roo/ignore/validateAccess`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ValidateAccessParams {
    /// Paths as the agent gave them: relative (to `cwd` or the first workspace folder) or absolute.
    pub paths: Vec<String>,
    /// Base folder for relative paths; defaults to the first workspace folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    /// Answer in the compact form ([`CompactAccess`]): `results` is then empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compact: Option<bool>,
}

/// Result of `roo/ignore/validateAccess`: one entry per requested path, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ValidateAccessResult {
    /// Decisions, in request order (empty in the compact form).
    pub results: Vec<AccessResult>,
    /// The decisions in the compact form, when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compact: Option<CompactAccess>,
}

/// The decisions of a batch, compact: only blocked paths are listed, each by its index in the
/// request and the index of its rule in `rules`, which holds each distinct rule once. Every
/// path not listed is allowed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CompactAccess {
    /// Number of paths decided (the request's).
    pub count: usize,
    /// `[pathIndex, ruleIndex]` of each blocked path, in request order.
    pub blocked: Vec<(usize, usize)>,
    /// The distinct rules that blocked (without the per-path `matchedPath` and `via`).
    pub rules: Vec<CompactRule>,
}

/// One rule of [`CompactAccess`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CompactRule {
    /// The rule, as `blockedBy` names it (`matchedPath` and `via` left out).
    pub blocked_by: BlockedBy,
    /// The tool result of a path this rule blocks, with [`TOOL_ERROR_PATH_PLACEHOLDER`] in
    /// place of the path: put the path in as a JSON string's content (the text of
    /// `JSON.stringify(path)` without its quotes) to get the full form's `toolError` exactly.
    pub tool_error_template: String,
}

/// What stands for the path in [`CompactRule::tool_error_template`].
pub const TOOL_ERROR_PATH_PLACEHOLDER: &str = "{path}";

/// The decision for one path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccessResult {
    /// The path as requested.
    pub path: String,
    /// Whether the agent may read it.
    pub allowed: bool,
    /// Why not, when blocked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_by: Option<BlockedBy>,
    /// When blocked: the exact tool result the original returns (`rooIgnoreError`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_error: Option<String>,
}

/// Which form of a path a rule matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum PathVia {
    /// The path as requested, lexically normalised.
    Lexical,
    /// The path with every symlink resolved.
    Canonical,
}

/// What kind of rule blocked a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum BlockKind {
    /// A pattern of an ignore file (or an implicit one).
    IgnoreRule,
    /// The path is outside every folder and `denyOutsideWorkspace` is set.
    OutsideWorkspace,
}

/// What blocked a path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Hash)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BlockedBy {
    /// `ignoreRule` or `outsideWorkspace`.
    pub kind: BlockKind,
    /// The workspace folder whose rule matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// The ignore file (`.rooignore`/`.zooignore`), null for an implicit pattern.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// 1-based line in `file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The pattern that matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The relative path that matched (requested or resolved form).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matched_path: Option<String>,
    /// `lexical` (as requested) or `canonical` (symlinks resolved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<PathVia>,
}

/// Params of `roo/ignore/filterPaths`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FilterPathsParams {
    /// Paths to filter.
    pub paths: Vec<String>,
    /// Base folder for relative paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// Result of `roo/ignore/filterPaths`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FilterPathsResult {
    /// The readable paths, in input order.
    pub paths: Vec<String>,
}

/// Params of `roo/ignore/validateCommand`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ValidateCommandParams {
    /// The shell command line.
    pub command: String,
    /// The folder the command runs in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// The answer for a command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum CommandVerdict {
    /// Nothing it names is blocked and everything it would read is known: it may run.
    Allowed,
    /// An argument names a blocked path (`blockedPath`): it must not run.
    Blocked,
    /// What it would read cannot be known from its text (`construct`, `snippet`): ask the user.
    Undecidable,
}

/// Result of `roo/ignore/validateCommand`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ValidateCommandResult {
    /// `allowed`, `blocked` or `undecidable`. A host auto-approves only `allowed`.
    pub verdict: CommandVerdict,
    /// Why the verdict is not `allowed`, in a sentence for the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// When undecidable: the construct that hides what is read (`variable`,
    /// `commandSubstitution`, `inlineCode`, `eval`, `xargsInput`, `scriptFromInput`,
    /// `dynamicDirectory`, `dynamicProgram`, `remote`, `recursiveRead`, `limit`, `unparsed`,
    /// `shellState`, `changedFile`, `processFile`, `protectedLink`, `scriptFile`, `hardLink`, `unknownProgram`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub construct: Option<String>,
    /// When undecidable: the source text of that construct (at most 200 bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
    /// The first offending argument as typed, or null unless blocked (an undecidable command
    /// also has null here: check `verdict`).
    pub blocked_path: Option<String>,
    /// Why that argument is blocked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_by: Option<BlockedBy>,
    /// When blocked: the tool result the original returns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_error: Option<String>,
}

/// Params of `roo/ignore/instructions`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct IgnoreInstructionsParams {
    /// Which workspace folder (defaults to the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// Result of `roo/ignore/instructions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct IgnoreInstructionsResult {
    /// The system-prompt text, or null when no ignore file is active.
    pub instructions: Option<String>,
    /// The active ignore file's name.
    pub active_ignore_file: Option<String>,
}

/// Params of `roo/ignore/setRules`: the ignore file of a folder as the host has it, for hosts
/// whose files live elsewhere than the sidecar's disk (`vscode.workspace.fs`, an in-memory test
/// file system). While set, the folder's ignore file on disk is not read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SetIgnoreRulesParams {
    /// The workspace folder (as given in `initialize` or a folder change).
    pub folder: String,
    /// Which ignore file the content is: `.rooignore` or `.zooignore`.
    pub file: IgnoreFileName,
    /// The file's text; `null` means the host has no such file (nothing is blocked by it).
    pub content: Option<String>,
    /// `false` gives the folder back to its ignore file on disk. Default `true`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_owned: Option<bool>,
}

/// The two ignore file names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum IgnoreFileName {
    /// Roo's.
    #[serde(rename = ".rooignore")]
    Roo,
    /// Zoo's (wins over `.rooignore`).
    #[serde(rename = ".zooignore")]
    Zoo,
}

/// Result of `roo/ignore/setRules`: the folder's rules now.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SetIgnoreRulesResult {
    /// The active ignore file's name, if any.
    pub active_ignore_file: Option<String>,
    /// Rules compiled.
    pub rule_count: usize,
    /// Why the rules cannot be used (then the folder is blocked), if so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Params of `roo/protect/check` and `roo/protect/annotate`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProtectParams {
    /// Paths to check.
    pub paths: Vec<String>,
    /// Base folder for relative paths.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// Result of `roo/protect/check`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProtectCheckResult {
    /// Decisions, in request order.
    pub results: Vec<ProtectResult>,
}

/// Write protection of one path.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProtectResult {
    /// The path as requested.
    pub path: String,
    /// Whether a write needs the user's approval.
    pub is_protected: bool,
    /// The protecting pattern.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// `lexical` or `canonical`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<PathVia>,
}

/// Result of `roo/protect/annotate` (the original's `annotatePathsWithProtection`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProtectAnnotateResult {
    /// `{path, isProtected}` in input order.
    pub paths: Vec<AnnotatedPath>,
}

/// A path with its protection flag.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AnnotatedPath {
    /// The path as requested.
    pub path: String,
    /// Whether a write needs approval.
    pub is_protected: bool,
}

/// Params of `roo/protect/instructions` (none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ProtectInstructionsParams {}

/// Result of `roo/protect/instructions`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ProtectInstructionsResult {
    /// The system-prompt text.
    pub instructions: String,
    /// The protected patterns, in order.
    pub patterns: Vec<String>,
    /// The approval message.
    pub message: String,
}

/// Params of `roo/ignore/formatFilesList`: the text a list-files tool shows the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FormatFilesListParams {
    /// The listed folder (absolute, or relative to the first workspace folder; default that folder).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub listed_dir: Option<String>,
    /// The entries found, absolute or relative to the listed folder; folders end with `/`.
    pub files: Vec<String>,
    /// The listing stopped at its limit (appends the truncation notice).
    #[serde(default)]
    pub did_hit_limit: bool,
    /// Show ignored entries with a lock instead of hiding them (`showRooIgnoredFiles`, default false).
    #[serde(default)]
    pub show_ignored: bool,
}

/// Result of `roo/ignore/formatFilesList`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FormatFilesListResult {
    /// The formatted list, exactly as the original's `formatFilesList` returns it.
    pub text: String,
}
