//! Pure, synchronous decisions of roo-context. No tokio, no LSP types, no I/O of its own
//! beyond the small [`fs::FileSystem`] trait that callers implement.

pub mod access;
pub mod cancel;
pub mod context;
pub mod conversation;
pub mod files_list;
pub mod fs;
pub mod grammar_input;
pub mod journal;
pub mod mentions;
pub mod path;
pub mod rules;
pub mod stale_diff;
pub mod tracker;
pub mod wire_text;
