#!/usr/bin/env bash
# The linux-x64 .vsix of an agent from its snapshot, with the sidecar-backed adapters swapped in
# at bundle time and the sidecar binary inside (dist/bin/roo-context).
#
#   editors/roo-family/vsix/build.sh roo|zoo [--no-binary|--baseline]
#
#   ROO_CONTEXT_BIN   the sidecar to bundle (default: target/debug/roo-context, built if missing);
#                     a stripped copy goes in
#   ROO_VSIX_OUT      where the .vsix goes (default: target/roo-family-vsix)
#   ROO_VSIX_CACHE    the packaging trees (default: ~/.cache/roo-context-vsix)
#   --no-binary       a .vsix without the sidecar: the adapters then fail closed (the negative
#                     check of the e2e test)
#   --baseline        the agent as shipped (no swap, no sidecar): what the sizes and activation
#                     times are compared with
#
# The snapshot is unpacked once per snapshot and recipe into its own tree (the test trees of
# ../run.sh lack the webview's dependencies), installed by prepare.mjs with the registry
# workarounds, and its webview built once. Each run then writes `src/esbuild.roo-context.mjs`
# (the upstream esbuild.mjs with ./esbuild-plugin.mjs first among the extension's plugins) and
# points the extension's `bundle` script at it, so that `vsce package`, whose prepublish step
# runs `bundle --production`, packages the swapped bundle. The original modules stay in the
# tree; only what the bundle imports changes.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
family="$(cd "$here/.." && pwd)"
repo="$(cd "$family/../.." && pwd)"
agent="${1:?usage: build.sh roo|zoo [--no-binary|--baseline]}"
with_binary=1
swap=1
case "${2:-}" in
  "") ;;
  --no-binary) with_binary=0 ;;
  --baseline) with_binary=0; swap=0 ;;
  *) echo "unknown option $2" >&2; exit 2 ;;
esac

case "$agent" in
  roo) archive="roo-code-3.52.1-cb836567.tar.gz"; folder="roo-code-3.52.1"; node_major=20 ;;
  zoo) archive="zoo-code-3.80.0-f7ec103c.tar.gz"; folder="zoo-code-3.80.0"; node_major=22 ;;
  *) echo "unknown agent $agent" >&2; exit 2 ;;
esac
upstream="${ROO_FAMILY_UPSTREAM:-}"
if [[ -z "$upstream" ]]; then
  for candidate in "$repo/../shared/upstream" /work/shared/upstream; do
    [[ -f "$candidate/$archive" ]] && { upstream="$candidate"; break; }
  done
fi
[[ -n "$upstream" && -f "$upstream/$archive" ]] || { echo "snapshot $archive not found (set ROO_FAMILY_UPSTREAM)" >&2; exit 2; }

t0=$(date +%s)
step() { echo "vsix $agent [$(($(date +%s) - t0))s] $*"; }
out="${ROO_VSIX_OUT:-$repo/target/roo-family-vsix}"
cache="${ROO_VSIX_CACHE:-$HOME/.cache/roo-context-vsix}"
recipe="$(cat "$here/prepare.mjs" "$family"/upstream/stubs/*/* | sha256sum | cut -c1-12)"
tree="$cache/$folder-$recipe"
mkdir -p "$cache" "$out"
exec 9>"$tree.lock"
flock --nonblock 9 || { echo "== waiting for another build in $tree"; flock 9; }

PATH="$(node "$family/install.mjs" --node-path "$node_major")"
export PATH
if [[ ! -f "$tree/.installed" ]]; then
  step "install $folder into $tree (cached for later builds)"
  rm -rf "$tree" "$tree.partial"
  mkdir -p "$tree.partial"
  tar xzf "$upstream/$archive" -C "$tree.partial" --strip-components=1
  node "$here/prepare.mjs" "$tree.partial" "$family/upstream/stubs" "$PATH" >"$cache/$folder-$recipe.install.log" 2>&1 || {
    tail -30 "$cache/$folder-$recipe.install.log"; exit 1; }
  touch "$tree.partial/.installed"
  mv "$tree.partial" "$tree"
fi
pnpm_version="$(node -p "/pnpm@([\\d.]+)/.exec(require('$tree/package.json').packageManager)[1]")"
export PATH="${ROO_FAMILY_CACHE:-$HOME/.cache/roo-context-upstream}/pnpm-$pnpm_version/node_modules/.bin:$PATH"

