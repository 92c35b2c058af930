//! Black-box tests: each spawns the built `roo-context` binary and speaks real JSON-RPC over its
//! stdio (or runs its command line), with fixture workspaces in temp folders.

mod harness;
mod raw;

mod access;
mod caches;
mod cancel_fold;
mod cancel_heavy;
mod cli;
mod context;
mod demo;
mod diffs;
mod failclosed;
mod files;
mod fold;
mod fold_priority;
mod gate;
mod guard;
mod history;
mod images;
mod in_process;
mod lifecycle;
mod mentions;
mod ordering;
mod parity;
mod redteam;
mod reload;
mod resync;
mod security;
mod sentinel;
mod skills;
mod starvation;
mod surrogates;
mod verify;
mod vetting;
mod wire;
