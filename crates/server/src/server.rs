//! The LSP shell: lifecycle (initialize, shutdown, workspace folders, configuration) and the
//! custom `roo/*` methods. Every handler takes what it needs from the state synchronously, before
//! its first `.await`, so state changes apply in the order the client sent them even though the
//! framework runs handlers concurrently.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use roo_context_protocol::methods;
use roo_context_protocol::workspace::{IgnoreDidReloadParams, Settings};
use serde_json::Value;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService};

use crate::documents::Documents;
use crate::handlers::{access, context, files, fold, history};
use crate::logging::LogHandle;
use crate::lsp_edge::LineIndex;
use crate::rpc::{debug_methods_enabled, decode, encode, guarded};
use crate::state::SharedState;
use crate::tracker::FileTracker;
use crate::watcher::{self, WorkspaceWatcher};
use roo_context_fold::OutlineCache;

/// Batches larger than this are decided on the blocking pool.
const INLINE_BATCH: usize = 256;

enum IgnoreDidReload {}

impl Notification for IgnoreDidReload {
    type Params = IgnoreDidReloadParams;
    const METHOD: &'static str = methods::IGNORE_DID_RELOAD;
}

enum FilesDidChange {}

impl Notification for FilesDidChange {
    type Params = roo_context_protocol::files::FileDidChangeParams;
    const METHOD: &'static str = methods::FILES_DID_CHANGE;
}

/// The language server: shared state plus the client handle for notifications.
pub struct Backend {
    client: Client,
    state: Arc<SharedState>,
    shutdown_requested: Arc<AtomicBool>,
    watcher: Mutex<Option<WorkspaceWatcher>>,
    log: Option<LogHandle>,
    /// Text of documents the editor has open.
    documents: Arc<Documents>,
    /// Outlines by file identity and content, shared by every folding feature.
    outlines: Arc<OutlineCache>,
    /// Token counts by content, shared by every feature that counts.
    tokens: Arc<roo_context_tokens::TokenCache>,
    /// Files each task has in context; fed by the watcher and the document notifications.
    files: Arc<FileTracker>,
    /// The host answered `roo/host/summarize` with -32601 (it has no summarizer).
    host_cannot_summarize: Arc<AtomicBool>,
}

fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    uri.to_file_path().map(|p| p.into_owned())
}

fn settings_from_configuration(settings: Value) -> Option<Settings> {
    let inner = settings.get("rooContext").cloned().unwrap_or(settings);
    serde_json::from_value(inner).ok()
}

