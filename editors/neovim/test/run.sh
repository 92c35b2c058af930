#!/usr/bin/env bash
# Runs the Neovim client's test in real headless Neovim against the built roo-context binary, on
# each Neovim the client supports here: the system's (Debian's 0.7) and a current one from a package
# registry (install-nvim.sh, cached), so both the 0.7 APIs and vim.lsp.config/vim.lsp.enable run.
# ROO_CONTEXT_BIN overrides the binary (default: target/debug/roo-context of this repository);
# ROO_NVIM=path runs only that Neovim.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../../.." && pwd)"
export ROO_CONTEXT_BIN="${ROO_CONTEXT_BIN:-$repo/target/debug/roo-context}"
if [[ -n "${ROO_NVIM:-}" ]]; then
  nvims=("$ROO_NVIM")
else
  command -v nvim >/dev/null || { echo "nvim not found (apt-get install -y neovim)" >&2; exit 2; }
  nvims=("$(command -v nvim)" "$("$here/install-nvim.sh")")
fi
for nvim in "${nvims[@]}"; do
  echo "-- $nvim"
  # timeout: a hung server must fail the run, not block it.
  # An error outside a test case (e.g. the server never initializes) also exits non-zero.
  timeout 120 "$nvim" --headless -u NONE -i NONE -n \
    -c "lua local ok, e = xpcall(dofile, debug.traceback, '$here/test.lua'); if not ok then io.stderr:write(tostring(e) .. '\\n'); vim.cmd('cquit 1') end"
done
