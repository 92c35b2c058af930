//! Black-box tests: each speaks real JSON-RPC to the built `roo-context` binary over its stdio
//! (or runs its command line), or to the same server served in this process over OS pipes when
//! it needs no process features, with fixture workspaces in temp folders.

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
mod diffs_attacks;
mod durability;
mod failclosed;
mod files;
mod fold;
mod fold_priority;
mod gate;
mod guard;
mod history;
mod history_sync;
mod host_flow;
mod hygiene;
mod images;
mod in_process;
mod journal;
mod lifecycle;
mod mentions;
mod ordering;
mod output;
mod parity;
mod parse_worker;
mod prompt_cache;
mod redteam;
mod reload;
mod restore;
mod resync;
mod security;
mod sentinel;
mod skills;
mod starvation;
mod surrogates;
mod trigger;
mod verify;
mod verify_attacks;
mod vetting;
mod wire;