if [[ ! -f "$tree/src/webview-ui/build/index.html" ]]; then
  step "build the webview (once per tree)"
  # `vite build` of the webview's `build` script, without its `tsc -b` type check (which checks
  # @roo-code/types' sources against the untyped stub).
  (cd "$tree/webview-ui" && pnpm exec vite build >"$tree/webview-build.log" 2>&1) || {
    tail -30 "$tree/webview-build.log"; exit 1; }
fi

bin=""
if ((with_binary)); then
  src_bin="${ROO_CONTEXT_BIN:-$repo/target/debug/roo-context}"
  if [[ ! -x "$src_bin" ]]; then
    step "cargo build -p roo-context"
    (cd "$repo" && cargo build -q -p roo-context)
  fi
  mkdir -p "$out/bin"
  bin="$out/bin/roo-context"
  strip -o "$bin" "$src_bin"
fi

# The swapping build, and the extension's `bundle` script pointed at it (restored from the
# snapshot's own package.json first, so that every run starts from the same manifest).
node - "$tree/src" "$here/esbuild-plugin.mjs" "$bin" "$swap" <<'JS'
const fs = require("fs"), path = require("path")
const [src, plugin, binary, swap] = process.argv.slice(2)
const upstream = fs.readFileSync(path.join(src, "esbuild.mjs"), "utf8")
const hook = "\t\tplugins,\n\t\tentryPoints: [\"extension.ts\"],"
if (!upstream.includes(hook)) throw new Error("esbuild.mjs: the extension's plugins were not found")
const swapped =
	`import { rooContextAdapters } from ${JSON.stringify(plugin)}\n` +
	upstream.replace(
		hook,
		`\t\tplugins: [rooContextAdapters({ upstreamSrc: srcDir, distDir, binary: ${JSON.stringify(binary || undefined) ?? "undefined"} }), ...plugins],\n\t\tentryPoints: ["extension.ts"],`,
	)
fs.writeFileSync(path.join(src, "esbuild.roo-context.mjs"), swapped)
const manifestPath = path.join(src, "package.json")
const original = path.join(src, "package.json.upstream")
if (!fs.existsSync(original)) fs.copyFileSync(manifestPath, original)
const manifest = JSON.parse(fs.readFileSync(original, "utf8"))
if (swap === "1") manifest.scripts.bundle = "node esbuild.roo-context.mjs"
fs.writeFileSync(manifestPath, JSON.stringify(manifest, null, "\t") + "\n")
JS

version="$(node -p "JSON.parse(require('fs').readFileSync('$tree/src/package.json.upstream','utf8')).version")"
name="$(node -p "JSON.parse(require('fs').readFileSync('$tree/src/package.json.upstream','utf8')).name")"
suffix=""
((with_binary)) || suffix="-no-binary"
((swap)) || suffix="-baseline"
vsix="$out/$agent-$name-$version-linux-x64$suffix.vsix"
step "vsce package --target linux-x64 (prepublish: $( ((swap)) && echo "the swapping bundle" || echo "the bundle as shipped"))"
rm -f "$vsix"
(cd "$tree/src" && npx vsce package --no-dependencies --target linux-x64 --out "$vsix" >"$out/$agent-vsce$suffix.log" 2>&1) || {
  tail -40 "$out/$agent-vsce$suffix.log"; exit 1; }
grep '\[roo-context\]' "$out/$agent-vsce$suffix.log" || true
unzip -l "$vsix" >"$out/$agent$suffix.listing"
if ((swap)); then
  grep -q 'extension/dist/roo-context-worker.mjs' "$out/$agent$suffix.listing" || { echo "the worker is missing from $vsix" >&2; exit 1; }
  grep -q '\[roo-context\] swapped' "$out/$agent-vsce$suffix.log" || { echo "the swapping bundle did not run (see $out/$agent-vsce$suffix.log)" >&2; exit 1; }
fi
if ((with_binary)); then
  grep -q 'extension/dist/bin/roo-context$' "$out/$agent$suffix.listing" || { echo "the sidecar is missing from $vsix" >&2; exit 1; }
fi
step "built $vsix: $(du -k "$vsix" | cut -f1) KB ($(stat -c %s "$vsix") bytes)"