impl Backend {
    /// Builds the service with every custom method registered.
    pub fn service(
        log: Option<LogHandle>,
        shutdown_requested: Arc<AtomicBool>,
    ) -> (LspService<Backend>, tower_lsp_server::ClientSocket) {
        let builder = LspService::build(|client| {
            let state = Arc::new(SharedState::new(&[], Settings::default()));
            let (files, mut changes) = FileTracker::start(state.clone());
            let notifier = client.clone();
            tokio::spawn(async move {
                while let Some(change) = changes.recv().await {
                    notifier.send_notification::<FilesDidChange>(change).await;
                }
            });
            Backend {
                client,
                state,
                shutdown_requested,
                watcher: Mutex::new(None),
                log,
                documents: Arc::new(Documents::default()),
                outlines: Arc::new(OutlineCache::default()),
                tokens: Arc::new(roo_context_tokens::TokenCache::default()),
                files,
                host_cannot_summarize: Arc::new(AtomicBool::new(false)),
            }
        })
        .custom_method(
            methods::IGNORE_VALIDATE_ACCESS,
            Backend::ignore_validate_access,
        )
        .custom_method(methods::IGNORE_FILTER_PATHS, Backend::ignore_filter_paths)
        .custom_method(
            methods::IGNORE_FORMAT_FILES_LIST,
            Backend::ignore_format_files_list,
        )
        .custom_method(
            methods::IGNORE_VALIDATE_COMMAND,
            Backend::ignore_validate_command,
        )
        .custom_method(methods::IGNORE_INSTRUCTIONS, Backend::ignore_instructions)
        .custom_method(methods::PROTECT_CHECK, Backend::protect_check)
        .custom_method(methods::PROTECT_ANNOTATE, Backend::protect_annotate)
        .custom_method(methods::PROTECT_INSTRUCTIONS, Backend::protect_instructions)
        .custom_method(methods::WORKSPACE_STATUS, Backend::workspace_status)
        .custom_method(methods::SETTINGS_UPDATE, Backend::settings_update)
        .custom_method(methods::FOLD_CONTEXT, Backend::fold_context)
        .custom_method(methods::MENTIONS_PARSE, Backend::mentions_parse)
        .custom_method(
            methods::MENTIONS_PROCESS_USER_CONTENT,
            Backend::mentions_process_user_content,
        )
        .custom_method(
            methods::MENTIONS_RESOLVE_IMAGES,
            Backend::mentions_resolve_images,
        )
        .custom_method(methods::FOLD_OUTLINE, Backend::fold_outline)
        .custom_method(methods::HISTORY_EFFECTIVE, Backend::history_effective)
        .custom_method(methods::HISTORY_MERGE, Backend::history_merge)
        .custom_method(methods::HISTORY_REWIND, Backend::history_rewind)
        .custom_method(methods::TOKENS_COUNT, Backend::tokens_count)
        .custom_method(methods::CONTEXT_MANAGE, Backend::context_manage)
        .custom_method(methods::CONTEXT_WILL_MANAGE, Backend::context_will_manage)
        .custom_method(
            methods::CONTEXT_VERIFY_SUMMARY,
            Backend::context_verify_summary,
        )
        .custom_method(
            methods::CONTEXT_CLASSIFY_ERROR,
            Backend::context_classify_error,
        )
        .custom_method(methods::FILES_TRACK, Backend::files_track)
        .custom_method(
            methods::FILES_MARK_ROO_EDITED,
            Backend::files_mark_roo_edited,
        )
        .custom_method(methods::FILES_READ, Backend::files_read)
        .custom_method(
            methods::FILES_TAKE_RECENTLY_MODIFIED,
            Backend::files_take_recently_modified,
        )
        .custom_method(
            methods::FILES_TAKE_CHECKPOINT_POSSIBLE,
            Backend::files_take_checkpoint_possible,
        )
        .custom_method(methods::FILES_DISPOSE_TASK, Backend::files_dispose_task);
        let builder = if debug_methods_enabled() {
            builder
                .custom_method(methods::DEBUG_PANIC, Backend::debug_panic)
                .custom_method(methods::DEBUG_HOLD, Backend::debug_hold)
        } else {
            builder
        };
        builder.finish()
    }

    fn apply_settings(&self, update: Settings) {
        let level = update.log_level.clone();
        self.state.update_settings(update);
        if let (Some(level), Some(log)) = (level, &self.log)
            && let Err(error) = log.set(&level)
        {
            tracing::warn!(%error, "log level not changed");
        }
    }

    fn restart_watcher(&self) {
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
        let new_watcher = watcher::start(self.state.clone(), tx, Some(self.files.sink()));
        if let Ok(mut slot) = self.watcher.lock() {
            *slot = Some(new_watcher);
        }
        let client = self.client.clone();
        tokio::spawn(async move {
            while let Some(outcome) = rx.recv().await {
                client.send_notification::<IgnoreDidReload>(outcome).await;
            }
        });
    }

    async fn files_track(&self, params: Value) -> Result<Value> {
        guarded(methods::FILES_TRACK, async {
            let params = decode(params)?;
            encode(files::track(&self.files, params).await?)
        })
        .await
    }

    async fn files_mark_roo_edited(&self, params: Value) -> Result<Value> {
        guarded(methods::FILES_MARK_ROO_EDITED, async {
            let params = decode(params)?;
            encode(files::mark_roo_edited(&self.files, params).await?)
        })
        .await
    }

    async fn files_read(&self, params: Value) -> Result<Value> {
        guarded(methods::FILES_READ, async {
            let params = decode(params)?;
            encode(files::files_read(&self.files, params).await?)
        })
        .await
    }

    async fn files_take_recently_modified(&self, params: Value) -> Result<Value> {
        guarded(methods::FILES_TAKE_RECENTLY_MODIFIED, async {
            let params = decode(params)?;
            encode(files::take_recently_modified(&self.files, params).await?)
        })
        .await
    }

    async fn files_take_checkpoint_possible(&self, params: Value) -> Result<Value> {
        guarded(methods::FILES_TAKE_CHECKPOINT_POSSIBLE, async {
            let params = decode(params)?;
            encode(files::take_checkpoint_possible(&self.files, params).await?)
        })
        .await
    }

