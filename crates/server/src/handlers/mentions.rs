//! `roo/mentions/parse` and `roo/mentions/processUserContent`: the core plans and reads files on
//! the blocking pool; git runs as a real process; `@problems`, `@terminal` and URLs are asked of
//! the host with `roo/host/resolveMention` under a timeout. A failed fetch becomes the original's
//! error text for that mention and never stops the rest of the message. The CLI reuses this with
//! no host.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::join_all;
use roo_context_core::access::Policy;
use roo_context_core::fs::OsFs;
use roo_context_core::mentions::git::{
    COMMIT_INFO_FORMAT, GIT_FILTERABLE_DIFF_ARGS, GIT_NOT_INSTALLED, NOT_A_GIT_REPOSITORY,
    filter_diff, filter_stat, filter_status, format_commit_info, format_working_state,
};
use roo_context_core::mentions::{
    self as core, Fetch, Fetched, FolderCommandCatalog, MentionReader, ParsedMentions,
    TextExpansion, assemble, plan_mentions, user_content_texts, walk_user_content,
};
use roo_context_core::tracker::RecordSource;
use roo_context_protocol::mentions::*;
use roo_context_protocol::methods;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::request::Request;

use roo_context_protocol::requests;
use roo_context_protocol::workspace::Flavor;

use super::{Handler, Snapshot, WaitingHandler, base_folder};
use crate::host_call::{HostCallError, call_host};
use crate::rpc::RpcError;
use crate::state::SharedState;
use crate::tracker::FileTracker;

/// How long the host gets for one mention unless the request says otherwise.
pub const DEFAULT_HOST_TIMEOUT_MS: u64 = 10_000;

/// The server-to-client request for host-only mentions.
pub enum ResolveMention {}

impl Request for ResolveMention {
    type Params = ResolveMentionParams;
    type Result = ResolveMentionResult;
    const METHOD: &'static str = methods::HOST_RESOLVE_MENTION;
}

/// Everything one parse needs, taken from the state before the first `.await`.
#[derive(Clone)]
struct Context {
    state: Arc<SharedState>,
    /// The access rule in force when the request arrived (blocking work judges by it, not by a
    /// later one).
    policy: Arc<Policy>,
    host: Option<Client>,
    tracker: Option<Arc<FileTracker>>,
    cwd: PathBuf,
    home: Option<PathBuf>,
    options: MentionOptions,
}

/// The editor connection and the file context tracker, both absent on the command line.
#[derive(Clone, Default)]
pub struct Services {
    /// Where `roo/host/resolveMention` goes.
    pub host: Option<Client>,
    /// Records read files as `file_mentioned` when the request names a task.
    pub tracker: Option<Arc<FileTracker>>,
}

impl Services {
    fn of(snapshot: &Snapshot) -> Services {
        Services {
            host: snapshot.host.clone(),
            tracker: snapshot.files.clone(),
        }
    }
}

fn context(state: &Arc<SharedState>, services: Services, options: MentionOptions) -> Context {
    let policy = state.policy();
    let cwd = base_folder(&policy, options.cwd.as_deref());
    Context {
        state: state.clone(),
        policy,
        host: services.host,
        tracker: services.tracker,
        cwd,
        home: std::env::var_os("HOME").map(PathBuf::from),
        options,
    }
}

fn to_wire(parsed: ParsedMentions) -> ParseMentionsResult {
    ParseMentionsResult {
        text: parsed.text,
        content_blocks: parsed
            .content_blocks
            .into_iter()
            .map(|b| MentionContentBlock {
                block_type: match b.block_type {
                    core::BlockType::File => MentionBlockType::File,
                    core::BlockType::Folder => MentionBlockType::Folder,
                },
                path: b.path,
                content: b.content,
                metadata: b.metadata.map(|m| MentionContentMetadata {
                    total_lines: m.total_lines,
                    returned_lines: m.returned_lines,
                    was_truncated: m.was_truncated,
                    lines_shown: m.lines_shown,
                }),
            })
            .collect(),
        slash_command_help: parsed.slash_command_help,
        mode: parsed.mode,
        diagnostics: parsed
            .diagnostics
            .into_iter()
            .map(|d| MentionDiagnostic {
                code: d.code,
                message: d.message,
            })
            .collect(),
        mentioned_files: parsed.mentioned_files,
    }
}

