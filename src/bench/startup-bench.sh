#!/usr/bin/env bash
# Start-up benchmark: `deja --version` and `deja rules` against `java -version` (the JVM start is the floor),
# measured alternately in the same run. Prints the mean times and the ratios. Uses hyperfine when installed
# (Debian package `hyperfine`), otherwise a loop of /usr/bin/time-free wall-clock measurements with `date +%s%N`.
# Usage: src/bench/startup-bench.sh [runs]     (builds target/deja.jar if missing)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-20}
[ -f target/deja.jar ] || mvn -q -B -DskipTests package
jar=target/deja.jar
ref="java -version"
cmds=("java -jar $jar --version" "java -jar $jar rules")

mean_ms() { # command -> mean wall ms over $runs, alternating with the reference is done by the caller
  local s e
  s=$(date +%s%N); eval "$1" >/dev/null 2>&1 || true; e=$(date +%s%N)
  echo $(( (e - s) / 1000 ))
}

if command -v hyperfine >/dev/null 2>&1; then
  out=$(mktemp)
  hyperfine -N -w 3 -r "$runs" --export-json "$out" "$ref" "${cmds[@]}" >/dev/null
  python3 - "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
ref = r[0]["mean"]
print(f"reference  {r[0]['command']:<45} {ref*1000:7.1f} ms")
for x in r[1:]:
    print(f"           {x['command']:<45} {x['mean']*1000:7.1f} ms   ratio {x['mean']/ref:.2f}")
PY
  rm -f "$out"
else
  declare -A tot
  for ((i = 0; i < runs; i++)); do
    for c in "$ref" "${cmds[@]}"; do tot[$c]=$(( ${tot[$c]:-0} + $(mean_ms "$c") )); done
  done
  refus=${tot[$ref]}
  printf 'reference  %-45s %7.1f ms\n' "$ref" "$(echo "$refus / $runs / 1000" | bc -l)"
  for c in "${cmds[@]}"; do
    printf '           %-45s %7.1f ms   ratio %.2f\n' "$c" "$(echo "${tot[$c]} / $runs / 1000" | bc -l)" "$(echo "${tot[$c]} / $refus" | bc -l)"
  done
fi
