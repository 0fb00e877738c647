#!/usr/bin/env bash
# deja prove benchmark: the wall time of `deja prove` on the IL-0264 example against its floor, the time its
# runs take together (each run's length plus its calm baseline, as the JSON report's runMillis says: the
# before and after runs and the margin search's runs; nothing can make them shorter). Target ratio <= 1.3:
# the sandbox, haproxy -c, haproxy start-up, the isolation (bubblewrap), draining the requests in flight and the
# JVM together cost under 30% of the runs.
# Usage: src/bench/prove-bench.sh [duration-seconds] [client-rps] [runs] [--no-find-limit]
#   (defaults: 8 300 3, margin on, as the README's demo; needs haproxy and jq)
# One measurement at a time: never run it in a loop beside other work on a busy machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
dur=${1:-8}
rps=${2:-300}
runs=${3:-3}
extra=${4:-}
command -v haproxy >/dev/null 2>&1 || { echo "prove-bench: haproxy is not on PATH (apt-get install haproxy)" >&2; exit 2; }
command -v jq >/dev/null 2>&1 || { echo "prove-bench: jq is not on PATH (apt-get install jq)" >&2; exit 2; }
[ -f target/deja.jar ] || mvn -q -B -Dmaven.test.skip=true package
cfg=examples/haproxy/il-0264-before.cfg
out=$(mktemp)
trap 'rm -f "$out"' EXIT
sum_wall=0
sum_floor=0
for ((i = 1; i <= runs; i++)); do
  s=$(date +%s%N)
  code=0
  # shellcheck disable=SC2086
  java -cp target/deja.jar dev.deja.Main prove "$cfg" --rule haproxy-tarpit-holds-slots --duration "${dur}s" \
    --client-rps "$rps" --format json $extra >"$out" 2>/dev/null || code=$?
  e=$(date +%s%N)
  ms=$(( (e - s) / 1000000 ))
  floor=$(jq -r '.runMillis' "$out")
  verdict=$(jq -r '.proofs[0].headline' "$out")
  sum_wall=$((sum_wall + ms))
  sum_floor=$((sum_floor + floor))
  printf 'run %d  %6d ms  runs %6d ms  ratio %.2f  exit %d  %s\n' "$i" "$ms" "$floor" \
    "$(echo "$ms / $floor" | bc -l)" "$code" "$verdict"
done
printf 'deja prove %s --duration %ss --client-rps %s %s: wall %d ms against its runs %d ms: ratio %.2f (target <= 1.3)\n' \
  "$cfg" "$dur" "$rps" "$extra" "$((sum_wall / runs))" "$((sum_floor / runs))" "$(echo "$sum_wall / $sum_floor" | bc -l)"
