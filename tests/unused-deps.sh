#!/usr/bin/env bash
# Fails when a workspace crate declares a dependency its code never names (`name::`, `use name`,
# `extern crate name`) or the workspace declares one no crate inherits, scanning the crate's folder and every target's folder (the black-box tests
# live outside crates/server). Planted unused dependencies in a scratch crate must be caught
# first, so the check cannot pass vacuously. Offline: `cargo metadata --no-deps` resolves nothing.
set -euo pipefail
cd "$(dirname "$0")/.."

check() { # $1: manifest path; prints "crate: dependency" for each unused one, then a count line
  cargo metadata --no-deps --format-version 1 --manifest-path "$1" | python3 -c '
import json, os, re, sys
meta = json.load(sys.stdin)
members = set(meta["workspace_members"])
checked = 0
for package in meta["packages"]:
    if package["id"] not in members:
        continue
    roots = {os.path.dirname(package["manifest_path"])}
    roots |= {os.path.dirname(t["src_path"]) for t in package["targets"]}
    source = ""
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if d not in ("target", "node_modules", ".git")]
            for name in files:
                if name.endswith(".rs"):
                    with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as f:
                        source += f.read() + "\n"
    for dep in package["dependencies"]:
        lib = (dep.get("rename") or dep["name"]).replace("-", "_")
        checked += 1
        pattern = rf"(\b{lib}::|\buse\s+{lib}\b|\bextern\s+crate\s+{lib}\b)"
        if not re.search(pattern, source):
            kind = dep["kind"] or "normal"
            print(package["name"] + ": " + dep["name"] + " (" + kind + ")")
# A [workspace.dependencies] entry that no member inherits is dead weight too.
import tomllib
def inherited(manifest):
    with open(manifest, "rb") as f:
        toml = tomllib.load(f)
    tables = [toml.get(k, {}) for k in ("dependencies", "dev-dependencies", "build-dependencies")]
    for target in toml.get("target", {}).values():
        tables += [target.get(k, {}) for k in ("dependencies", "dev-dependencies", "build-dependencies")]
    return {name for table in tables for name, spec in table.items()
            if isinstance(spec, dict) and spec.get("workspace")}
with open(os.path.join(meta["workspace_root"], "Cargo.toml"), "rb") as f:
    declared = tomllib.load(f).get("workspace", {}).get("dependencies", {})
used = set()
for package in meta["packages"]:
    if package["id"] in members:
        used |= inherited(package["manifest_path"])
for name in sorted(declared):
    checked += 1
    if name not in used:
        print("workspace: " + name + " (declared, inherited by no crate)")
print(f"checked {checked}")
'
}

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/src"
cat >"$scratch/Cargo.toml" <<'TOML'
[package]
name = "planted"
version = "0.0.0"
edition = "2021"
[dependencies]
serde = { workspace = true }
serde_json = "1"
[workspace]
[workspace.dependencies]
serde = "1"
anyhow = "1"
TOML
echo 'pub use serde::Serialize;' >"$scratch/src/lib.rs"
planted="$(check "$scratch/Cargo.toml")"
if [ "$planted" != "$(printf 'planted: serde_json (normal)\nworkspace: anyhow (declared, inherited by no crate)\nchecked 4')" ]; then
  echo "self-test failed: the planted unused serde_json was not reported exactly:" >&2
  echo "$planted" >&2
  exit 1
fi

report="$(check Cargo.toml)"
unused="$(grep -v '^checked ' <<<"$report" || true)"
checked="$(grep '^checked ' <<<"$report" | cut -d' ' -f2)"
if [ "${checked:-0}" -eq 0 ]; then
  echo "no dependencies were checked: the scan found nothing to look at" >&2
  exit 1
fi
if [ -n "$unused" ]; then
  echo "unused dependencies (remove them, or name them in the crate's code):" >&2
  echo "$unused" >&2
  exit 1
fi
echo "ok ($checked dependencies, each named in its crate's code)"
