//! `roo/ignore/*` and `roo/protect/*`: read access, command vetting and write protection.

use std::path::Path;

use roo_context_core::access::{
    AccessDecision, BlockReason, Flavor, Policy, ZOO_IGNORE_FILE, access_denied_error,
};
use roo_context_core::files_list::EntryAccess;
use roo_context_protocol::access::*;
use roo_context_protocol::requests;
use roo_context_shell::{FsOracle, Verdict};

use super::{Handler, Snapshot, base_folder};
use crate::rpc::RpcError;
use roo_context_core::path::normalize_lexically;

/// Path batches up to this size run on the blocking pool without taking a heavy-work slot.
const LIGHT_BATCH: usize = 256;

/// Most paths a check answers on the runtime's thread ([`Handler::quick`]): the agents ask for
/// one path at a time, from about 36 places.
const QUICK_PATHS: usize = 4;

fn blocked_by(reason: &BlockReason) -> BlockedBy {
    match reason {
        BlockReason::IgnoreRule {
            folder,
            origin,
            matched_path,
            via,
        } => BlockedBy {
            kind: BlockKind::IgnoreRule,
            folder: Some(folder.clone()),
            file: origin.file.clone(),
            line: origin.line,
            pattern: Some(origin.pattern.clone()),
            matched_path: Some(matched_path.clone()),
            via: Some(path_via(*via)),
        },
        BlockReason::OutsideWorkspace => BlockedBy {
            kind: BlockKind::OutsideWorkspace,
            folder: None,
            file: None,
            line: None,
            pattern: None,
            matched_path: None,
            via: None,
        },
    }
}

fn path_via(form: roo_context_core::access::PathForm) -> PathVia {
    match form {
        roo_context_core::access::PathForm::Lexical => PathVia::Lexical,
        roo_context_core::access::PathForm::Canonical => PathVia::Canonical,
    }
}

