//! The one place where JSON-RPC errors are made: the one error type handlers return
//! ([`RpcError`], one mapping to JSON-RPC codes and one message form per kind), parameter
//! decoding that names the offending field, panics turned into InternalError, the blocking-pool
//! helper, and the debug switch for test-only methods.
//!
//! ## Decision: Heavy work is bounded and cancellable
//!
//! The framework runs up to 256 handlers at once; `rpc::blocking` admits as many heavy jobs as
//! there are cores (at least 2, `ROO_CONTEXT_HEAVY_SLOTS`), the rest wait their turn, and quick
//! requests never take a slot, so they are answered whatever is queued. A request's work runs with
//! a cancellation flag (`core::cancel`, a thread-local the core's long loops ask between items)
//! that is set when the request's future is dropped, as `$/cancelRequest` does; the slot is held
//! until the work stops. The fold crate does not see the thread-local (it outlines on its own
//! threads), so `FoldOptions::stop` carries the flag and `roo/fold/context` stops between windows
//! of files; a single file's parse stops when its parse worker is killed (within 10 ms of the
//! cancel; such an outline is never cached), and documentSymbol's answer building stops between
//! symbols. Token counting (`counting::CachedCounter`) counts nothing more once cancelled, so
//! `roo/tokens/count`, `roo/context/manage` and `roo/context/willManage` (on the blocking pool now,
//! as its last message can be long) give their slot back at the next text.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};

/// Why a request got no result. Every handler error is one of these; [`From`] below is the one
/// mapping to JSON-RPC codes and messages.
#[derive(Debug, Clone, PartialEq)]
pub enum RpcError {
    /// -32602, message `invalid params: field `<field>`: <message>` (or without the field when
    /// the params as a whole are wrong).
    InvalidParams {
        /// The offending field (`paths[2]`, `options.cwd`), when one is to blame.
        field: Option<String>,
        /// What is wrong with it.
        message: String,
    },
    /// -32603: the server failed (a panic, an I/O error, background work lost).
    Internal(String),
    /// -32803 (LSP `RequestFailed`): a valid request whose work was stopped by a resource cap
    /// (issue 25: a parse worker's memory or time limit, or the worker died). `data.kind` names
    /// the cause (`memoryLimit`, `timeout`, `parseWorkerFailed`, `cancelled`).
    RequestFailed {
        /// The cause, camelCase.
        kind: &'static str,
        /// What happened, for a person.
        message: String,
    },
    /// -32010 `historyOutOfSync` (issue 29): a request named a history state the sidecar does
    /// not hold; `data` is the sidecar's state (`sync::HistoryOutOfSyncData`).
    OutOfSync {
        /// What did not match.
        message: String,
        /// The sidecar's side.
        data: Value,
    },
}

impl RpcError {
    /// Invalid params, naming the field.
    pub fn field(field: impl Into<String>, message: impl std::fmt::Display) -> RpcError {
        RpcError::InvalidParams {
            field: Some(field.into()),
            message: message.to_string(),
        }
    }

    /// Invalid params that no single field is to blame for.
    pub fn params(message: impl std::fmt::Display) -> RpcError {
        RpcError::InvalidParams {
            field: None,
            message: message.to_string(),
        }
    }

    /// An internal error.
    pub fn internal(message: impl std::fmt::Display) -> RpcError {
        RpcError::Internal(message.to_string())
    }
}

impl std::fmt::Display for RpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RpcError::InvalidParams {
                field: Some(field),
                message,
            } => write!(f, "invalid params: field `{field}`: {message}"),
            RpcError::InvalidParams {
                field: None,
                message,
            } => write!(f, "invalid params: {message}"),
            RpcError::Internal(message)
            | RpcError::RequestFailed { message, .. }
            | RpcError::OutOfSync { message, .. } => f.write_str(message),
        }
    }
}

impl From<RpcError> for Error {
    fn from(error: RpcError) -> Error {
        let (code, data) = match &error {
            RpcError::InvalidParams { .. } => (ErrorCode::InvalidParams, None),
            RpcError::Internal(_) => (ErrorCode::InternalError, None),
            RpcError::RequestFailed { kind, .. } => (
                ErrorCode::ServerError(REQUEST_FAILED),
                Some(serde_json::json!({ "kind": kind })),
            ),
            RpcError::OutOfSync { data, .. } => (
                ErrorCode::ServerError(roo_context_protocol::sync::HISTORY_OUT_OF_SYNC),
                Some(data.clone()),
            ),
        };
        Error {
            code,
            message: error.to_string().into(),
            data,
        }
    }
}

/// LSP's `RequestFailed` error code.
pub const REQUEST_FAILED: i64 = -32803;

