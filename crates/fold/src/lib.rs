//! Tree-sitter outlines (work in progress).
