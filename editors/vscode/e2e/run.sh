#!/usr/bin/env bash
# The extension in a real VS Code: installs the tools (install.sh, cached), packages the extension
# with the packaging command (scripts/package.mjs: this host's platform .vsix, sidecar inside) plus
# the test-only agent extension, installs both with `code-server --install-extension`, then
# drive.mjs starts code-server and drives it with headless Chromium. Non-zero on any failed check.
#
#   ROO_CONTEXT_BIN  sidecar binary to bundle (default: target/debug/roo-context, built if missing;
#                    a stripped copy goes into the .vsix)
#   ROO_E2E_OUT      artifacts folder (default: target/vscode-e2e): shots/*.png, code-server.log,
#                    the extension's output channel, the .vsix files. Emptied at the start.
#   ROO_E2E_CACHE    tool cache (see install.sh)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ext="$(cd "$here/.." && pwd)"
repo="$(cd "$ext/../.." && pwd)"
export ROO_E2E_CACHE="${ROO_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/roo-context-e2e}"
out="${ROO_E2E_OUT:-$repo/target/vscode-e2e}"
bin="${ROO_CONTEXT_BIN:-$repo/target/debug/roo-context}"
t0=$(date +%s)
step() { echo "e2e [$(($(date +%s) - t0))s] $*"; }

bash "$here/install.sh"
export PATH="$ROO_E2E_CACHE/node24/bin:$PATH"
cs="$ROO_E2E_CACHE/code-server/node_modules/code-server/out/node/entry.js"

if [[ ! -x "$bin" ]]; then
  step "cargo build -p roo-context"
  (cd "$repo" && cargo build -q -p roo-context)
fi
rm -rf "$out"
mkdir -p "$out/bin" "$out/stage"
# A stripped copy: the .vsix stays small, and a concurrent cargo build cannot swap it mid-run.
strip -o "$out/bin/roo-context" "$bin"

[[ -d "$ext/node_modules" ]] || (cd "$ext" && npm ci --no-audit --no-fund)
vsce="$ext/node_modules/.bin/vsce"

step "package the extension: the platform .vsix of this host, sidecar bundled (scripts/package.mjs, as users get it)"
node "$ext/scripts/package.mjs" --kind vsix --binary "$out/bin/roo-context" --out "$out"
vsix=("$out"/roo-context-*-*.vsix)
[[ ${#vsix[@]} == 1 && -f "${vsix[0]}" ]] || { echo "expected one platform .vsix in $out, found: ${vsix[*]}" >&2; exit 1; }

step "package the test agent extension"
cp -r "$here/agent-extension" "$out/stage/agent"
(cd "$out/stage/agent" && "$vsce" package --skip-license --no-dependencies -o "$out/roo-context-e2e-agent.vsix" >/dev/null)

step "code-server --install-extension (both .vsix files)"
"$cs" --config "$out/cs-config.yaml" --user-data-dir "$out/install-user-data" --extensions-dir "$out/extensions" \
  --install-extension "${vsix[0]}" --install-extension "$out/roo-context-e2e-agent.vsix" --force
ls -d "$out"/extensions/roo-context.roo-context-*/bin/roo-context >/dev/null

step "drive code-server"
node "$here/drive.mjs" --out "$out" --extensions "$out/extensions" --setting-binary "$out/bin/roo-context" \
  --workspace "$repo/examples/demo-workspace"
step "passed; screenshots in $out/shots"