    async fn files_dispose_task(&self, params: Value) -> Result<Value> {
        guarded(methods::FILES_DISPOSE_TASK, async {
            let params = decode(params)?;
            encode(files::dispose_task(&self.files, params).await?)
        })
        .await
    }

    async fn ignore_validate_access(&self, params: Value) -> Result<Value> {
        guarded(methods::IGNORE_VALIDATE_ACCESS, async {
            let params: roo_context_protocol::access::ValidateAccessParams = decode(params)?;
            let policy = self.state.policy();
            if params.paths.len() <= INLINE_BATCH {
                return encode(access::validate_access(&self.state, &policy, &params));
            }
            let state = self.state.clone();
            let result =
                crate::rpc::blocking(move || access::validate_access(&state, &policy, &params))
                    .await?;
            encode(result)
        })
        .await
    }

    async fn ignore_filter_paths(&self, params: Value) -> Result<Value> {
        guarded(methods::IGNORE_FILTER_PATHS, async {
            let params = decode(params)?;
            let policy = self.state.policy();
            encode(access::filter_paths(&self.state, &policy, &params))
        })
        .await
    }

    /// `roo/ignore/formatFilesList`: judged on the blocking pool (one canonicalization per entry).
    async fn ignore_format_files_list(&self, params: Value) -> Result<Value> {
        guarded(methods::IGNORE_FORMAT_FILES_LIST, async {
            let params: roo_context_protocol::access::FormatFilesListParams = decode(params)?;
            let policy = self.state.policy();
            let state = self.state.clone();
            let result =
                crate::rpc::blocking(move || access::format_files_list(&state, &policy, &params))
                    .await?;
            encode(result)
        })
        .await
    }

    async fn ignore_validate_command(&self, params: Value) -> Result<Value> {
        guarded(methods::IGNORE_VALIDATE_COMMAND, async {
            let params = decode(params)?;
            let policy = self.state.policy();
            encode(access::validate_command(&self.state, &policy, &params))
        })
        .await
    }

    async fn ignore_instructions(&self, params: Value) -> Result<Value> {
        guarded(methods::IGNORE_INSTRUCTIONS, async {
            let params = decode(params)?;
            encode(access::ignore_instructions(&self.state.policy(), &params))
        })
        .await
    }

    async fn protect_check(&self, params: Value) -> Result<Value> {
        guarded(methods::PROTECT_CHECK, async {
            let params = decode(params)?;
            let policy = self.state.policy();
            encode(access::protect_check(&self.state, &policy, &params))
        })
        .await
    }

    async fn protect_annotate(&self, params: Value) -> Result<Value> {
        guarded(methods::PROTECT_ANNOTATE, async {
            let params = decode(params)?;
            let policy = self.state.policy();
            encode(access::protect_annotate(&self.state, &policy, &params))
        })
        .await
    }

    async fn protect_instructions(&self, params: Value) -> Result<Value> {
        guarded(methods::PROTECT_INSTRUCTIONS, async {
            let _: roo_context_protocol::access::ProtectInstructionsParams = decode(params)?;
            encode(access::protect_instructions(&self.state.policy()))
        })
        .await
    }

    async fn workspace_status(&self, params: Value) -> Result<Value> {
        guarded(methods::WORKSPACE_STATUS, async {
            let _: roo_context_protocol::workspace::WorkspaceStatusParams = decode(params)?;
            encode(self.state.status())
        })
        .await
    }

    fn mention_services(&self) -> crate::handlers::mentions::Services {
        crate::handlers::mentions::Services {
            host: Some(self.client.clone()),
            tracker: Some(self.files.clone()),
        }
    }

    async fn mentions_parse(&self, params: Value) -> Result<Value> {
        guarded(methods::MENTIONS_PARSE, async {
            let params = decode(params)?;
            let result =
                crate::handlers::mentions::parse(&self.state, self.mention_services(), params)
                    .await
                    .map_err(crate::rpc::internal)?;
            encode(result)
        })
        .await
    }

    async fn mentions_process_user_content(&self, params: Value) -> Result<Value> {
        guarded(methods::MENTIONS_PROCESS_USER_CONTENT, async {
            let params = decode(params)?;
            let result = crate::handlers::mentions::process_user_content(
                &self.state,
                self.mention_services(),
                params,
            )
            .await
            .map_err(crate::rpc::internal)?;
            encode(result)
        })
        .await
    }

