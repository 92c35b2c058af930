//! Content fingerprints and change classification: an event on a tracked file is a user edit
//! only when the file's content differs from what the agent last read or wrote, so the agent's
//! own writes, duplicate events and saves that change nothing are not reported.

use std::hash::{Hash, Hasher};

/// What a file held at one moment: its length and a 128-bit hash of its bytes, or nothing.
/// Used only within one process (never persisted), so the std hasher is enough.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fingerprint {
    /// The file does not exist.
    Missing,
    /// The file's bytes.
    Content {
        /// Length in bytes.
        len: u64,
        /// Two independent 64-bit hashes of the bytes.
        hash: [u64; 2],
    },
}

impl Fingerprint {
    /// The fingerprint of `bytes`.
    pub fn of(bytes: &[u8]) -> Fingerprint {
        let hash_with = |seed: u8| {
            let mut hasher = std::hash::DefaultHasher::new();
            seed.hash(&mut hasher);
            bytes.hash(&mut hasher);
            hasher.finish()
        };
        Fingerprint::Content {
            len: bytes.len() as u64,
            hash: [hash_with(0), hash_with(1)],
        }
    }
}

/// What the events for one path said, besides its content now.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ChangeHint {
    /// Created, written, removed, or an overflow rescan: judge by the content alone.
    #[default]
    Changed,
    /// The path was renamed away (to `to` when the watcher knows where).
    RenamedAway {
        /// The new path, when known.
        to: Option<String>,
    },
}

/// A change of a tracked file that the agent did not make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeKind {
    /// The content differs from what the agent last saw.
    Modified,
    /// The file is gone.
    Deleted,
    /// The file was moved away (to `to` when known).
    Renamed {
        /// The new path, when known.
        to: Option<String>,
    },
}

impl ChangeKind {
    /// The wire spelling: `modified`, `deleted` or `renamed`.
    pub fn as_str(&self) -> &'static str {
        match self {
            ChangeKind::Modified => "modified",
            ChangeKind::Deleted => "deleted",
            ChangeKind::Renamed { .. } => "renamed",
        }
    }
}

/// Decides whether `observed` (the content now) is a change against `known` (what the agent
/// last read or wrote). Equal content is never a change, whatever the events said.
pub fn classify(
    known: Fingerprint,
    observed: Fingerprint,
    hint: &ChangeHint,
) -> Option<ChangeKind> {
    if known == observed {
        return None;
    }
    Some(match (observed, hint) {
        (Fingerprint::Missing, ChangeHint::RenamedAway { to }) => {
            ChangeKind::Renamed { to: to.clone() }
        }
        (Fingerprint::Missing, ChangeHint::Changed) => ChangeKind::Deleted,
        (Fingerprint::Content { .. }, _) => ChangeKind::Modified,
    })
}
