//! Wire types and method names of the roo-context protocol: LSP-framed JSON-RPC 2.0 over stdio,
//! camelCase on the wire. Every custom method has exactly one `Params` and one `Result` type;
//! docs/protocol.md documents each with an example. Nothing here does anything.
//!
//! TypeScript types for editors/ are generated from this crate, never written by hand. For every
//! new wire type add, under its `#[derive(..., Serialize, Deserialize)]`:
//! `#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]`
//! (a field whose type has no schema gets `#[cfg_attr(feature = "schema", schemars(with = "serde_json::Value"))]`),
//! and for every new request one row in [`for_each_request!`]
//! (`requests.rs`; notifications and server-to-client requests: `schema::method_table`). Then regenerate with
//! `editors/vscode: npm run gen-types`. `cargo test -p roo-context-protocol --features schema`
//! fails while a derive or a table line is missing; `npm run check-types` while the TS is stale.

pub mod access;
pub mod context;
pub mod files;
pub mod fold;
pub mod history;
pub mod mentions;
pub mod output;
pub mod requests;
#[cfg(feature = "schema")]
pub mod schema;
pub mod sync;
pub mod workspace;

/// The wire string of a value of a closed set (`"ignoreRule"` for `BlockKind::IgnoreRule`), for
/// command-line output; the protocol itself carries the enums.
pub fn wire_name<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        other => format!("{other:?}"),
    }
}

/// Every custom method name, in one place: the requests of the method table (generated from
/// [`for_each_request!`]) and the notifications and server-to-client requests below.
pub mod methods {
    pub use crate::requests::names::*;

    /// Server-to-client notification: an ignore file was (re)loaded.
    pub const IGNORE_DID_RELOAD: &str = "roo/ignore/didReload";
    /// Server-to-client notification: the workspace folders are watched recursively.
    pub const WORKSPACE_DID_WATCH: &str = "roo/workspace/didWatch";
    /// Client-to-server notification: change settings (same shape as `initializationOptions`).
    pub const SETTINGS_UPDATE: &str = "roo/settings/update";
    /// Server-to-client notification: a tracked file changed and the agent did not do it.
    pub const FILES_DID_CHANGE: &str = "roo/files/didChange";
    /// Server-to-client request: the host makes the summarizer's model call.
    pub const HOST_SUMMARIZE: &str = "roo/host/summarize";
    /// Server-to-client notification: a `roo/host/summarize` call is no longer wanted.
    pub const HOST_CANCEL_SUMMARIZE: &str = "roo/host/cancelSummarize";
    /// Server-to-client request: resolve `@problems`, `@terminal` or a URL.
    pub const HOST_RESOLVE_MENTION: &str = "roo/host/resolveMention";
    /// Test-only (enabled by `ROO_CONTEXT_DEBUG_METHODS=1`): panics inside a handler.
    pub const DEBUG_PANIC: &str = "roo/debug/panic";
    /// Test-only: holds a heavy-work slot until the request is cancelled.
    pub const DEBUG_HOLD: &str = "roo/debug/hold";

    /// Every client-to-server custom method, for capability advertising: the method table's
    /// names ([`crate::for_each_request!`]).
    pub const ALL_REQUESTS: &[&str] = crate::requests::ALL;
}