/// Decodes params, naming the offending field (`paths[2]`) in the error message.
pub fn decode<P: DeserializeOwned>(params: Value) -> std::result::Result<P, RpcError> {
    // A request without params is treated as `{}`, so all-optional params may be omitted.
    let params = if params.is_null() {
        Value::Object(Default::default())
    } else {
        params
    };
    if let Some(field) = path_with_nul(&params) {
        return Err(RpcError::field(
            field,
            "a path must not contain a NUL character",
        ));
    }
    serde_path_to_error::deserialize(params).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        if path == "." || path.is_empty() {
            return RpcError::params(inner);
        }
        // A field that names itself (read from a buffer where serde loses the path, as in an
        // internally tagged enum): joined to the path, `ops[2].index`.
        let message = inner.to_string();
        if let Some(rest) = message.strip_prefix("field `")
            && let Some((field, message)) = rest.split_once("`: ")
        {
            return RpcError::field(format!("{path}.{field}"), message);
        }
        RpcError::field(path, inner)
    })
}

/// Fields that carry file-system paths, at the top of any method's params or in its `options`.
const PATH_FIELDS: [&str; 8] = [
    "path",
    "paths",
    "editedPaths",
    "cwd",
    "newPath",
    "storageDir",
    "files",
    "listedDir",
];

/// The first path field (`paths[2]`, `options.cwd`) holding a NUL character. No OS path can
/// contain one, and a NUL would make the name judged differ from the file opened. Only path
/// fields are looked at: message texts and tool inputs inside histories are data, not paths.
fn path_with_nul(params: &Value) -> Option<String> {
    let Value::Object(map) = params else {
        return None;
    };
    let has_nul = |value: &Value| matches!(value, Value::String(text) if text.contains('\0'));
    for (key, value) in map {
        if key == "options" {
            if let Some(found) = path_with_nul(value) {
                return Some(format!("options.{found}"));
            }
            continue;
        }
        if !PATH_FIELDS.contains(&key.as_str()) {
            continue;
        }
        if has_nul(value) {
            return Some(key.clone());
        }
        if let Value::Array(items) = value {
            for (index, item) in items.iter().enumerate() {
                if has_nul(item) || item.get("path").is_some_and(has_nul) {
                    return Some(format!("{key}[{index}]"));
                }
            }
        }
    }
    None
}

/// Encodes a result.
pub fn encode<R: Serialize>(result: R) -> std::result::Result<Value, RpcError> {
    serde_json::to_value(result)
        .map_err(|e| RpcError::internal(format!("cannot encode result: {e}")))
}

/// Runs a handler future; a panic inside it becomes an InternalError and the server goes on.
pub async fn guarded<F>(method: &'static str, future: F) -> Result<Value>
where
    F: std::future::Future<Output = std::result::Result<Value, RpcError>>,
{
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(result) => result.map_err(Error::from),
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            tracing::error!(method, %detail, "handler panicked");
            Err(RpcError::internal(format!("internal error in {method}: {detail}")).into())
        }
    }
}

/// How many heavy requests run on the blocking pool at once (`ROO_CONTEXT_HEAVY_SLOTS`, else
/// the number of cores, at least 2). More wait their turn, so quick requests, which do not take a
/// slot, are always answered.
fn heavy_slots() -> &'static tokio::sync::Semaphore {
    static SLOTS: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    SLOTS.get_or_init(|| {
        let configured = std::env::var("ROO_CONTEXT_HEAVY_SLOTS")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0);
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        tokio::sync::Semaphore::new(configured.unwrap_or(cores.max(2)))
    })
}

/// Sets the cancellation flag when the request's future is dropped (answered, or cancelled by
/// `$/cancelRequest`, which drops it).
struct CancelOnDrop(Arc<std::sync::atomic::AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

/// Runs CPU- or I/O-heavy work on the blocking pool, one of a bounded number of slots at a time;
/// a panic there becomes an InternalError. The work runs with a cancellation flag
/// ([`roo_context_core::cancel`]) that is set when the request is cancelled, and the slot is held
/// until the work really stops.
pub async fn blocking<R: Send + 'static>(
    work: impl FnOnce() -> R + Send + 'static,
) -> std::result::Result<R, RpcError> {
    blocking_weighed(true, work).await
}

/// [`blocking`], taking a heavy-work slot only when `heavy`: small work (a short path batch)
/// still leaves the async workers but never waits behind heavy requests.
pub async fn blocking_weighed<R: Send + 'static>(
    heavy: bool,
    work: impl FnOnce() -> R + Send + 'static,
) -> std::result::Result<R, RpcError> {
    let lost =
        |e: &dyn std::fmt::Display| RpcError::internal(format!("background work failed: {e}"));
    let permit = if heavy {
        Some(heavy_slots().acquire().await.map_err(|e| lost(&e))?)
    } else {
        None
    };
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let _cancel_on_drop = CancelOnDrop(flag.clone());
    // The permit moves into the work: a cancelled request frees its slot when its work stops.
    let task = tokio::task::spawn_blocking({
        let flag = flag.clone();
        move || {
            let _slot = permit;
            roo_context_core::cancel::with_flag(Some(flag), work)
        }
    });
    task.await.map_err(|e| lost(&e))
}

/// Whether test-only methods are enabled (`ROO_CONTEXT_DEBUG_METHODS=1`).
pub fn debug_methods_enabled() -> bool {
    std::env::var("ROO_CONTEXT_DEBUG_METHODS").is_ok_and(|v| v == "1")
}
