//! Prints the protocol's method table and JSON Schema (see `schema::protocol_schema`) to stdout,
//! or to the file given as the only argument; editors/vscode generates its TypeScript types from it.

use std::io::Write;

fn main() -> std::io::Result<()> {
    let schema = roo_context_protocol::schema::protocol_schema();
    let mut text = serde_json::to_string_pretty(&schema).map_err(std::io::Error::other)?;
    text.push('\n');
    match std::env::args_os().nth(1) {
        Some(path) => std::fs::write(path, text),
        None => std::io::stdout().lock().write_all(text.as_bytes()),
    }
}
