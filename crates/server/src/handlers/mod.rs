//! Request handlers, one module per method family. Each turns protocol params into core calls
//! and core answers into protocol results; the CLI reuses them.

pub mod access;
pub mod context;
pub mod files;
pub mod fold;
pub mod history;
pub mod mentions;
