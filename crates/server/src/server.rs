//! The LSP shell: lifecycle (initialize, shutdown, workspace folders, configuration) and the
//! custom `roo/*` methods. Every handler takes what it needs from the state synchronously, before
//! its first `.await`, so state changes apply in the order the client sent them even though the
//! framework runs handlers concurrently.
//!
//! ## Decision: tower-lsp-server 0.23, not tower-lsp 0.20
//!
//! tower-lsp has had no release or commit since August 2023 (lsp-types 0.94, tower 0.4,
//! `async_trait`); the community fork is maintained, stable, uses native `async fn` in traits and
//! newer types. The API is nearly the same.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use roo_context_protocol::methods;
use roo_context_protocol::requests::Lane;
use roo_context_protocol::workspace::{IgnoreDidReloadParams, Settings};
use serde_json::Value;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer, LspService};

use crate::documents::Documents;
use crate::handlers::{Handler, Snapshot, WaitingHandler, fold};
use crate::logging::LogHandle;
use crate::lsp_edge::LineIndex;
use crate::rpc::{blocking, blocking_weighed, debug_methods_enabled, decode, encode, guarded};
use crate::state::SharedState;
use crate::tracker::FileTracker;
use crate::watcher::{self, WatcherNews, WorkspaceWatcher};
use roo_context_fold::OutlineCache;