fn tool_error(policy: &Policy, reason: &BlockReason, path: &str) -> String {
    match reason {
        BlockReason::IgnoreRule { origin, .. } => {
            // Zoo's wording whatever file matched: Zoo names "the project ignore file".
            let zoo = policy.protect.flavor() == Flavor::Zoo
                || origin.file.as_deref() == Some(ZOO_IGNORE_FILE);
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

/// The compact form of a batch's decisions: each distinct rule once, with its tool result as a
/// template built by the same [`tool_error`] as the full form's.
fn compact_access(policy: &Policy, decisions: Vec<AccessDecision>) -> CompactAccess {
    let mut rules: Vec<CompactRule> = Vec::new();
    // Rule to its index: a batch may meet as many distinct rules as paths.
    let mut known: std::collections::HashMap<BlockedBy, usize> = Default::default();
    let mut blocked = Vec::new();
    let count = decisions.len();
    for (index, decision) in decisions.into_iter().enumerate() {
        let Some(reason) = decision.blocked else {
            continue;
        };
        let mut rule = blocked_by(&reason);
        rule.matched_path = None;
        rule.via = None;
        let position = *known.entry(rule.clone()).or_insert_with(|| {
            rules.push(CompactRule {
                blocked_by: rule,
                tool_error_template: tool_error(policy, &reason, TOOL_ERROR_PATH_PLACEHOLDER),
            });
            rules.len() - 1
        });
        blocked.push((index, position));
    }
    CompactAccess {
        count,
        blocked,
        rules,
    }
}

/// `roo/ignore/validateAccess`.
impl Handler for requests::ValidateAccess {
    fn handle(
        snapshot: &Snapshot,
        params: ValidateAccessParams,
    ) -> Result<ValidateAccessResult, RpcError> {
        let (state, policy) = (&*snapshot.state, &*snapshot.policy);
        let base = base_folder(policy, params.cwd.as_deref());
        let decisions =
            policy.check_access_many(&state.resolver, &state.fs, Some(&base), &params.paths);
        if params.compact == Some(true) {
            return Ok(ValidateAccessResult {
                results: Vec::new(),
                compact: Some(compact_access(policy, decisions)),
            });
        }
        Ok(ValidateAccessResult {
            results: params
                .paths
                .iter()
                .zip(decisions)
                .map(|(path, decision)| access_result(policy, path, decision))
                .collect(),
            compact: None,
        })
    }

    fn heavy(params: &ValidateAccessParams) -> bool {
        params.paths.len() > LIGHT_BATCH
    }

    fn quick(snapshot: &Snapshot, params: &ValidateAccessParams) -> bool {
        let policy = &*snapshot.policy;
        let base = base_folder(policy, params.cwd.as_deref());
        params.paths.len() <= QUICK_PATHS
            && params
                .paths
                .iter()
                .all(|path| policy.spelled_inside_folder(&normalize_lexically(&base, path)))
    }
}

/// `roo/ignore/filterPaths`.
impl Handler for requests::FilterPaths {
    fn handle(
        snapshot: &Snapshot,
        params: FilterPathsParams,
    ) -> Result<FilterPathsResult, RpcError> {
        let (state, policy) = (&*snapshot.state, &*snapshot.policy);
        let base = base_folder(policy, params.cwd.as_deref());
        Ok(FilterPathsResult {
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
        })
    }

    fn heavy(params: &FilterPathsParams) -> bool {
        params.paths.len() > LIGHT_BATCH
    }
}

/// `roo/ignore/formatFilesList`: the original's `formatFilesList`, every entry judged by the
/// access rule and write protection relative to the listed folder.
impl Handler for requests::FormatFilesList {
    fn handle(
        snapshot: &Snapshot,
        params: FormatFilesListParams,
    ) -> Result<FormatFilesListResult, RpcError> {
        let (state, policy) = (&*snapshot.state, &*snapshot.policy);
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
        Ok(FormatFilesListResult {
            text: roo_context_core::files_list::format_files_list(
                &entries,
                params.did_hit_limit,
                params.show_ignored,
                Some(&judge),
            ),
        })
    }
}

/// `roo/ignore/validateCommand`: the shell crate walks the command; the access rule (and the
/// file system, for globs, folder trees and existing names) answers through its oracle.
impl Handler for requests::ValidateCommand {
    fn handle(
        snapshot: &Snapshot,
        params: ValidateCommandParams,
    ) -> Result<ValidateCommandResult, RpcError> {
        let (state, policy) = (&*snapshot.state, &*snapshot.policy);
        let base = base_folder(policy, params.cwd.as_deref());
        let decide = |path: &str| {
            policy
                .check_access(&state.resolver, &state.fs, Some(&base), path)
                .blocked
        };
        let blocked = |path: &str| decide(path).is_some();
        let protected = |path: &str| {
            policy
                .check_protection(&state.resolver, &state.fs, Some(&base), path)
                .pattern
                .is_some()
        };
        let oracle = FsOracle::new(&base, &blocked)
            .with_protection(&protected)
            .with_hard_link_rule(!policy.allows_links(2));
        // With nothing blocked no command can expose a blocked file: a build or a script (which
        // reads what the command does not say) is undecidable only when something is blocked.
        let verdict = if policy.blocks_nothing() {
            Verdict::Allowed
        } else {
            roo_context_shell::vet(&params.command, &oracle)
        };
        Ok(match verdict {
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
        })
    }
}

/// `roo/ignore/instructions`.
impl Handler for requests::IgnoreInstructions {
    fn handle(
        snapshot: &Snapshot,
        params: IgnoreInstructionsParams,
    ) -> Result<IgnoreInstructionsResult, RpcError> {
        let policy = &*snapshot.policy;
        let index = match params.cwd.as_deref() {
            Some(cwd) => {
                let base = base_folder(policy, Some(cwd));
                policy.folders.iter().position(|f| f.root.contains(&base))
            }
            None => (!policy.folders.is_empty()).then_some(0),
        };
        let ignore = index.and_then(|i| policy.folders[i].ignore.as_ref());
        if let Some(why) = index.and_then(|i| policy.ignore_text_withheld(i)) {
            tracing::warn!(%why, "ignore file text withheld from its instructions");
        }
        Ok(IgnoreInstructionsResult {
            instructions: index.and_then(|i| policy.ignore_instructions(i)),
            active_ignore_file: ignore.map(|i| i.name.clone()),
        })
    }
}

/// `roo/ignore/setRules`.
impl Handler for requests::IgnoreSetRules {
    fn handle(
        snapshot: &Snapshot,
        params: SetIgnoreRulesParams,
    ) -> Result<SetIgnoreRulesResult, RpcError> {
        let name = match params.file {
            IgnoreFileName::Roo => roo_context_core::access::ROO_IGNORE_FILE,
            IgnoreFileName::Zoo => roo_context_core::access::ZOO_IGNORE_FILE,
        };
        let folder = Path::new(&params.folder);
        let host_owned = params.host_owned.unwrap_or(true);
        let outcome = snapshot
            .state
            .set_host_ignore(folder, name, params.content, host_owned)
            .ok_or_else(|| {
                RpcError::field(
                    "folder",
                    format!("{} is not a workspace folder", params.folder),
                )
            })?;
        Ok(SetIgnoreRulesResult {
            active_ignore_file: outcome.active_ignore_file,
            rule_count: outcome.rule_count,
            error: outcome.error,
        })
    }
}

/// `roo/protect/check`.
impl Handler for requests::ProtectCheck {
    fn handle(snapshot: &Snapshot, params: ProtectParams) -> Result<ProtectCheckResult, RpcError> {
        let (state, policy) = (&*snapshot.state, &*snapshot.policy);
        let base = base_folder(policy, params.cwd.as_deref());
        Ok(ProtectCheckResult {
            results: params
                .paths
                .iter()
                .map(|p| {
                    let decision =
                        policy.check_protection(&state.resolver, &state.fs, Some(&base), p);
                    ProtectResult {
                        path: p.clone(),
                        is_protected: decision.pattern.is_some(),
                        pattern: decision.pattern,
                        via: decision.via.map(path_via),
                    }
                })
                .collect(),
        })
    }

    fn heavy(params: &ProtectParams) -> bool {
        params.paths.len() > LIGHT_BATCH
    }
}

/// `roo/protect/annotate`.
impl Handler for requests::ProtectAnnotate {
    fn handle(
        snapshot: &Snapshot,
        params: ProtectParams,
    ) -> Result<ProtectAnnotateResult, RpcError> {
        Ok(ProtectAnnotateResult {
            paths: requests::ProtectCheck::handle(snapshot, params)?
                .results
                .into_iter()
                .map(|r| AnnotatedPath {
                    path: r.path,
                    is_protected: r.is_protected,
                })
                .collect(),
        })
    }

    fn heavy(params: &ProtectParams) -> bool {
        params.paths.len() > LIGHT_BATCH
    }
}

/// `roo/protect/instructions`.
impl Handler for requests::ProtectInstructions {
    fn handle(
        snapshot: &Snapshot,
        _params: ProtectInstructionsParams,
    ) -> Result<ProtectInstructionsResult, RpcError> {
        let policy = &*snapshot.policy;
        Ok(ProtectInstructionsResult {
            instructions: policy.protect.instructions(),
            patterns: policy.protect.patterns.clone(),
            message: policy.protect.message().to_owned(),
        })
    }
}
