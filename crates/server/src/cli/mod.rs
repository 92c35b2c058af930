//! Command-line tools that reuse the server's handlers without a client.

pub mod check;
pub mod demo;
pub mod fold;
pub mod mentions;
pub mod tokens;
pub mod watch;