/// Plans the text and reads every path mention (blocking work).
fn plan_and_read(ctx: &Context, text: &str) -> (core::MentionPlan, Vec<Option<Fetched>>) {
    let fs = OsFs;
    let policy = &ctx.policy;
    let catalog = FolderCommandCatalog::new(
        &fs,
        policy,
        &ctx.state.resolver,
        Some(&ctx.cwd),
        ctx.home.as_deref(),
    )
    .with_mode(
        ctx.options
            .current_mode
            .as_deref()
            .unwrap_or(core::DEFAULT_MODE),
    );
    let mut plan = plan_mentions(text, &catalog);
    if !ctx.options.fetch_urls.unwrap_or(true) {
        // The URL keeps its quoted reference in the text; nothing is asked and no section added.
        plan.fetches.retain(|fetch| !matches!(fetch, Fetch::Url(_)));
    }
    let reader = MentionReader {
        fs: &fs,
        policy,
        resolver: &ctx.state.resolver,
        cwd: &ctx.cwd,
        show_ignored_files: ctx.options.show_roo_ignored_files.unwrap_or(false),
        zoo_wording: ctx.state.settings().flavor == Some(Flavor::Zoo),
    };
    let files = plan
        .fetches
        .iter()
        .map(|fetch| match fetch {
            Fetch::Path(p) => Some(Fetched::Path(reader.read_path_mention(p))),
            _ => None,
        })
        .collect();
    (plan, files)
}

/// Settings that keep git's output what the filters parse, whatever the user's configuration:
/// colour codes would hide the `diff --git` headers that sections are judged by, and
/// `diff.relative` would make diff paths relative to the folder git runs in rather than to the
/// repository's top, where they are judged.
const GIT_PARSEABLE_OUTPUT: [&str; 8] = [
    "-c",
    "color.ui=never",
    "-c",
    "color.diff=never",
    "-c",
    "color.status=never",
    "-c",
    "diff.relative=false",
];

/// Runs `git` in `cwd`; `Err` carries Node's `exec` wording (`Command failed: ...`).
fn git(cwd: &Path, args: &[&str]) -> Result<String, String> {
    let output = std::process::Command::new("git")
        .args(GIT_PARSEABLE_OUTPUT)
        .args(args)
        .current_dir(cwd)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_PAGER", "cat")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("spawn git: {e}"))?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(format!(
            "Command failed: git {}\n{}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim_end()
        ))
    }
}

/// Runs `git` in `cwd` with the repository's attributes switched off (`--attr-source` set to
/// the empty tree, git 2.40 or later): `.gitattributes` can name filter and diff drivers whose
/// commands run while git diffs a working tree (`filter=x` with `filter.x.clean = cat
/// secrets/key -` in `.git/config`, both files an agent can write), and their output would show
/// as the content of an allowed path. An older git refuses the option, and the mention then says
/// it failed rather than show what it cannot vouch for.
fn git_without_attributes(cwd: &Path, args: &[&str]) -> Result<String, String> {
    // The empty tree in the repository's own hash (SHA-1 or SHA-256).
    let empty_tree = git(cwd, &["hash-object", "-t", "tree", "/dev/null"])?;
    let attr_source = format!("--attr-source={}", empty_tree.trim());
    let mut all = vec![attr_source.as_str()];
    all.extend_from_slice(args);
    git(cwd, &all)
}

/// `Some(message)` when git cannot be asked at all (not installed, not a repository).
fn git_unavailable(cwd: &Path) -> Option<&'static str> {
    if git(cwd, &["--version"]).is_err() {
        return Some(GIT_NOT_INSTALLED);
    }
    if git(cwd, &["rev-parse", "--git-dir"]).is_err() {
        return Some(NOT_A_GIT_REPOSITORY);
    }
    None
}

