#!/usr/bin/env bash
# Runs one black-box test N times in a row with busy loops beside it (a loaded CI machine):
#   bash tests/under-load.sh 200 files::a_thousand_concurrent_tracks_across_ten_tasks_are_all_persisted_in_order [LOOPS]
# Prints how many passed; the log of each failure is kept in target/under-load/.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:?usage: under-load.sh RUNS TEST [BUSY_LOOPS]}"
test_name="${2:?usage: under-load.sh RUNS TEST [BUSY_LOOPS]}"
loops="${3:-4}"
cargo test -q -p roo-context --test blackbox --no-run 2>/dev/null
binary="$(cargo test -p roo-context --test blackbox --no-run --message-format=json 2>/dev/null |
  python3 -c 'import json,sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "blackbox":
        print(m["executable"])')"
out=target/under-load
mkdir -p "$out"
for _ in $(seq "$loops"); do (while :; do :; done) & done
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
pass=0
fail=0
for i in $(seq "$runs"); do
  if (cd crates/server && "$binary" "$test_name" --exact --test-threads=1 >"../../$out/last.log" 2>&1); then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    cp "$out/last.log" "$out/failure-$i.log"
  fi
done
echo "$test_name: $pass passed, $fail failed of $runs with $loops busy loops (load $(cut -d' ' -f1-3 /proc/loadavg))"
[ "$fail" = 0 ]