    async fn mentions_resolve_images(&self, params: Value) -> Result<Value> {
        guarded(methods::MENTIONS_RESOLVE_IMAGES, async {
            let params = decode(params)?;
            let result = crate::handlers::mentions::resolve_images(&self.state, params)
                .await
                .map_err(crate::rpc::internal)?;
            encode(result)
        })
        .await
    }

    async fn fold_context(&self, params: Value) -> Result<Value> {
        guarded(methods::FOLD_CONTEXT, async {
            let params: roo_context_protocol::fold::FoldContextParams = decode(params)?;
            let policy = self.state.policy();
            let (state, documents, outlines) = (
                self.state.clone(),
                self.documents.clone(),
                self.outlines.clone(),
            );
            let result = crate::rpc::blocking(move || {
                fold::fold_context(&state, &policy, &documents, &outlines, &params)
            })
            .await?;
            encode(result)
        })
        .await
    }

    async fn fold_outline(&self, params: Value) -> Result<Value> {
        guarded(methods::FOLD_OUTLINE, async {
            let params: roo_context_protocol::fold::FoldOutlineParams = decode(params)?;
            let policy = self.state.policy();
            let (state, documents, outlines) = (
                self.state.clone(),
                self.documents.clone(),
                self.outlines.clone(),
            );
            let result = crate::rpc::blocking(move || {
                fold::fold_outline(&state, &policy, &documents, &outlines, &params)
            })
            .await?;
            match result {
                Ok(outline) => encode(outline),
                Err(error) => Err(tower_lsp_server::jsonrpc::Error::invalid_params(format!(
                    "field `path`: {error}"
                ))),
            }
        })
        .await
    }

    /// Runs a history handler on the blocking pool (histories can be tens of megabytes).
    async fn blocking_history<P, R>(
        &self,
        params: Value,
        work: impl FnOnce(P) -> std::result::Result<R, history::InvalidField> + Send + 'static,
    ) -> Result<Value>
    where
        P: serde::de::DeserializeOwned + Send + 'static,
        R: serde::Serialize + Send + 'static,
    {
        let params: P = decode(params)?;
        let result = crate::rpc::blocking(move || work(params).map(encode)).await?;
        match result {
            Ok(encoded) => encoded,
            Err(history::InvalidField(message)) => {
                Err(tower_lsp_server::jsonrpc::Error::invalid_params(format!(
                    "invalid params: {message}"
                )))
            }
        }
    }

    async fn history_effective(&self, params: Value) -> Result<Value> {
        guarded(
            methods::HISTORY_EFFECTIVE,
            self.blocking_history(params, history::effective),
        )
        .await
    }

    async fn history_merge(&self, params: Value) -> Result<Value> {
        guarded(
            methods::HISTORY_MERGE,
            self.blocking_history(params, history::merge),
        )
        .await
    }

    async fn history_rewind(&self, params: Value) -> Result<Value> {
        guarded(
            methods::HISTORY_REWIND,
            self.blocking_history(params, history::rewind_history),
        )
        .await
    }

    /// `roo/context/manage`: everything the handler needs is taken here, before the first
    /// `.await`; `$/cancelRequest` drops the future (no result, the host's history unchanged).
    async fn context_manage(&self, params: Value) -> Result<Value> {
        let deps = context::ContextDeps {
            state: self.state.clone(),
            policy: self.state.policy(),
            documents: self.documents.clone(),
            outlines: self.outlines.clone(),
            tokens: self.tokens.clone(),
            host_cannot_summarize: self.host_cannot_summarize.clone(),
            tracker: self.files.clone(),
        };
        let client = self.client.clone();
        guarded(methods::CONTEXT_MANAGE, async move {
            let params = decode(params)?;
            encode(context::manage(deps, client, params).await?)
        })
        .await
    }

    /// `roo/context/verifySummary` (issue 19): pure checks; reads the tracker's records.
    async fn context_verify_summary(&self, params: Value) -> Result<Value> {
        let deps = context::ContextDeps {
            state: self.state.clone(),
            policy: self.state.policy(),
            documents: self.documents.clone(),
            outlines: self.outlines.clone(),
            tokens: self.tokens.clone(),
            host_cannot_summarize: self.host_cannot_summarize.clone(),
            tracker: self.files.clone(),
        };
        guarded(methods::CONTEXT_VERIFY_SUMMARY, async move {
            let params = decode(params)?;
            encode(context::verify_summary(deps, params).await?)
        })
        .await
    }

