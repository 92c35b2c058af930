//! The one place where JSON-RPC errors are made: parameter decoding that names the offending
//! field, panics turned into InternalError, and the debug switch for test-only methods.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use futures_util::FutureExt;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};

/// Decodes params, naming the offending field (`paths[2]`) in the error message.
pub fn decode<P: DeserializeOwned>(params: Value) -> Result<P> {
    // A request without params is treated as `{}`, so all-optional params may be omitted.
    let params = if params.is_null() {
        Value::Object(Default::default())
    } else {
        params
    };
    if let Some(field) = path_with_nul(&params) {
        return Err(Error::invalid_params(format!(
            "invalid params: field `{field}`: a path must not contain a NUL character"
        )));
    }
    serde_path_to_error::deserialize(params).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        let message = if path == "." || path.is_empty() {
            format!("invalid params: {inner}")
        } else {
            format!("invalid params: field `{path}`: {inner}")
        };
        Error::invalid_params(message)
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
pub fn encode<R: Serialize>(result: R) -> Result<Value> {
    serde_json::to_value(result).map_err(|e| internal(format!("cannot encode result: {e}")))
}

/// An InternalError with a message.
pub fn internal(message: impl Into<String>) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: message.into().into(),
        data: None,
    }
}

/// Runs a handler future; a panic inside it becomes an InternalError and the server goes on.
pub async fn guarded<F>(method: &'static str, future: F) -> Result<Value>
where
    F: std::future::Future<Output = Result<Value>>,
{
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(result) => result,
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_owned())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            tracing::error!(method, %detail, "handler panicked");
            Err(internal(format!("internal error in {method}: {detail}")))
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
pub async fn blocking<R: Send + 'static>(work: impl FnOnce() -> R + Send + 'static) -> Result<R> {
    let permit = heavy_slots()
        .acquire()
        .await
        .map_err(|e| internal(format!("background work failed: {e}")))?;
    let flag = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let _cancel_on_drop = CancelOnDrop(flag.clone());
    // The permit moves into the work: a cancelled request frees its slot when its work stops.
    let permit = permit;
    let task = tokio::task::spawn_blocking({
        let flag = flag.clone();
        move || {
            let _slot = permit;
            roo_context_core::cancel::with_flag(Some(flag), work)
        }
    });
    task.await
        .map_err(|e| internal(format!("background work failed: {e}")))
}

/// Whether test-only methods are enabled (`ROO_CONTEXT_DEBUG_METHODS=1`).
pub fn debug_methods_enabled() -> bool {
    std::env::var("ROO_CONTEXT_DEBUG_METHODS").is_ok_and(|v| v == "1")
}