/// Registers every request of the method table ([`roo_context_protocol::for_each_request!`])
/// with the handler its lane calls for: a `waiting` row needs a [`WaitingHandler`], the others a
/// [`Handler`]. A row without its handler does not compile.
macro_rules! register_rows {
    ($($(#[doc = $doc:literal])* $marker:ident = $name:ident $wire:literal, $params:ty => $result:ty, $lane:ident;)*) => {
        fn register_requests(
            builder: tower_lsp_server::LspServiceBuilder<Backend>,
        ) -> tower_lsp_server::LspServiceBuilder<Backend> {
            use roo_context_protocol::requests::*;
            builder
                $(.custom_method(<$marker as RooRequest>::METHOD, register_rows!(@handler $lane $marker)))*
        }
    };
    (@handler waiting $marker:ident) => { Backend::waiting_request::<$marker> };
    (@handler $lane:ident $marker:ident) => { Backend::request::<$marker> };
}

roo_context_protocol::for_each_request!(register_rows);

enum IgnoreDidReload {}

impl Notification for IgnoreDidReload {
    type Params = IgnoreDidReloadParams;
    const METHOD: &'static str = methods::IGNORE_DID_RELOAD;
}

enum WorkspaceDidWatch {}

impl Notification for WorkspaceDidWatch {
    type Params = roo_context_protocol::workspace::WorkspaceDidWatchParams;
    const METHOD: &'static str = methods::WORKSPACE_DID_WATCH;
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
    histories: Arc<crate::histories::Histories>,
    /// Calibrations per model and termination guards per task (issue 32).
    context_memory: Arc<crate::context_memory::ContextMemory>,
    /// True once the client sent `initialized`: the framework drops a notification sent before
    /// `initialize` is answered, so the watcher's news waits for it.
    client_initialized: Arc<tokio::sync::watch::Sender<bool>>,
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
                outlines: Arc::new(OutlineCache::new(crate::parse_worker::outline_options())),
                tokens: Arc::new(roo_context_tokens::TokenCache::default()),
                files,
                host_cannot_summarize: Arc::new(AtomicBool::new(false)),
                histories: Arc::default(),
                context_memory: Arc::default(),
                client_initialized: Arc::new(tokio::sync::watch::Sender::new(false)),
            }
        });
        let builder = register_requests(builder)
            .custom_method(methods::SETTINGS_UPDATE, Backend::settings_update);
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
        let reloads = self.state.update_settings(update);
        if !reloads.is_empty() {
            let client = self.client.clone();
            tokio::spawn(async move {
                for outcome in reloads {
                    client.send_notification::<IgnoreDidReload>(outcome).await;
                }
            });
        }
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
        let mut initialized = self.client_initialized.subscribe();
        tokio::spawn(async move {
            // The watch starts inside `initialize`; its first news may be ready before the answer.
            if initialized.wait_for(|done| *done).await.is_err() {
                return;
            }
            while let Some(news) = rx.recv().await {
                match news {
                    WatcherNews::Reloaded(outcome) => {
                        client.send_notification::<IgnoreDidReload>(outcome).await;
                    }
                    WatcherNews::Watching { folders, rescanned } => {
                        let client = client.clone();
                        tokio::spawn(async move {
                            if let Some(rescanned) = rescanned {
                                // An error: the tracker is gone (shutting down); say it anyway.
                                let _ = rescanned.await;
                            }
                            client.send_notification::<WorkspaceDidWatch>(folders).await;
                        });
                    }
                }
            }
        });
    }

    /// What every request handler may read, taken before the request's first `.await`.
    fn snapshot(&self) -> Snapshot {
        Snapshot {
            state: self.state.clone(),
            policy: self.state.policy(),
            documents: self.documents.clone(),
            outlines: self.outlines.clone(),
            files: Some(self.files.clone()),
            tokens: self.tokens.clone(),
            host: Some(self.client.clone()),
            host_cannot_summarize: self.host_cannot_summarize.clone(),
            histories: self.histories.clone(),
            context_memory: self.context_memory.clone(),
        }
    }

    /// Runs an `inline` or `blocking` request of the method table.
    async fn request<M: Handler>(&self, params: Value) -> Result<Value> {
        let snapshot = self.snapshot();
        guarded(M::METHOD, async move {
            let params: M::Params = decode(params)?;
            let result = match M::LANE {
                Lane::Inline => M::handle(&snapshot, params)?,
                Lane::Blocking if M::quick(&snapshot, &params) => M::handle(&snapshot, params)?,
                Lane::Blocking | Lane::Waiting => {
                    let heavy = M::heavy(&params);
                    blocking_weighed(heavy, move || M::handle(&snapshot, params)).await??
                }
            };
            encode(result)
        })
        .await
    }

    /// Runs a `waiting` request of the method table.
    async fn waiting_request<M: WaitingHandler>(&self, params: Value) -> Result<Value> {
        let snapshot = self.snapshot();
        guarded(M::METHOD, async move {
            let params: M::Params = decode(params)?;
            encode(M::handle(snapshot, params).await?)
        })
        .await
    }

    async fn settings_update(&self, params: Value) {
        match decode::<Settings>(params) {
            Ok(update) => self.apply_settings(update),
            Err(error) => tracing::warn!(%error, "ignored invalid roo/settings/update"),
        }
    }

    /// Holds one heavy-work slot until cancelled: lets tests fill the blocking pool without
    /// depending on how fast a real heavy request is.
    async fn debug_hold(&self, _params: Value) -> Result<Value> {
        guarded(methods::DEBUG_HOLD, async move {
            blocking(|| {
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
            Some(options) => decode(options).map_err(|e| {
                let mut error = tower_lsp_server::jsonrpc::Error::from(e);
                error.message = format!("initializationOptions: {}", error.message).into();
                error
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
        // The built-in protection compiled before `initialize` is no "last good" configuration.
        self.state.forget_last_good_protection();
        // Settings first: the flavor decides which ignore files the folders are read with.
        self.apply_settings(settings);
        self.state.set_folders(&folders);
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

    async fn initialized(&self, _: InitializedParams) {
        self.client_initialized.send_replace(true);
    }

    async fn shutdown(&self) -> Result<()> {
        self.shutdown_requested.store(true, Ordering::SeqCst);
        if let Ok(mut slot) = self.watcher.lock() {
            slot.take();
        }
        // Answered once every task's state is on disk (`exit` may follow at once).
        self.files.close_all().await;
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
        let options = self.outlines.options().clone();
        let ranges = blocking(move || {
            let (language, text) = document_source(&state, &documents, &params.text_document.uri)?;
            let ranges = roo_context_fold::folding_ranges(language, &text, &options);
            log_truncated("textDocument/foldingRange", &ranges.diagnostics);
            Some(match fold::parse_failure(&ranges.diagnostics) {
                Some(error) => Err(error),
                None => Ok(ranges),
            })
        })
        .await
        .map_err(tower_lsp_server::jsonrpc::Error::from)?
        .transpose()
        .map_err(tower_lsp_server::jsonrpc::Error::from)?;
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
        let options = self.outlines.options().clone();
        let symbols = blocking(move || {
            let (language, text) = document_source(&state, &documents, &params.text_document.uri)?;
            let found = roo_context_fold::document_symbols(language, &text, &options);
            log_truncated("textDocument/documentSymbol", &found.diagnostics);
            if let Some(error) = fold::parse_failure(&found.diagnostics) {
                return Some(Err(error));
            }
            let index = LineIndex::new(&text);
            Some(Ok(found
                .symbols
                .iter()
                // Building the answer is the long part (a 2 MB Markdown file of headers):
                // a cancelled request stops here (its answer is never sent).
                .take_while(|_| !roo_context_core::cancel::cancelled())
                .map(|s| to_lsp_symbol(&index, s))
                .collect::<Vec<_>>()))
        })
        .await
        .map_err(tower_lsp_server::jsonrpc::Error::from)?
        .transpose()
        .map_err(tower_lsp_server::jsonrpc::Error::from)?;
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

/// The LSP answers have no field for it: a capped answer (issue 25) is said in the log.
fn log_truncated(method: &str, diagnostics: &[roo_context_fold::OutlineDiagnostic]) {
    for diagnostic in diagnostics {
        if matches!(
            diagnostic,
            roo_context_fold::OutlineDiagnostic::Truncated { .. }
        ) {
            tracing::warn!("{method}: {diagnostic}");
        }
    }
}

/// The LSP kind of a definition (no JSON round trip per symbol).
fn lsp_symbol_kind(kind: roo_context_fold::DefinitionKind) -> SymbolKind {
    match kind.lsp_symbol_kind() {
        2 => SymbolKind::MODULE,
        5 => SymbolKind::CLASS,
        6 => SymbolKind::METHOD,
        7 => SymbolKind::PROPERTY,
        8 => SymbolKind::FIELD,
        9 => SymbolKind::CONSTRUCTOR,
        10 => SymbolKind::ENUM,
        11 => SymbolKind::INTERFACE,
        12 => SymbolKind::FUNCTION,
        13 => SymbolKind::VARIABLE,
        14 => SymbolKind::CONSTANT,
        15 => SymbolKind::STRING,
        23 => SymbolKind::STRUCT,
        26 => SymbolKind::TYPE_PARAMETER,
        _ => SymbolKind::OBJECT,
    }
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
        kind: lsp_symbol_kind(symbol.kind),
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