    async fn context_will_manage(&self, params: Value) -> Result<Value> {
        guarded(methods::CONTEXT_WILL_MANAGE, async {
            let params = decode(params)?;
            encode(context::will_manage(&self.tokens, params)?)
        })
        .await
    }

    async fn context_classify_error(&self, params: Value) -> Result<Value> {
        guarded(methods::CONTEXT_CLASSIFY_ERROR, async {
            encode(context::classify_error(decode(params)?))
        })
        .await
    }

    async fn tokens_count(&self, params: Value) -> Result<Value> {
        let cache = self.tokens.clone();
        guarded(
            methods::TOKENS_COUNT,
            self.blocking_history(params, move |p| history::count_tokens(&cache, p)),
        )
        .await
    }

    async fn settings_update(&self, params: Value) {
        match decode::<Settings>(params) {
            Ok(update) => self.apply_settings(update),
            Err(error) => {
                tracing::warn!(message = %error.message, "ignored invalid roo/settings/update")
            }
        }
    }

    /// Holds one heavy-work slot until cancelled: lets tests fill the blocking pool without
    /// depending on how fast a real heavy request is.
    async fn debug_hold(&self, _params: Value) -> Result<Value> {
        guarded(methods::DEBUG_HOLD, async move {
            crate::rpc::blocking(|| {
                while !roo_context_core::cancel::cancelled() {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
            })
            .await?;
            Ok(Value::Null)
        })
        .await
    }

    async fn debug_panic(&self, params: Value) -> Result<Value> {
        guarded(methods::DEBUG_PANIC, async move {
            let message = params
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("requested panic")
                .to_owned();
            panic!("{message}");
        })
        .await
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let settings: Settings = match params.initialization_options.clone() {
            Some(options) => decode(options).map_err(|mut e| {
                e.message = format!("initializationOptions: {}", e.message).into();
                e
            })?,
            None => Settings::default(),
        };
        let mut folders: Vec<PathBuf> = params
            .workspace_folders
            .iter()
            .flatten()
            .filter_map(|f| uri_to_path(&f.uri))
            .collect();
        #[allow(deprecated)]
        if folders.is_empty()
            && let Some(root) = params.root_uri.as_ref().and_then(uri_to_path)
        {
            folders.push(root);
        }
        self.state.set_folders(&folders);
        // The built-in protection compiled before `initialize` is no "last good" configuration.
        self.state.forget_last_good_protection();
        self.apply_settings(settings);
        // Watch before answering, so a change made right after `initialize` is never missed.
        self.restart_watcher();
        // Load the tokenizer tables in the background: `initialize` stays fast and memory stays
        // low until they are needed; the first count waits for them if they are not ready.
        if self.state.settings().warm_tokenizer != Some(false) {
            roo_context_tokens::warm();
        }
        tracing::info!(folders = folders.len(), "initialized");
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                workspace: Some(WorkspaceServerCapabilities {
                    workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                        supported: Some(true),
                        change_notifications: Some(OneOf::Left(true)),
                    }),
                    file_operations: None,
                }),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::FULL),
                        // Saves feed the file context tracker.
                        save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                        ..TextDocumentSyncOptions::default()
                    },
                )),
                folding_range_provider: Some(FoldingRangeProviderCapability::Simple(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                experimental: Some(serde_json::json!({
                    "rooContext": { "methods": methods::ALL_REQUESTS }
                })),
                ..ServerCapabilities::default()
            },
            server_info: Some(ServerInfo {
                name: "roo-context".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            ..InitializeResult::default()
        })
    }

    async fn initialized(&self, _: InitializedParams) {}

    async fn shutdown(&self) -> Result<()> {
        self.shutdown_requested.store(true, Ordering::SeqCst);
        if let Ok(mut slot) = self.watcher.lock() {
            slot.take();
        }
        Ok(())
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        let added: Vec<PathBuf> = params
            .event
            .added
            .iter()
            .filter_map(|f| uri_to_path(&f.uri))
            .collect();
        let removed: Vec<PathBuf> = params
            .event
            .removed
            .iter()
            .filter_map(|f| uri_to_path(&f.uri))
            .collect();
        self.state.change_folders(&added, &removed);
        self.restart_watcher();
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        match settings_from_configuration(params.settings) {
            Some(update) => self.apply_settings(update),
            None => {
                tracing::warn!("ignored workspace/didChangeConfiguration with unusable settings")
            }
        }
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        if let Some(path) = uri_to_path(&params.text_document.uri) {
            self.documents.set(path, params.text_document.text);
        }
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Full sync: the last change carries the whole text.
        if let (Some(path), Some(change)) = (
            uri_to_path(&params.text_document.uri),
            params.content_changes.into_iter().last(),
        ) {
            self.files.sink().buffer_changed(&path, &change.text);
            self.documents.set(path, change.text);
        }
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        if let Some(path) = uri_to_path(&params.text_document.uri) {
            self.documents.close(&path);
        }
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        if let Some(path) = uri_to_path(&params.text_document.uri) {
            self.files.sink().disk_changed(&path);
        }
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let sink = self.files.sink();
        for change in params.changes {
            if let Some(path) = uri_to_path(&change.uri) {
                sink.disk_changed(&path);
            }
        }
    }

    async fn folding_range(&self, params: FoldingRangeParams) -> Result<Option<Vec<FoldingRange>>> {
        // Reading the file is I/O: it happens on the blocking pool with the parse.
        let (state, documents) = (self.state.clone(), self.documents.clone());
        let ranges = crate::rpc::blocking(move || {
            let (language, text) = document_source(&state, &documents, &params.text_document.uri)?;
            Some(roo_context_fold::folding_ranges(
                language,
                &text,
                &Default::default(),
            ))
        })
        .await?;
        let Some(ranges) = ranges else {
            return Ok(None);
        };
        Ok(Some(
            ranges
                .ranges
                .iter()
                .map(|r| FoldingRange {
                    start_line: r.start_line,
                    end_line: r.end_line,
                    kind: Some(match r.kind {
                        roo_context_fold::FoldingKind::Comment => FoldingRangeKind::Comment,
                        roo_context_fold::FoldingKind::Imports => FoldingRangeKind::Imports,
                        roo_context_fold::FoldingKind::Region => FoldingRangeKind::Region,
                    }),
                    ..FoldingRange::default()
                })
                .collect(),
        ))
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        let (state, documents) = (self.state.clone(), self.documents.clone());
        let symbols = crate::rpc::blocking(move || {
            let (language, text) = document_source(&state, &documents, &params.text_document.uri)?;
            let found = roo_context_fold::document_symbols(language, &text, &Default::default());
            let index = LineIndex::new(&text);
            Some(
                found
                    .symbols
                    .iter()
                    .map(|s| to_lsp_symbol(&index, s))
                    .collect::<Vec<_>>(),
            )
        })
        .await?;
        Ok(symbols.map(DocumentSymbolResponse::Nested))
    }
}

