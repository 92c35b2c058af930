//! Request handlers, one module per method family, in one shape: a handler gets a [`Snapshot`]
//! of what it may read (taken before the request's first `.await`, so state changes apply in
//! client order) and its params, and returns its result or an [`RpcError`]. Lanes (inline,
//! blocking, waiting) come from the method table in the protocol crate; `server.rs` registers
//! every row with [`Handler`] or [`WaitingHandler`]. The CLI reuses the functions.
//!
//! ## Decision: Ordering
//!
//! The framework may run up to 256 handlers concurrently, but it creates and first polls handler
//! futures in arrival order. Every handler reads or changes state synchronously before its first
//! `.await` (a snapshot `Arc<Policy>` for readers; a write under one lock for changes), so state
//! changes apply in client order. `tests/blackbox/ordering.rs` floods 800 interleaved messages and
//! checks each answer saw exactly the updates sent before it.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use roo_context_core::access::Policy;
use roo_context_core::path::normalize_lexically;
use roo_context_fold::OutlineCache;
use roo_context_protocol::requests::RooRequest;
use roo_context_tokens::TokenCache;
use tower_lsp_server::Client;

use crate::documents::Documents;
use crate::rpc::RpcError;
use crate::state::SharedState;
use crate::tracker::FileTracker;

pub mod access;
pub mod context;
pub mod files;
pub mod fold;
pub mod history;
pub mod hygiene;
pub mod mentions;
pub mod output;
pub mod sync;
pub mod workspace;

/// Everything a handler may read, taken synchronously when the request arrives.
#[derive(Clone)]
pub struct Snapshot {
    /// Workspace state: folders, resolver, file system, settings.
    pub state: Arc<SharedState>,
    /// The access rule and protection in force when the request arrived.
    pub policy: Arc<Policy>,
    /// Open documents (their unsaved text wins over the disk).
    pub documents: Arc<Documents>,
    /// Outlines shared by every folding feature.
    pub outlines: Arc<OutlineCache>,
    /// Token counts by content, shared by every feature that counts.
    pub tokens: Arc<TokenCache>,
    /// The file context tracker; absent on the command line.
    pub files: Option<Arc<FileTracker>>,
    /// The editor host for server-to-client requests; absent on the command line.
    pub host: Option<Client>,
    /// Set once the host answered `roo/host/summarize` with -32601 (it has no summarizer).
    pub host_cannot_summarize: Arc<AtomicBool>,
    /// Histories held in the sidecar (issue 29).
    pub histories: Arc<crate::histories::Histories>,
    /// Calibrations per model and termination guards per task (issue 32).
    pub context_memory: Arc<crate::context_memory::ContextMemory>,
}

impl Snapshot {
    /// A snapshot of `state` with fresh caches and no host or tracker (the command line).
    pub fn detached(state: Arc<SharedState>) -> Snapshot {
        Snapshot {
            policy: state.policy(),
            state,
            documents: Arc::default(),
            outlines: Arc::new(OutlineCache::new(crate::parse_worker::outline_options())),
            tokens: Arc::default(),
            files: None,
            host: None,
            host_cannot_summarize: Arc::default(),
            histories: Arc::default(),
            context_memory: Arc::default(),
        }
    }

    /// The folder a request's relative paths are resolved against: its `cwd` (relative to the
    /// first workspace folder) or the first workspace folder.
    pub fn base(&self, cwd: Option<&str>) -> PathBuf {
        base_folder(&self.policy, cwd)
    }

    /// The file tracker, or an internal error where none runs.
    pub fn tracker(&self) -> Result<&Arc<FileTracker>, RpcError> {
        self.files
            .as_ref()
            .ok_or_else(|| RpcError::internal("no file tracker is running"))
    }
}

/// The one rule for the folder relative paths are resolved against (see [`Snapshot::base`]).
pub fn base_folder(policy: &Policy, cwd: Option<&str>) -> PathBuf {
    match cwd {
        Some(cwd) => normalize_lexically(policy.base(), cwd),
        None => policy.base().to_path_buf(),
    }
}

/// A request answered from a snapshot without waiting (lanes `inline` and `blocking`).
pub trait Handler: RooRequest {
    /// The answer.
    fn handle(snapshot: &Snapshot, params: Self::Params) -> Result<Self::Result, RpcError>;

    /// Whether this call takes one of the bounded heavy-work slots (blocking lane only): small
    /// path batches run on the blocking pool without one, so quick requests are never queued
    /// behind heavy ones.
    fn heavy(_params: &Self::Params) -> bool {
        true
    }

    /// Whether this call is quick enough to answer on the runtime's thread (blocking lane only),
    /// skipping the hop to the blocking pool and back: two thread wakes that, from a Node host,
    /// were most of a one-path round trip. Only for work bounded by a few system calls on
    /// workspace paths; anything that could wait (a path outside the workspace may sit on a
    /// hung mount) keeps the pool, so no request can hold a runtime thread.
    fn quick(_snapshot: &Snapshot, _params: &Self::Params) -> bool {
        false
    }
}

/// A request that waits on the host or on a task actor (lane `waiting`).
pub trait WaitingHandler: RooRequest {
    /// The answer.
    fn handle(
        snapshot: Snapshot,
        params: Self::Params,
    ) -> impl Future<Output = Result<Self::Result, RpcError>> + Send;
}
