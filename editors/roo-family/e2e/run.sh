#!/usr/bin/env bash
# The end-to-end test of an agent on roo-context in a real VS Code: builds the agent's .vsix
# (../vsix/build.sh: adapters swapped in, sidecar inside), installs the tools of the extension's
# own e2e (editors/vscode/e2e/install.sh: Node 24, code-server, playwright-core, Chromium;
# cached), installs the .vsix and the test-only driver extension into a fresh extensions folder,
# and runs drive.mjs: a scripted model server on 127.0.0.1 records every request, the driver
# starts the seeds' tasks through the agent's API, and the requests are judged. Then the same
# agent without its binary: access must fail closed with a visible error.
#
#   editors/roo-family/e2e/run.sh roo|zoo
#
#   ROO_CONTEXT_BIN    sidecar to bundle (default target/debug/roo-context, built if missing)
#   ROO_FAMILY_E2E_OUT artifacts (default target/roo-family-e2e/<agent>): requests/*.json,
#                      shots/*.png, events.jsonl, code-server.log, secret-scan.json; emptied first
#   ROO_E2E_CACHE      tool cache (see editors/vscode/e2e/install.sh)
#   ROO_VSIX_OUT       where the .vsix files go (default target/roo-family-vsix)
#   ROO_FAMILY_E2E_REUSE_VSIX=1  use the .vsix files already there (a rerun of the drive only)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
family="$(cd "$here/.." && pwd)"
repo="$(cd "$family/../.." && pwd)"
agent="${1:?usage: run.sh roo|zoo}"
export ROO_E2E_CACHE="${ROO_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/roo-context-e2e}"
out="${ROO_FAMILY_E2E_OUT:-$repo/target/roo-family-e2e/$agent}"
vsix_out="${ROO_VSIX_OUT:-$repo/target/roo-family-vsix}"
t0=$(date +%s)
step() { echo "e2e $agent [$(($(date +%s) - t0))s] $*"; }

bash "$repo/editors/vscode/e2e/install.sh"
export PATH="$ROO_E2E_CACHE/node24/bin:$PATH"
cs="$ROO_E2E_CACHE/code-server/node_modules/code-server/out/node/entry.js"

# VS Code 1.139 ships ripgrep as @vscode/ripgrep-universal; Roo 3.52.1 looks for it only under
# @vscode/ripgrep (Zoo 3.80 knows both). The name Roo looks for, next to the one that ships.
appRoot="$ROO_E2E_CACHE/code-server/node_modules/code-server/lib/vscode"
if [[ ! -e "$appRoot/node_modules/@vscode/ripgrep/bin/rg" ]]; then
  mkdir -p "$appRoot/node_modules/@vscode/ripgrep/bin"
  ln -sf "$appRoot/node_modules/@vscode/ripgrep-universal/bin/linux-x64/rg" "$appRoot/node_modules/@vscode/ripgrep/bin/rg"
fi

rm -rf "$out"
mkdir -p "$out"
if [[ "${ROO_FAMILY_E2E_REUSE_VSIX:-0}" != 1 ]]; then
  step "build the .vsix (with the sidecar, and without it for the fail-closed run)"
  ROO_VSIX_OUT="$vsix_out" bash "$family/vsix/build.sh" "$agent"
  ROO_VSIX_OUT="$vsix_out" bash "$family/vsix/build.sh" "$agent" --no-binary
fi
with=("$vsix_out"/"$agent"-*-linux-x64.vsix)
without=("$vsix_out"/"$agent"-*-linux-x64-no-binary.vsix)

step "package the driver extension"
mkdir -p "$out/stage"
cp -r "$here/driver-extension" "$out/stage/driver"
vsce="$repo/editors/vscode/node_modules/.bin/vsce"
[[ -x "$vsce" ]] || (cd "$repo/editors/vscode" && npm ci --no-audit --no-fund >/dev/null)
(cd "$out/stage/driver" && "$vsce" package --skip-license --no-dependencies -o "$out/driver.vsix" >/dev/null)

run() { # name vsix [drive options]
  local name="$1" vsix="$2"
  shift 2
  step "$name: code-server --install-extension"
  "$cs" --config "$out/$name/cs-config.yaml" --user-data-dir "$out/$name/install-user-data" --extensions-dir "$out/$name/extensions" \
    --install-extension "$vsix" --install-extension "$out/driver.vsix" --force >"$out/$name/install.log" 2>&1 || {
    cat "$out/$name/install.log"; return 1; }
  step "$name: drive"
  node "$here/drive.mjs" --agent "$agent" --out "$out/$name" --extensions "$out/$name/extensions" "$@"
}
mkdir -p "$out/sidecar" "$out/closed"
run sidecar "${with[0]}"
run closed "${without[0]}" --expect-closed
step "passed: artifacts in $out"
