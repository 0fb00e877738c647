#!/usr/bin/env bash
# deja prove benchmark: the wall time of `deja prove` on the IL-0264 example against its floor, 2 x --duration (a
# before run and an after run cannot take less). Target ratio <= 1.3: the sandbox, haproxy -c, haproxy start-up,
# the calm baseline, draining the requests in flight and the JVM together cost under 30% of the two runs.
# Usage: src/bench/prove-bench.sh [duration-seconds] [client-rps] [runs]   (defaults: 8 1500 3; needs haproxy)
# One measurement at a time: never run it in a loop beside other work on a busy machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
dur=${1:-8}
rps=${2:-1500}
runs=${3:-3}
command -v haproxy >/dev/null 2>&1 || { echo "prove-bench: haproxy is not on PATH (apt-get install haproxy)" >&2; exit 2; }
[ -f target/deja.jar ] || mvn -q -B -DskipTests package
cfg=examples/haproxy/il-0264-before.cfg
floor_ms=$((2 * dur * 1000))
total=0
for ((i = 1; i <= runs; i++)); do
  s=$(date +%s%N)
  code=0
  java -jar target/deja.jar prove "$cfg" --rule haproxy-tarpit-holds-slots --duration "${dur}s" \
    --client-rps "$rps" >/tmp/deja-prove-bench.out 2>&1 || code=$?
  e=$(date +%s%N)
  ms=$(( (e - s) / 1000000 ))
  total=$((total + ms))
  verdict=$(grep -m1 -o 'haproxy-tarpit-holds-slots: [A-Z-]*' /tmp/deja-prove-bench.out || echo "?")
  printf 'run %d  %6d ms  exit %d  %s\n' "$i" "$ms" "$code" "$verdict"
done
rm -f /tmp/deja-prove-bench.out
mean=$((total / runs))
printf 'deja prove %s --duration %ss --client-rps %s: mean %d ms; floor 2 x %ss = %d ms; ratio %.2f (target <= 1.3)\n' \
  "$cfg" "$dur" "$rps" "$mean" "$dur" "$floor_ms" "$(echo "$mean / $floor_ms" | bc -l)"
