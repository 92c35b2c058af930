//! `roo/ignore/*` and `roo/protect/*`: read access, command vetting and write protection.

use std::path::{Path, PathBuf};

use roo_context_core::access::{AccessDecision, BlockReason, Policy, access_denied_error};
use roo_context_core::command::first_blocked_argument;
use roo_context_core::files_list::EntryAccess;
use roo_context_core::path::normalize_lexically;
use roo_context_protocol::access::*;

use crate::state::SharedState;

fn base_folder(policy: &Policy, cwd: Option<&str>) -> PathBuf {
    match cwd {
        Some(cwd) => normalize_lexically(policy.base(), cwd),
        None => policy.base().to_path_buf(),
    }
}

fn blocked_by(reason: &BlockReason) -> BlockedBy {
    match reason {
        BlockReason::IgnoreRule {
            folder,
            origin,
            matched_path,
            via,
        } => BlockedBy {
            kind: "ignoreRule".into(),
            folder: Some(folder.clone()),
            file: origin.file.clone(),
            line: origin.line,
            pattern: Some(origin.pattern.clone()),
            matched_path: Some(matched_path.clone()),
            via: Some(form_name(*via).into()),
        },
        BlockReason::OutsideWorkspace => BlockedBy {
            kind: "outsideWorkspace".into(),
            folder: None,
            file: None,
            line: None,
            pattern: None,
            matched_path: None,
            via: None,
        },
    }
}

fn form_name(form: roo_context_core::access::PathForm) -> &'static str {
    match form {
        roo_context_core::access::PathForm::Lexical => "lexical",
        roo_context_core::access::PathForm::Canonical => "canonical",
    }
}

fn tool_error(policy: &Policy, reason: &BlockReason, path: &str) -> String {
    match reason {
        BlockReason::IgnoreRule { origin, .. } => {
            let zoo = origin.file.as_deref() == Some(".zooignore")
                || (origin.file.is_none()
                    && policy.primary_ignore().is_some_and(|i| i.name == ".zooignore"));
            access_denied_error(zoo, path)
        }
        BlockReason::OutsideWorkspace => serde_json::json!({
            "status": "error",
            "type": "access_denied",
            "message": "Access blocked: the path is outside the workspace",
            "path": path,
            "suggestion": "Try to continue without this file, or ask the user to allow paths outside the workspace",
        })
        .to_string(),
    }
}

fn access_result(policy: &Policy, path: &str, decision: AccessDecision) -> AccessResult {
    AccessResult {
        path: path.to_owned(),
        allowed: decision.allowed(),
        blocked_by: decision.blocked.as_ref().map(blocked_by),
        tool_error: decision
            .blocked
            .as_ref()
            .map(|r| tool_error(policy, r, path)),
    }
}

/// `roo/ignore/validateAccess`.
pub fn validate_access(
    state: &SharedState,
    policy: &Policy,
    params: &ValidateAccessParams,
) -> ValidateAccessResult {
    let base = base_folder(policy, params.cwd.as_deref());
    let decisions =
        policy.check_access_many(&state.resolver, &state.fs, Some(&base), &params.paths);
    ValidateAccessResult {
        results: params
            .paths
            .iter()
            .zip(decisions)
            .map(|(path, decision)| access_result(policy, path, decision))
            .collect(),
    }
}

/// `roo/ignore/filterPaths`.
pub fn filter_paths(
    state: &SharedState,
    policy: &Policy,
    params: &FilterPathsParams,
) -> FilterPathsResult {
    let base = base_folder(policy, params.cwd.as_deref());
    FilterPathsResult {
        paths: params
            .paths
            .iter()
            .filter(|p| {
                policy
                    .check_access(&state.resolver, &state.fs, Some(&base), p)
                    .allowed()
            })
            .cloned()
            .collect(),
    }
}

/// `roo/ignore/formatFilesList`: the original's `formatFilesList`, every entry judged by the
/// access rule and write protection relative to the listed folder.
pub fn format_files_list(
    state: &SharedState,
    policy: &Policy,
    params: &FormatFilesListParams,
) -> FormatFilesListResult {
    let listed = base_folder(policy, params.listed_dir.as_deref());
    let entries: Vec<String> = params
        .files
        .iter()
        .map(|file| {
            let folder = file.ends_with('/');
            let trimmed = file.trim_end_matches('/');
            let relative = match Path::new(trimmed).strip_prefix(&listed) {
                Ok(inside) if Path::new(trimmed).is_absolute() => {
                    inside.to_string_lossy().replace('\\', "/")
                }
                _ => trimmed.replace('\\', "/"),
            };
            if folder && !relative.is_empty() {
                format!("{relative}/")
            } else {
                relative
            }
        })
        .collect();
    let judge = |entry: &str| EntryAccess {
        blocked: !policy
            .check_access(&state.resolver, &state.fs, Some(&listed), entry)
            .allowed(),
        protected: policy
            .check_protection(&state.resolver, &state.fs, Some(&listed), entry)
            .pattern
            .is_some(),
    };
    FormatFilesListResult {
        text: roo_context_core::files_list::format_files_list(
            &entries,
            params.did_hit_limit,
            params.show_ignored,
            Some(&judge),
        ),
    }
}

