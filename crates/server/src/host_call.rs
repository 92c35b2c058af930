//! The one way the server asks the editor host something: a server-to-client request with a
//! deadline. When we stop waiting (the deadline passed, or our own caller was cancelled and this
//! future dropped) the host is told with `$/cancelRequest` naming the request's id, so it can stop
//! the work (a download, a model call). tower-lsp-server's `Client::send_request` hides the id and
//! sends nothing when its future is dropped, hence the raw request path here.
//!
//! ## Decision: The host owns the model
//!
//! `roo/context/manage` sends `roo/host/summarize` to the client and waits (timeout,
//! `$/cancelRequest`, `roo/host/cancelSummarize`); on any failure the history comes back untouched
//! with `error` and `errorDetails`. A summary that does not shrink the context or does not fit is
//! refused. Every server-to-client request goes through `server/src/host_call.rs`: one deadline,
//! and `$/cancelRequest` with the request's id when the server stops waiting (timeout or its own
//! cancellation), so the host stops the work.

use std::time::Duration;

use tower::Service;
use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::{self, Error, ErrorCode, Id};
use tower_lsp_server::ls_types::notification::Notification;
use tower_lsp_server::ls_types::request::Request;

/// Why a host call produced no result.
#[derive(Debug)]
pub enum HostCallError {
    /// The host did not answer within the deadline; it was sent `$/cancelRequest`.
    TimedOut,
    /// The host answered with an error, an unreadable result, or the connection is gone.
    Failed(Error),
}

/// Sends `R` to the host and waits at most `timeout` for its answer.
pub async fn call_host<R: Request>(
    client: &Client,
    params: R::Params,
    timeout: Duration,
) -> Result<R::Result, HostCallError> {
    let params = serde_json::to_value(params)
        .map_err(|e| HostCallError::Failed(internal(format!("unserializable params: {e}"))))?;
    let id = client.next_request_id();
    let request = jsonrpc::Request::build(R::METHOD)
        .id(id.clone())
        .params(params)
        .finish();
    let mut guard = CancelOnDrop {
        client: client.clone(),
        id: Some(id),
    };
    let call = client.clone().call(request);
    let response = match tokio::time::timeout(timeout, call).await {
        // `guard` still holds the id: dropping it tells the host to stop.
        Err(_) => return Err(HostCallError::TimedOut),
        Ok(answered) => {
            guard.id = None;
            answered
        }
    };
    let Ok(Some(response)) = response else {
        return Err(HostCallError::Failed(internal(
            "the connection to the host is gone".to_owned(),
        )));
    };
    let (_, result) = response.into_parts();
    let value = result.map_err(HostCallError::Failed)?;
    serde_json::from_value(value).map_err(|e| {
        HostCallError::Failed(Error {
            code: ErrorCode::ParseError,
            message: e.to_string().into(),
            data: None,
        })
    })
}

fn internal(message: String) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: message.into(),
        data: None,
    }
}

/// Sends `$/cancelRequest` for `id` unless disarmed (`id` taken) before it is dropped.
struct CancelOnDrop {
    client: Client,
    id: Option<Id>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let client = self.client.clone();
        // Drop cannot await; without a runtime (shutdown) there is nobody left to tell.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                client
                    .send_notification::<CancelRequest>(CancelRequestParams { id })
                    .await;
            });
        }
    }
}

/// `$/cancelRequest` with the framework's own id type (ls_types' `CancelParams` holds an `i32`,
/// the framework counts ids in `i64`).
enum CancelRequest {}

impl Notification for CancelRequest {
    type Params = CancelRequestParams;
    const METHOD: &'static str = "$/cancelRequest";
}

#[derive(serde::Serialize, serde::Deserialize)]
struct CancelRequestParams {
    id: Id,
}
