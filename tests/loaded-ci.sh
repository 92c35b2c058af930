#!/bin/bash
# Issue 25's proof of "green under load": three fresh-clone runs of `CI=true bash .ci/run` in a
# row on one commit, with two busy loops beside them, the load average sampled every 30 s.
#
#   bash tests/loaded-ci.sh [COMMIT] [WORKDIR]     (defaults: HEAD of this clone, /tmp/loaded-ci)
#
# WORKDIR/summary gets one line per run (start, end, rc, seconds), WORKDIR/load.log the samples,
# WORKDIR/runN.log each run's output. Stops at the first failing run. Takes 1.5 hours or more.
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
COMMIT=${1:-$(git -C "$REPO" rev-parse HEAD)}
WORK=${2:-/tmp/loaded-ci}
mkdir -p "$WORK"
(while true; do :; done) & B1=$!
(while true; do :; done) & B2=$!
(while true; do uptime >> "$WORK/load.log"; sleep 30; done) & L=$!
trap 'kill $B1 $B2 $L 2>/dev/null' EXIT
for i in 1 2 3; do
  rm -rf "$WORK/clone" && git clone -q "$REPO" "$WORK/clone" && git -C "$WORK/clone" checkout -q "$COMMIT"
  echo "run $i start $(date -u +%T) commit $(git -C "$WORK/clone" rev-parse --short HEAD)" >> "$WORK/summary"
  start=$(date +%s)
  (cd "$WORK/clone" && CI=true bash .ci/run) > "$WORK/run$i.log" 2>&1
  rc=$?
  echo "run $i end $(date -u +%T) rc=$rc secs=$(( $(date +%s) - start ))" >> "$WORK/summary"
  [ $rc -ne 0 ] && exit $rc
done
awk -F'load average: ' '{split($2, a, ", "); print a[1]}' "$WORK/load.log" | sort -n |
  awk '{v[NR] = $1} END {print "load samples", NR, "median", v[int(NR / 2) + 1], "max", v[NR]}' >> "$WORK/summary"
