//! `roo/ignore/*` and `roo/protect/*`: read access, command vetting and write protection.

use std::path::{Path, PathBuf};

use roo_context_core::access::{AccessDecision, BlockReason, Policy, access_denied_error};
use roo_context_core::files_list::EntryAccess;
use roo_context_core::path::normalize_lexically;
use roo_context_protocol::access::*;
use roo_context_shell::{FsOracle, Verdict};

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

/// `roo/ignore/validateCommand`: the shell crate walks the command; the access rule (and the
/// file system, for globs, folder trees and existing names) answers through its oracle.
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
    let blocked = |path: &str| decide(path).is_some();
    let oracle = FsOracle::new(&base, &blocked);
    match roo_context_shell::vet(&params.command, &oracle) {
        Verdict::Allowed => ValidateCommandResult {
            verdict: CommandVerdict::Allowed,
            reason: None,
            construct: None,
            snippet: None,
            blocked_path: None,
            blocked_by: None,
            tool_error: None,
        },
        Verdict::Blocked(hit) => {
            // Explain the reading that was refused (a glob or a tree by its first blocked match).
            let why = decide(&hit.path);
            ValidateCommandResult {
                verdict: CommandVerdict::Blocked,
                reason: Some(format!("{} names a blocked path", hit.typed)),
                construct: None,
                snippet: None,
                tool_error: why.as_ref().map(|r| tool_error(policy, r, &hit.typed)),
                blocked_by: why.as_ref().map(blocked_by),
                blocked_path: Some(hit.typed),
            }
        }
        Verdict::Undecidable(why) => ValidateCommandResult {
            verdict: CommandVerdict::Undecidable,
            reason: Some(why.construct.reason().to_owned()),
            construct: Some(why.construct.name().to_owned()),
            snippet: Some(why.snippet),
            blocked_path: None,
            blocked_by: None,
            tool_error: None,
        },
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