/// The open document's (or file's) language and text, when the access rule allows it.
fn document_source(
    state: &SharedState,
    documents: &Documents,
    uri: &Uri,
) -> Option<(roo_context_fold::Language, String)> {
    let path = uri_to_path(uri)?;
    let policy = state.policy();
    fold::readable_source(
        state,
        &policy,
        documents,
        policy.base(),
        &path.to_string_lossy(),
    )
    .ok()
    .map(|(language, _, text)| (language, text))
}

#[allow(deprecated)] // `deprecated` is a required field of the LSP type
fn to_lsp_symbol(
    index: &LineIndex<'_>,
    symbol: &roo_context_fold::DocumentSymbol,
) -> DocumentSymbol {
    // The engine caps nesting depth, so this recursion is bounded.
    DocumentSymbol {
        name: if symbol.name.is_empty() {
            "<anonymous>".into()
        } else {
            symbol.name.clone()
        },
        detail: Some(symbol.kind.as_str().to_owned()),
        kind: serde_json::from_value(serde_json::json!(symbol.kind.lsp_symbol_kind()))
            .unwrap_or(SymbolKind::OBJECT),
        tags: None,
        deprecated: None,
        range: index.range(&symbol.range),
        selection_range: index.range(&symbol.selection_range),
        children: (!symbol.children.is_empty()).then(|| {
            symbol
                .children
                .iter()
                .map(|c| to_lsp_symbol(index, c))
                .collect()
        }),
    }
}