/// The judge of repository-relative git paths: the access rule, relative to `base`.
fn git_path_judge(state: &SharedState, base: PathBuf) -> impl Fn(&str) -> bool + '_ {
    let policy = state.policy();
    move |path: &str| {
        !path.contains('\0')
            && policy
                .check_access(&state.resolver, &state.fs, Some(&base), path)
                .allowed()
    }
}

/// The repository's top folder, which diff paths are relative to.
fn git_top(cwd: &Path) -> Result<PathBuf, String> {
    git(cwd, &["rev-parse", "--show-toplevel"]).map(|top| PathBuf::from(top.trim_end()))
}

/// The original's `getWorkingState`, without blocked paths.
pub fn working_state(state: &SharedState, cwd: &Path) -> String {
    if let Some(message) = git_unavailable(cwd) {
        return message.to_owned();
    }
    let result = git_without_attributes(
        cwd,
        &[
            "-c",
            "status.relativePaths=true",
            "status",
            "--short",
            "--no-renames",
        ],
    )
    .and_then(|status| {
        let status = filter_status(&status, &git_path_judge(state, cwd.to_path_buf()));
        if status.trim().is_empty() {
            return Ok(format_working_state(&status, ""));
        }
        let top = git_top(cwd)?;
        let mut args = vec!["diff"];
        args.extend(GIT_FILTERABLE_DIFF_ARGS);
        args.push("HEAD");
        git_without_attributes(cwd, &args).map(|diff| {
            let diff = filter_diff(&diff, &git_path_judge(state, top));
            format_working_state(&status, &diff)
        })
    });
    let text = result.unwrap_or_else(|message| format!("Failed to get working state: {message}"));
    // Git's output (file names, contents) is not the host's text: its own U+FDD0 stays one.
    roo_context_core::wire_text::encode_text(&text).into_owned()
}

/// The original's `getCommitInfo`, without blocked paths.
pub fn commit_info(state: &SharedState, cwd: &Path, hash: &str) -> String {
    if let Some(message) = git_unavailable(cwd) {
        return message.to_owned();
    }
    let format = format!("--format={COMMIT_INFO_FORMAT}");
    // A hex name may be a blob or a tree, whose `git show` is its raw content (a blocked file's
    // bytes) with no diff header to judge it by: only a commit is shown, by its full id.
    let commit = git(
        cwd,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{hash}^{{commit}}"),
        ],
    )
    .map(|id| id.trim().to_owned())
    .map_err(|_| format!("{hash} is not a commit"));
    let result = commit.and_then(|commit| {
        let hash = commit.as_str();
        let info = git(cwd, &["show", &format, "--no-patch", hash])?;
        let top = git_top(cwd)?;
        let judge = git_path_judge(state, top);
        let mut stat_args = vec!["show", "--stat=100000,100000", "--format="];
        stat_args.extend(GIT_FILTERABLE_DIFF_ARGS);
        stat_args.push(hash);
        let stats = filter_stat(&git_without_attributes(cwd, &stat_args)?, &judge);
        let mut diff_args = vec!["show", "--format="];
        diff_args.extend(GIT_FILTERABLE_DIFF_ARGS);
        diff_args.push(hash);
        let diff = filter_diff(&git_without_attributes(cwd, &diff_args)?, &judge);
        Ok(format_commit_info(&info, &stats, &diff))
    });
    let text = result.unwrap_or_else(|message| format!("Failed to get commit info: {message}"));
    // Git's output (file names, contents) is not the host's text: its own U+FDD0 stays one.
    roo_context_core::wire_text::encode_text(&text).into_owned()
}

