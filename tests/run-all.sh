#!/usr/bin/env bash
# Runs every check and test of the repository: the README's test command and what CI runs.
# Order: cheap static checks first, then the Rust tests, then the editor clients.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "tools"
bash tests/install-deps.sh

step "format"
cargo fmt --all -- --check

step "core boundary: roo-context-core must not depend on tokio or LSP types"
# `cargo tree -i X` prints the paths from the core to X, and nothing when there are none.
cargo tree -p roo-context-core -e normal >/dev/null
for forbidden in tokio tower-lsp-server ls-types; do
  paths="$(cargo tree -p roo-context-core -e normal -i "$forbidden" 2>/dev/null || true)"
  if [ -n "$paths" ]; then
    echo "roo-context-core depends on $forbidden:" >&2
    echo "$paths" >&2
    exit 1
  fi
done
echo "ok"

step "unused dependencies (a planted one must be caught first)"
bash tests/unused-deps.sh

step "clippy"
cargo clippy --workspace --all-targets -- -D warnings

step "rust tests"
cargo build --workspace --all-targets
cargo test --workspace -- --test-threads=2

if [ -x editors/test.sh ]; then
  step "editor clients"
  editors/test.sh
fi
