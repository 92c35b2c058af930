//! `roo/workspace/status`: folders, active ignore files, reload errors and settings.

use roo_context_protocol::requests;
use roo_context_protocol::workspace::{WorkspaceStatusParams, WorkspaceStatusResult};

use super::{Handler, Snapshot};
use crate::rpc::RpcError;

impl Handler for requests::WorkspaceStatus {
    fn handle(
        snapshot: &Snapshot,
        _params: WorkspaceStatusParams,
    ) -> Result<WorkspaceStatusResult, RpcError> {
        Ok(snapshot.state.status())
    }
}