/// Asks the host; the error message names what went wrong, the diagnostic says it for machines.
async fn ask_host(
    ctx: &Context,
    kind: HostMentionKind,
    value: &str,
) -> (Result<String, String>, Option<core::MentionDiagnostic>) {
    let Some(client) = &ctx.host else {
        let message = "no editor host is connected to resolve it".to_owned();
        return (
            Err(message.clone()),
            Some(core::MentionDiagnostic::new(
                "hostUnavailable",
                format!("@{value}: {message}"),
            )),
        );
    };
    let timeout_ms = ctx
        .options
        .host_timeout_ms
        .unwrap_or(DEFAULT_HOST_TIMEOUT_MS);
    let params = ResolveMentionParams {
        kind,
        value: value.to_owned(),
        cwd: ctx.cwd.to_string_lossy().into_owned(),
        task_id: ctx.options.task_id.clone(),
        include_diagnostic_messages: ctx.options.include_diagnostic_messages.unwrap_or(true),
        max_diagnostic_messages: ctx.options.max_diagnostic_messages.unwrap_or(50),
        metadata: ctx.options.metadata.clone(),
    };
    let call = call_host::<ResolveMention>(client, params, Duration::from_millis(timeout_ms));
    match call.await {
        Ok(result) => (Ok(result.content), None),
        Err(HostCallError::Failed(error)) => {
            let message = format!(
                "the host could not resolve it: {} (code {})",
                error.message,
                error.code.code()
            );
            let diagnostic =
                core::MentionDiagnostic::new("hostError", format!("@{value}: {message}"));
            (Err(message), Some(diagnostic))
        }
        Err(HostCallError::TimedOut) => {
            let message = format!(
                "the host did not answer {} within {timeout_ms} ms",
                methods::HOST_RESOLVE_MENTION
            );
            let diagnostic =
                core::MentionDiagnostic::new("hostTimeout", format!("@{value}: {message}"));
            (Err(message), Some(diagnostic))
        }
    }
}

async fn blocking<R: Send + 'static>(
    work: impl FnOnce() -> R + Send + 'static,
) -> Result<R, String> {
    crate::rpc::blocking(work).await.map_err(|e| e.to_string())
}

async fn fetch_other(ctx: &Context, fetch: &Fetch) -> (Fetched, Option<core::MentionDiagnostic>) {
    let (value, diagnostic) = match fetch {
        Fetch::Path(_) => unreachable!("paths are read with the plan"),
        Fetch::GitChanges => {
            let (state, cwd) = (ctx.state.clone(), ctx.cwd.clone());
            (blocking(move || working_state(&state, &cwd)).await, None)
        }
        Fetch::Commit(hash) => {
            let (state, cwd, hash) = (ctx.state.clone(), ctx.cwd.clone(), hash.clone());
            (
                blocking(move || commit_info(&state, &cwd, &hash)).await,
                None,
            )
        }
        Fetch::Problems => ask_host(ctx, HostMentionKind::Problems, "problems").await,
        Fetch::Terminal => ask_host(ctx, HostMentionKind::Terminal, "terminal").await,
        Fetch::Url(url) => ask_host(ctx, HostMentionKind::Url, url).await,
    };
    (Fetched::Text(value), diagnostic)
}

async fn parse_text(ctx: &Context, text: String) -> Result<ParsedMentions, String> {
    let planning = ctx.clone();
    let (plan, files) = blocking(move || plan_and_read(&planning, &text)).await?;
    let others = join_all(
        plan.fetches
            .iter()
            .filter(|f| !matches!(f, Fetch::Path(_)))
            .map(|fetch| fetch_other(ctx, fetch)),
    )
    .await;
    let mut others = others.into_iter();
    let mut diagnostics = Vec::new();
    let fetched: Vec<Fetched> = files
        .into_iter()
        .map(|file| match file {
            Some(file) => file,
            None => {
                let (value, diagnostic) = others.next().expect("one value per non-path fetch");
                diagnostics.extend(diagnostic);
                value
            }
        })
        .collect();
    let mut parsed = assemble(plan, fetched);
    parsed.diagnostics.extend(diagnostics);
    let tracking = track_mentioned_files(ctx, &parsed.mentioned_files).await;
    parsed.diagnostics.extend(tracking);
    Ok(parsed)
}

