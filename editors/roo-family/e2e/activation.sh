#!/usr/bin/env bash
# Activation time of an agent in code-server, as the driver extension measures it (the agent's
# `activate()`, called by the driver at startup), for the .vsix as shipped (--baseline), with the
# sidecar inside, and without it (--no-binary): N runs each, on fresh user data, median printed.
#
#   editors/roo-family/e2e/activation.sh roo|zoo [N]     (the three .vsix files built first)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
family="$(cd "$here/.." && pwd)"
repo="$(cd "$family/../.." && pwd)"
agent="${1:?usage: activation.sh roo|zoo [N]}"
runs="${2:-3}"
export ROO_E2E_CACHE="${ROO_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/roo-context-e2e}"
vsix_out="${ROO_VSIX_OUT:-$repo/target/roo-family-vsix}"
out="$repo/target/roo-family-e2e/activation-$agent"
cs="$ROO_E2E_CACHE/code-server/node_modules/code-server/out/node/entry.js"
export PATH="$ROO_E2E_CACHE/node24/bin:$PATH"
driver="$repo/target/roo-family-e2e/$agent/driver.vsix"
[[ -f "$driver" ]] || { echo "no $driver: run e2e/run.sh $agent first" >&2; exit 2; }
rm -rf "$out"
variants=(baseline sidecar no-binary)
for variant in "${variants[@]}"; do
  case "$variant" in
    baseline) vsix=("$vsix_out/$agent"-*-linux-x64-baseline.vsix) ;;
    sidecar) vsix=("$vsix_out/$agent"-*-linux-x64.vsix) ;;
    no-binary) vsix=("$vsix_out/$agent"-*-linux-x64-no-binary.vsix) ;;
  esac
  [[ -f "${vsix[0]}" ]] || { echo "missing ${vsix[0]}: vsix/build.sh $agent (--baseline|--no-binary)" >&2; exit 2; }
  mkdir -p "$out/$variant"
  "$cs" --config "$out/$variant/cs.yaml" --user-data-dir "$out/$variant/iud" --extensions-dir "$out/$variant/ext" \
    --install-extension "${vsix[0]}" --install-extension "$driver" --force >"$out/$variant/install.log" 2>&1
done
# Interleaved (run 1 of each variant, then run 2, ...), so that a change in the machine's load
# falls on every variant alike.
for i in $(seq 1 "$runs"); do
  for variant in "${variants[@]}"; do
    node "$here/drive.mjs" --agent "$agent" --out "$out/$variant/run-$i" --extensions "$out/$variant/ext" --activation-only >"$out/$variant/run-$i.log" 2>&1 ||
      { cat "$out/$variant/run-$i.log"; exit 1; }
  done
done
for variant in "${variants[@]}"; do
  node -e '
    const fs = require("fs"), [dir, runs, variant] = process.argv.slice(1)
    const all = Array.from({ length: +runs }, (_, i) => JSON.parse(fs.readFileSync(`${dir}/run-${i + 1}/activation.json`, "utf8")))
    if (all.some((a) => a.wasActive)) throw new Error(`${variant}: the agent was active before the driver timed it`)
    const ms = all.map((a) => a.ms).sort((a, b) => a - b)
    console.log(`${variant}: activation median ${ms[ms.length >> 1].toFixed(0)} ms (runs: ${ms.map((m) => m.toFixed(0)).join(", ")} ms)`)
  ' "$out/$variant" "$runs" "$variant" | tee -a "$out/summary.txt"
done
