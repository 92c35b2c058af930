#!/usr/bin/env bash
# Editor clients against the real built binary: the VS Code extension's install, typecheck,
# generated-types freshness, Node tests, the npm packages' install test (vscode/npm/install-test.sh),
# the end-to-end test in code-server (vscode/e2e/run.sh; ROO_SKIP_E2E=1 skips it), and the headless
# Neovim test on Neovim 0.7 and 0.11. Non-zero on any failure.
# Needs: node >= 20 with npm, nvim (Debian's 0.7 is fine), cargo (to build and to regenerate types).
# ROO_CONTEXT_BIN overrides the binary under test (default: target/debug/roo-context).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
export ROO_CONTEXT_BIN="${ROO_CONTEXT_BIN:-$repo/target/debug/roo-context}"

step() { printf '\n== %s\n' "$*"; }

if [[ ! -x "$ROO_CONTEXT_BIN" ]]; then
  step "cargo build -p roo-context"
  (cd "$repo" && cargo build -p roo-context)
fi

step "protocol schema tests (every method in the table, every wire type with JsonSchema)"
(cd "$repo" && cargo test -q -p roo-context-protocol --features schema)

cd "$here/vscode"
step "npm ci";               npm ci --no-audit --no-fund
step "npm run typecheck";    npm run -s typecheck
step "npm run check-types";  npm run -s check-types
step "npm test";             npm test
step "npm packages: pack @roo-context/client and its binary package, install offline into a scratch project, drive the sidecar"
bash "$here/vscode/npm/install-test.sh"
if [[ "${ROO_SKIP_E2E:-0}" != 1 ]]; then
  step "vscode e2e: the packaged extension in a real VS Code (code-server + headless Chromium)"
  bash "$here/vscode/e2e/run.sh"
fi

step "neovim"
"$here/neovim/test/run.sh"

step "editors: all passed"
