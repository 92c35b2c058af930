//! Tree-sitter outlines for roo-context: folded file context, folding ranges and document symbols
//! from one engine. Pure and synchronous: text in, plain structs out (no IO, no LSP types).
//!
//! - [`outline`] lists the definitions of one file; [`Outline::to_text`] renders the original's
//!   `start--end | first line` lines (1-based).
//! - [`folded_file_context`] / [`folded_file_context_with`] build the condense "folded context":
//!   one `<system-reminder>` section per file, most recently read first, under a budget counted in
//!   UTF-16 code units (default [`DEFAULT_MAX_CHARS`]).
//! - [`folding_ranges`] and [`document_symbols`] answer the LSP requests (byte columns; the server
//!   converts to UTF-16).
//! - [`OutlineCache`] and [`outline_many`] make repeated and bulk outlines cheap.
//!
//! The rules, and where they deliberately differ from the original, are in `crates/fold/README.md`.

mod cache;
mod context;
#[cfg(any(feature = "more", feature = "rare"))]
mod embedded;
mod engine;
pub mod isolation;
mod language;
mod markdown;
mod memory;
mod outline;
mod symbols;
mod testing;
mod text;

pub use cache::{OutlineCache, OutlineJob, outline_many};
pub use context::{
    DEFAULT_MAX_CHARS, FileDiagnostic, FileDiagnosticKind, FoldContent, FoldInput, FoldOptions,
    FoldedContext, context_paths, file_definitions_text, folded_file_context,
    folded_file_context_with,
};
pub use isolation::{Isolate, Isolation, IsolationError};
pub use language::Language;
pub use outline::{
    DEFAULT_MAX_NESTING, DEFAULT_MAX_PARSE_MEMORY, DEFAULT_MAX_RESULTS, Definition, DefinitionKind,
    Outline, OutlineDiagnostic, OutlineOptions, Position, Span, outline,
};
pub use symbols::{
    DocumentSymbol, DocumentSymbols, FoldingKind, FoldingRange, FoldingRanges, MAX_SYMBOL_DEPTH,
    document_symbols, folding_ranges,
};
pub use testing::{SMALL_TEST_FILE_CASES, is_test_path};
pub use text::{truncate_utf16, utf16_len};