/// `roo/ignore/validateCommand`.
pub fn validate_command(
    state: &SharedState,
    policy: &Policy,
    params: &ValidateCommandParams,
) -> ValidateCommandResult {
    let base = base_folder(policy, params.cwd.as_deref());
    let decide = |path: &str| {
        policy
            .check_access(&state.resolver, &state.fs, Some(&base), path)
            .blocked
    };
    let blocked_path = |candidate: &str| decide(candidate).is_some();
    // The shell expands globs before the program sees them, so `cat secr*/key.json` reads what
    // the expansion names: judge every match too.
    let is_blocked = |candidate: &str| {
        blocked_path(candidate)
            || (has_glob(candidate) && glob_matches_blocked(&base, candidate, &blocked_path))
    };
    let Some(hit) = first_blocked_argument(&params.command, &is_blocked) else {
        return ValidateCommandResult {
            blocked_path: None,
            blocked_by: None,
            tool_error: None,
        };
    };
    // Explain the reading that was refused; a glob is explained by its first blocked match.
    let reason = decide(&hit.path).or_else(|| {
        first_glob_match(&base, &hit.path, &blocked_path).and_then(|path| decide(&path))
    });
    ValidateCommandResult {
        tool_error: reason.as_ref().map(|r| tool_error(policy, r, &hit.typed)),
        blocked_by: reason.as_ref().map(blocked_by),
        blocked_path: Some(hit.typed),
    }
}

/// `roo/ignore/instructions`.
pub fn ignore_instructions(
    policy: &Policy,
    params: &IgnoreInstructionsParams,
) -> IgnoreInstructionsResult {
    let folder = match params.cwd.as_deref() {
        Some(cwd) => {
            let base = base_folder(policy, Some(cwd));
            policy.folders.iter().find(|f| f.root.contains(&base))
        }
        None => policy.folders.first(),
    };
    let ignore = folder.and_then(|f| f.ignore.as_ref());
    IgnoreInstructionsResult {
        instructions: ignore.map(|i| i.instructions()),
        active_ignore_file: ignore.map(|i| i.name.clone()),
    }
}

/// `roo/protect/check`.
pub fn protect_check(
    state: &SharedState,
    policy: &Policy,
    params: &ProtectParams,
) -> ProtectCheckResult {
    let base = base_folder(policy, params.cwd.as_deref());
    ProtectCheckResult {
        results: params
            .paths
            .iter()
            .map(|p| {
                let decision = policy.check_protection(&state.resolver, &state.fs, Some(&base), p);
                ProtectResult {
                    path: p.clone(),
                    is_protected: decision.pattern.is_some(),
                    pattern: decision.pattern,
                    via: decision.via.map(|v| form_name(v).to_owned()),
                }
            })
            .collect(),
    }
}

/// `roo/protect/annotate`.
pub fn protect_annotate(
    state: &SharedState,
    policy: &Policy,
    params: &ProtectParams,
) -> ProtectAnnotateResult {
    ProtectAnnotateResult {
        paths: protect_check(state, policy, params)
            .results
            .into_iter()
            .map(|r| AnnotatedPath {
                path: r.path,
                is_protected: r.is_protected,
            })
            .collect(),
    }
}

/// `roo/protect/instructions`.
pub fn protect_instructions(policy: &Policy) -> ProtectInstructionsResult {
    ProtectInstructionsResult {
        instructions: policy.protect.instructions(),
        patterns: policy.protect.patterns.clone(),
        message: policy.protect.message().to_owned(),
    }
}

/// Most directory entries a glob expansion may visit; past it the glob is judged blocked.
const GLOB_VISIT_LIMIT: usize = 50_000;

fn has_glob(word: &str) -> bool {
    word.contains(['*', '?', '[', '{'])
}

/// Whether any path that `pattern` (relative to `base`, or absolute) expands to is blocked.
fn glob_matches_blocked(base: &Path, pattern: &str, blocked: &dyn Fn(&str) -> bool) -> bool {
    match expand_glob(base, pattern, blocked) {
        GlobOutcome::Blocked(_) | GlobOutcome::TooLarge => true,
        GlobOutcome::Clear => false,
    }
}

/// The first blocked path `pattern` expands to.
fn first_glob_match(base: &Path, pattern: &str, blocked: &dyn Fn(&str) -> bool) -> Option<String> {
    if !has_glob(pattern) {
        return None;
    }
    match expand_glob(base, pattern, blocked) {
        GlobOutcome::Blocked(path) => Some(path),
        _ => None,
    }
}

enum GlobOutcome {
    Blocked(String),
    TooLarge,
    Clear,
}

fn expand_glob(base: &Path, pattern: &str, blocked: &dyn Fn(&str) -> bool) -> GlobOutcome {
    let absolute = roo_context_core::path::normalize_lexically(base, pattern);
    let text = absolute.to_string_lossy();
    let Ok(glob) = globset::GlobBuilder::new(&text)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
    else {
        return GlobOutcome::Clear; // not a valid glob: the shell passes it literally
    };
    // Walk from the longest folder prefix without glob characters.
    let mut start = PathBuf::from("/");
    let mut depth = 0usize;
    let mut recursive = false;
    let mut in_prefix = true;
    for component in absolute.components().skip(1) {
        let name = component.as_os_str().to_string_lossy();
        if in_prefix && !has_glob(&name) {
            start.push(component);
        } else {
            in_prefix = false;
            depth += 1;
            recursive |= name.contains("**");
        }
    }
    let mut walker = ignore::WalkBuilder::new(&start);
    walker.standard_filters(false).follow_links(false);
    if !recursive {
        walker.max_depth(Some(depth));
    }
    for (visited, entry) in walker.build().enumerate() {
        if visited >= GLOB_VISIT_LIMIT {
            return GlobOutcome::TooLarge;
        }
        let Ok(entry) = entry else { continue };
        let path = entry.path();
        if glob.is_match(path) {
            let path = path.to_string_lossy().into_owned();
            if blocked(&path) {
                return GlobOutcome::Blocked(path);
            }
        }
    }
    GlobOutcome::Clear
}
