#!/usr/bin/env bash
# Runs every check and test of the repository: the README's test command and what CI runs.
# Order: cheap static checks first, then the Rust tests, then the editor clients.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

# CI stops a run at 90 minutes and then nothing lands. Under CI a long step that could not finish
# in time starts only before its deadline (minutes since this script started) and says so when it
# does not: a skipped step is printed, never counted as passed.
in_time() { # in_time <what> <start-by minutes>
  if [ "${CI:-}" = true ] && [ "$SECONDS" -gt $(( $2 * 60 )) ]; then
    step "$1: SKIPPED ($((SECONDS / 60)) min elapsed, past its start-by of $2 min within the 90-minute CI limit)"
    return 1
  fi
}

step "tools"
bash tests/install-deps.sh

step "format"
cargo fmt --all -- --check

step "core boundary: roo-context-core must not depend on tokio or LSP types"
# `cargo tree -i X` prints the paths from the core to X, and nothing when there are none.
cargo tree -p roo-context-core -e normal >/dev/null
for forbidden in tokio tower-lsp-server ls-types; do
  paths="$(cargo tree -p roo-context-core -e normal -i "$forbidden" 2>/dev/null || true)"
  if [ -n "$paths" ]; then
    echo "roo-context-core depends on $forbidden:" >&2
    echo "$paths" >&2
    exit 1
  fi
done
echo "ok"

step "unused dependencies (a planted one must be caught first)"
bash tests/unused-deps.sh

step "clippy"
cargo clippy --workspace --all-targets -- -D warnings

step "rust tests"
cargo build --workspace --all-targets
cargo test --workspace -- --test-threads=2

if [ -x editors/test.sh ]; then
  step "editor clients"
  editors/test.sh
fi

# The agents' own test suites, unmodified, with their context modules answered by the sidecar
# (issue 27): every failure must be a deliberate divergence on the allow-list, and the negative
# control (the binary path pointing nowhere) must make the sidecar-backed tests fail.
upstream_found=0
for candidate in "${ROO_FAMILY_UPSTREAM:-}" ../shared/upstream /work/shared/upstream; do
  if [ -n "$candidate" ] && [ -f "$candidate/roo-code-3.52.1-cb836567.tar.gz" ] \
    && [ -f "$candidate/zoo-code-3.80.0-f7ec103c.tar.gz" ]; then
    upstream_found=1
    export ROO_FAMILY_UPSTREAM="$(cd "$candidate" && pwd)"
    break
  fi
done
if [ "${ROO_SKIP_UPSTREAM:-0}" != 1 ] && [ "$upstream_found" = 0 ]; then
  # The snapshots are test data beside the repository (shared/upstream), not part of it.
  step "the agents' own suites: SKIPPED, no shared/upstream snapshots on this machine"
  if [ "${ROO_FAMILY_REQUIRED:-0}" = 1 ]; then exit 1; fi
elif [ "${ROO_SKIP_UPSTREAM:-0}" != 1 ]; then
  step "the agents' own suites (editors/roo-family)"
  target_dir="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
  export ROO_CONTEXT_BIN="$target_dir/debug/roo-context"
  # The negative control runs on the adapted modules' own specs (a few tests elsewhere turn a
  # failed call into the outcome they expect: editors/roo-family/README.md).
  adapted=(core/protect core/ignore utils/__tests__/tiktoken core/task/__tests__/mergeConsecutiveApiMessages
    core/condense core/context-management core/context/ core/message-manager core/context-tracking
    core/mentions __tests__/command-mentions services/tree-sitter)
  # Each agent's swap and control take about 15-30 minutes here (ROO_UPSTREAM_START_BY_MIN).
  for agent in roo zoo; do
    in_time "the $agent suite" "${ROO_UPSTREAM_START_BY_MIN:-45}" || continue
    bash editors/roo-family/run.sh "$agent"
    bash editors/roo-family/run.sh "$agent" --control -- "${adapted[@]}"
  done
fi

# The agents themselves on roo-context in a real VS Code (issue 28): each agent's .vsix built from
# its snapshot with the adapters and the sidecar inside, driven in code-server by a scripted model
# whose recorded requests are judged, then the same .vsix without its binary (access fails
# closed). ROO_SKIP_AGENT_E2E=1 skips it alone.
# About 10 minutes warm and 30 cold (ROO_E2E_START_BY_MIN).
if [ "$upstream_found" = 1 ] && [ "${ROO_SKIP_AGENT_E2E:-0}" != 1 ] \
  && ! in_time "the agents in a real VS Code" "${ROO_E2E_START_BY_MIN:-50}"; then
  :
elif [ "$upstream_found" = 1 ] && [ "${ROO_SKIP_AGENT_E2E:-0}" != 1 ]; then
  step "the agents in a real VS Code (editors/roo-family/e2e)"
  target_dir="$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')"
  export ROO_CONTEXT_BIN="$target_dir/debug/roo-context"
  for agent in roo zoo; do
    bash editors/roo-family/e2e/run.sh "$agent"
  done
elif [ "${ROO_SKIP_AGENT_E2E:-0}" = 1 ]; then
  step "the agents in a real VS Code: SKIPPED (ROO_SKIP_AGENT_E2E=1)"
fi