/// Records every file a mention read as `file_mentioned` for the task in `taskId` (opened from
/// `storageDir` when it is not open yet). Without a task or a tracker nothing is recorded and the
/// files are only returned in `mentionedFiles`. A tracking failure is a diagnostic, never an
/// error of the parse.
async fn track_mentioned_files(ctx: &Context, files: &[String]) -> Vec<core::MentionDiagnostic> {
    let (Some(tracker), Some(task_id)) = (&ctx.tracker, &ctx.options.task_id) else {
        return Vec::new();
    };
    let storage = ctx.options.storage_dir.as_deref().map(Path::new);
    let mut diagnostics = Vec::new();
    for file in files {
        if let Err(error) = tracker
            .track(
                task_id,
                storage,
                file,
                RecordSource::FileMentioned,
                None,
                None,
                false,
            )
            .await
        {
            diagnostics.push(core::MentionDiagnostic::new(
                "trackingFailed",
                format!("{file} was not recorded as file_mentioned: {error}"),
            ));
        }
    }
    diagnostics
}

/// `roo/mentions/parse`.
pub async fn parse(
    state: &Arc<SharedState>,
    services: Services,
    params: ParseMentionsParams,
) -> Result<ParseMentionsResult, String> {
    let ctx = context(state, services, params.options);
    parse_text(&ctx, params.text).await.map(to_wire)
}

/// `roo/mentions/processUserContent`: texts are parsed one after the other, in input order, so
/// the mode is the first one in the message (not the first to finish, as in the original).
pub async fn process_user_content(
    state: &Arc<SharedState>,
    services: Services,
    params: ProcessUserContentParams,
) -> Result<ProcessUserContentResult, String> {
    let ctx = context(state, services, params.options);
    let mut expansions = Vec::new();
    let mut mode = None;
    let mut diagnostics = Vec::new();
    let mut mentioned_files: Vec<String> = Vec::new();
    for text in user_content_texts(&params.content) {
        let parsed = parse_text(&ctx, text).await?;
        expansions.push(TextExpansion::from(&parsed));
        mode = mode.or(parsed.mode);
        diagnostics.extend(parsed.diagnostics.into_iter().map(|d| MentionDiagnostic {
            code: d.code,
            message: d.message,
        }));
        for file in parsed.mentioned_files {
            if !mentioned_files.contains(&file) {
                mentioned_files.push(file);
            }
        }
    }
    let mut expansions = expansions.into_iter();
    let content = walk_user_content(&params.content, &mut |_| expansions.next());
    let changed = content != params.content;
    Ok(ProcessUserContentResult {
        content,
        mode,
        changed,
        diagnostics,
        mentioned_files,
    })
}

/// `roo/mentions/parse`.
impl WaitingHandler for requests::MentionsParse {
    async fn handle(
        snapshot: Snapshot,
        params: ParseMentionsParams,
    ) -> Result<ParseMentionsResult, RpcError> {
        parse(&snapshot.state, Services::of(&snapshot), params)
            .await
            .map_err(RpcError::internal)
    }
}

/// `roo/mentions/processUserContent`.
impl WaitingHandler for requests::MentionsProcessUserContent {
    async fn handle(
        snapshot: Snapshot,
        params: ProcessUserContentParams,
    ) -> Result<ProcessUserContentResult, RpcError> {
        process_user_content(&snapshot.state, Services::of(&snapshot), params)
            .await
            .map_err(RpcError::internal)
    }
}

/// `roo/mentions/resolveImages`: image mentions read as data URLs (blocking lane).
impl Handler for requests::MentionsResolveImages {
    fn handle(
        snapshot: &Snapshot,
        params: ResolveImagesParams,
    ) -> Result<ResolveImagesResult, RpcError> {
        let cwd = snapshot.base(params.cwd.as_deref());
        let policy = &snapshot.policy;
        let options = core::images::ImageOptions {
            cwd: &cwd,
            supports_images: params.supports_images.unwrap_or(true),
            max_image_file_size_mb: params
                .max_image_file_size
                .unwrap_or(core::images::DEFAULT_MAX_IMAGE_FILE_SIZE_MB),
            max_total_image_size_mb: params
                .max_total_image_size
                .unwrap_or(core::images::DEFAULT_MAX_TOTAL_IMAGE_SIZE_MB),
        };
        let images = core::resolve_image_mentions(
            &OsFs,
            policy,
            &snapshot.state.resolver,
            &params.text,
            params.images.as_deref().unwrap_or_default(),
            &options,
        );
        Ok(ResolveImagesResult {
            text: params.text,
            images,
        })
    }
}
