#!/usr/bin/env bash
# Runs an agent's own test suite with its context modules answered by roo-context.
#
#   editors/roo-family/run.sh roo|zoo [--baseline] [--control] [-- vitest filters...]
#
# Unpacks the agent's snapshot from shared/upstream/ into a cache folder (once per snapshot and
# install recipe), installs it with the registry workarounds kept here (an override and a local
# stub), builds the .wasm files the tree-sitter specs need, then runs the upstream suite through
# vitest.roo-context.config.ts, which swaps every original module that has an adapter
# (src/adapters/) at module-resolution time. report.mjs compares the result with the allow-list
# (allow-list/<agent>.json) and prints the counts.
#
#   --baseline  the same run without the swap (the suite as shipped)
#   --control   the negative control: the binary path points nowhere, so every test that reaches
#               the sidecar must fail (report.mjs checks that)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
agent="${1:?usage: run.sh roo|zoo [--baseline] [--control] [-- filters]}"
shift
mode=swap
filters=()
while [ $# -gt 0 ]; do
  case "$1" in
    --baseline) mode=baseline ;;
    --control) mode=control ;;
    --) shift; filters=("$@"); break ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

case "$agent" in
  roo) archive="roo-code-3.52.1-cb836567.tar.gz"; folder="roo-code-3.52.1"; node_major=20; flavor=roo ;;
  zoo) archive="zoo-code-3.80.0-f7ec103c.tar.gz"; folder="zoo-code-3.80.0"; node_major=22; flavor=roo ;;
  *) echo "unknown agent $agent" >&2; exit 2 ;;
esac
upstream="${ROO_FAMILY_UPSTREAM:-}"
if [ -z "$upstream" ]; then
  for candidate in "$repo/../shared/upstream" /work/shared/upstream; do
    if [ -f "$candidate/$archive" ]; then upstream="$candidate"; break; fi
  done
fi
if [ -z "$upstream" ] || [ ! -f "$upstream/$archive" ]; then
  echo "snapshot $archive not found (set ROO_FAMILY_UPSTREAM to the folder holding it)" >&2
  exit 2
fi

cache="${ROO_FAMILY_CACHE:-$HOME/.cache/roo-context-upstream}"
recipe="$(cat "$here/install.mjs" "$here"/upstream/stubs/*/* | sha256sum | cut -c1-12)"
tree="$cache/$folder-$recipe"
mkdir -p "$cache"

# One run at a time per cached tree: the install, the configuration and the derived specs written
# into it are shared by every checkout on the machine.
exec 9>"$tree.lock"
if ! flock --nonblock 9; then
  echo "== waiting for another run on $tree"
  flock 9
fi

if [ ! -f "$tree/.installed" ]; then
  echo "== installing $folder into $tree (cached for later runs)"
  rm -rf "$tree" "$tree.partial"
  mkdir -p "$tree.partial"
  tar xzf "$upstream/$archive" -C "$tree.partial" --strip-components=1
  node "$here/install.mjs" "$tree.partial" "$agent" "$here/upstream/stubs"
  touch "$tree.partial/.installed"
  mv "$tree.partial" "$tree"
fi

# The derived suites (derived/: upstream tests replayed on real files) go next to the upstream
# specs they derive from; copies of earlier runs are removed first.
find "$tree/src" -path "$tree/src/node_modules" -prune -o -name '*.roo-context.spec.ts' -print0 | xargs -0 rm -f
cp -r "$here/derived/." "$tree/src/"

out="$repo/target/roo-family/$agent-$mode"
rm -rf "$out"
mkdir -p "$out"
sed "s#__ROO_FAMILY_PLUGIN__#$here/vitest/plugin.mjs#" "$here/vitest/vitest.roo-context.config.ts" \
  >"$tree/src/vitest.roo-context.config.ts"

binary="${ROO_CONTEXT_BIN:-$repo/target/release/roo-context}"
if [ "$mode" = control ]; then binary="$out/no-such-roo-context"; fi
if [ "$mode" != control ] && [ ! -x "$binary" ]; then
  echo "no roo-context binary at $binary: cargo build --release -p roo-context" >&2
  exit 2
fi

swap=1
if [ "$mode" = baseline ]; then swap=0; fi
echo "== $folder: upstream suite ($mode), binary $binary"
started=$(date +%s)
set +e
(
  cd "$tree/src"
  PATH="$(node "$here/install.mjs" --node-path "$node_major")" \
  ROO_CONTEXT_BIN="$binary" ROO_FAMILY_SWAP="$swap" ROO_FAMILY_FLAVOR="$flavor" \
  ROO_FAMILY_CALL_LOG="$out/calls.jsonl" ROO_FAMILY_CONTROL="$([ "$mode" = control ] && echo 1 || echo 0)" \
    npx vitest run --config vitest.roo-context.config.ts --maxWorkers=2 --reporter=dot \
      --reporter=json --outputFile.json="$out/results.json" "${filters[@]}" >"$out/vitest.log" 2>&1
)
status=$?
set -e
elapsed=$(( $(date +%s) - started ))
echo "vitest exited $status after ${elapsed}s (log: $out/vitest.log)"
node "$here/report.mjs" --agent "$agent" --mode "$mode" --results "$out/results.json" \
  --calls "$out/calls.jsonl" --allow "$here/allow-list/$agent.json" --seconds "$elapsed" \
  ${filters[@]:+--filtered}
