//! Black-box tests: each spawns the built `roo-context` binary and speaks real JSON-RPC over its
//! stdio (or runs its command line), with fixture workspaces in temp folders.

mod harness;
mod raw;

mod access;
mod cli;
mod context;
mod demo;
mod files;
mod fold;
mod guard;
mod history;
mod lifecycle;
mod mentions;
mod ordering;
mod reload;
mod security;
mod surrogates;
mod wire;
