//! Which files a task has in context and which changed behind the agent's back: the pure half of
//! the file context tracker (the server owns watching, persistence and notifications).
//!
//! - [`metadata`]: `task_metadata.json`, loaded and written back without losing anything.
//! - [`task`]: one task's records, sets and fingerprints, following the original's algorithm.
//! - [`delta`]: one batch's change to the records, as a journal record (issue 25).
//! - [`fingerprint`]: content fingerprints and the user-edit decision.

pub mod delta;
pub mod fingerprint;
pub mod metadata;
pub mod task;

pub use fingerprint::{ChangeHint, ChangeKind, Fingerprint, classify};
pub use metadata::{
    FileMetadataEntry, MetadataError, RecordSource, RecordState, TASK_METADATA_FILE, TaskMetadata,
};
pub use task::{ObservedChange, TaskFiles, files_edited_by_agent, files_read_by_agent};

#[cfg(test)]
mod tests;
