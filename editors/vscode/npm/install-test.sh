#!/usr/bin/env bash
# The npm packages as a user gets them: packs @roo-context/client and the host's
# @roo-context/cli-<target> (scripts/package.mjs), installs the client into a scratch project in a
# temp dir with no repository around, offline from local tarballs only (the two packages, and the
# client's dependencies packed from the extension's node_modules), type-checks and runs
# smoke.ts there: binary lookup through the optional dependency, initialize, roo/fold/outline,
# roo/ignore/validateAccess, shutdown. Non-zero on any failure; the temp dir is removed.
#
#   ROO_CONTEXT_BIN  binary to package (default: target/debug/roo-context, as the other editor tests)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ext="$(cd "$here/.." && pwd)"
repo="$(cd "$ext/../.." && pwd)"
bin="${ROO_CONTEXT_BIN:-$repo/target/debug/roo-context}"
[[ -x "$bin" ]] || { echo "no binary at $bin (cargo build -p roo-context)" >&2; exit 2; }
[[ -d "$ext/node_modules" ]] || (cd "$ext" && npm ci --no-audit --no-fund)

t0=$(date +%s)
step() { echo "npm install test [$(($(date +%s) - t0))s] $*"; }

scratch="$(mktemp -d "${TMPDIR:-/tmp}/roo-context-npm-XXXXXX")"
trap 'rm -rf "$scratch"' EXIT
step "pack (scripts/package.mjs --kind npm)"
node "$ext/scripts/package.mjs" --kind npm --binary "$bin" --out "$scratch/tarballs"
client=("$scratch"/tarballs/roo-context-client-*.tgz)
cli=("$scratch"/tarballs/roo-context-cli-*.tgz)

step "install into a scratch project"
app="$scratch/app"
mkdir "$app"
cd "$app"
if git rev-parse --git-dir >/dev/null 2>&1; then
  echo "the scratch project $app is inside a git repository: set TMPDIR elsewhere" >&2
  exit 1
fi
# Only the client is a dependency: the binary package must arrive as its optional dependency.
# `overrides` points that dependency, and the client's runtime dependencies, at local tarballs
# (packed from the extension's node_modules, the versions its lockfile pins) instead of the registry.
node - "$ext" "$scratch/deps" "${cli[0]}" >package.json <<'JS'
const fs = require("fs"), path = require("path"), { execFileSync } = require("child_process");
const [ext, out, cliTarball] = process.argv.slice(2);
const manifest = (dir) => JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
const roots = Object.keys(manifest(ext).dependencies).filter((d) => d !== "vscode-languageclient");
const overrides = {};
const pack = (name) => {
  if (overrides[name]) return;
  const dir = path.join(ext, "node_modules", name);
  const file = execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", out, dir]).toString().trim();
  overrides[name] = `file:${path.join(out, file)}`;
  Object.keys(manifest(dir).dependencies ?? {}).forEach(pack);
};
fs.mkdirSync(out, { recursive: true });
roots.forEach(pack);
const cliName = execFileSync("tar", ["xzOf", cliTarball, "package/package.json"]).toString();
overrides[JSON.parse(cliName).name] = `file:${cliTarball}`;
console.log(JSON.stringify({ name: "scratch-app", version: "1.0.0", private: true, overrides }, null, 2));
JS
cli_name="$(node -p 'Object.keys(require("./package.json").overrides).find((n) => n.startsWith("@roo-context/cli-"))')"
npm install --offline --no-audit --no-fund --loglevel=error "${client[0]}"
npm ls --all --offline | sed 's/^/  /'
test -x "node_modules/$cli_name/bin/roo-context" || { echo "the binary package was not installed as an optional dependency" >&2; exit 1; }

step "compile and run smoke.ts"
cp "$here/smoke.ts" .
# The repository's TypeScript compiles it against the installed package's own .d.ts files; only the
# Node types come from the extension's dev dependencies.
# Both module resolutions consumers use: nodenext (reads `exports`), and the older `node` that most
# VS Code extensions still have (reads `typesVersions`).
"$ext/node_modules/.bin/tsc" --strict --target es2022 --module commonjs --moduleResolution node \
  --types node --typeRoots "$ext/node_modules/@types" --skipLibCheck false --noEmit smoke.ts
"$ext/node_modules/.bin/tsc" --strict --target es2022 --module nodenext --moduleResolution nodenext \
  --types node --typeRoots "$ext/node_modules/@types" --skipLibCheck false smoke.ts
node smoke.js
step "passed"
