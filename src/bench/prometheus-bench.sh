#!/usr/bin/env bash
# Prometheus query benchmark (issue 14): 7 days of a 1,000-series HAProxy fleet, written with Prometheus's own
# backfill (`promtool tsdb create-blocks-from openmetrics`), served by a real Prometheus on loopback. Times
# `./deja scan --prometheus URL --window 7d` (the launcher users run: a fresh JVM with its class-data archive; 5 instant
# queries, the rules, the report)
# against the same 5 PromQL queries sent with curl one after another, in alternating runs, and prints the ratio.
# Not a test: run it by hand. Bounded for a small machine: 100 instances x (4 frontends x 2 + 2 process series) =
# 1,000 series, one sample every STEP seconds (default 300: 2,016 samples a series, ~2 million in all).
# Also prints deja's own CPU time and the load average: on a shared machine a JVM's wall time is mostly the CPU it gets.
# Usage: src/bench/prometheus-bench.sh [RUNS [STEP]]      (defaults: 5 300; needs prometheus, promtool, curl, java)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
step=${2:-300}
for b in prometheus promtool curl; do
  command -v "$b" >/dev/null || { echo "prometheus-bench: $b is not installed (apt-get install prometheus curl)" >&2; exit 2; }
done
./deja --version >/dev/null   # builds target/deja.jar when missing or stale
work=$(mktemp -d)
prom_pid=
cleanup() { if [ -n "$prom_pid" ]; then kill "$prom_pid" 2>/dev/null; wait "$prom_pid" 2>/dev/null || true; fi; rm -rf "$work"; }
trap cleanup EXIT

now=$(date +%s)
start=$((now - 7 * 86400 + step))
echo "prometheus-bench: generating 7 days x 1,000 series (a sample every ${step}s)..." >&2
t0=$(date +%s%N)
awk -v start="$start" -v end="$now" -v step="$step" 'BEGIN {
  srand(42)
  inst = 100; fes = 4
  # peaks: instance 0 is hot (fe_0 reaches 790 of 800, process 1950 of 2000); the others stay low
  print "# TYPE haproxy_frontend_current_sessions gauge"
  for (i = 0; i < inst; i++) for (f = 0; f < fes; f++) {
    lab = sprintf("{instance=\"10.0.%d.%d:8405\",job=\"haproxy\",proxy=\"fe_%d\"}", int(i / 250), i % 250, f)
    for (t = start; t <= end; t += step) {
      v = int(rand() * 200)
      if (i == 0 && f == 0 && t == start + 1000 * step) v = 790
      printf "haproxy_frontend_current_sessions%s %d %d\n", lab, v, t
    }
  }
  print "# TYPE haproxy_frontend_limit_sessions gauge"
  for (i = 0; i < inst; i++) for (f = 0; f < fes; f++) {
    lab = sprintf("{instance=\"10.0.%d.%d:8405\",job=\"haproxy\",proxy=\"fe_%d\"}", int(i / 250), i % 250, f)
    for (t = start; t <= end; t += step) printf "haproxy_frontend_limit_sessions%s 800 %d\n", lab, t
  }
  print "# TYPE haproxy_process_current_connections gauge"
  for (i = 0; i < inst; i++) {
    lab = sprintf("{instance=\"10.0.%d.%d:8405\",job=\"haproxy\"}", int(i / 250), i % 250)
    for (t = start; t <= end; t += step) {
      v = int(rand() * 500)
      if (i == 0 && t == start + 1000 * step) v = 1950
      printf "haproxy_process_current_connections%s %d %d\n", lab, v, t
    }
  }
  print "# TYPE haproxy_process_max_connections gauge"
  for (i = 0; i < inst; i++) {
    lab = sprintf("{instance=\"10.0.%d.%d:8405\",job=\"haproxy\"}", int(i / 250), i % 250)
    for (t = start; t <= end; t += step) printf "haproxy_process_max_connections%s 2000 %d\n", lab, t
  }
  print "# EOF"
}' > "$work/fleet.om"
samples=$(grep -vc '^#' "$work/fleet.om")
t1=$(date +%s%N)
promtool tsdb create-blocks-from openmetrics -q "$work/fleet.om" "$work/data" >&2
t2=$(date +%s%N)
rm "$work/fleet.om"
echo "prometheus-bench: $samples samples; generated in $(( (t1 - t0) / 1000000 )) ms, backfilled in $(( (t2 - t1) / 1000000 )) ms ($(du -sh "$work/data" | cut -f1) of blocks)" >&2

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
url="http://127.0.0.1:$port"
prometheus --config.file=/dev/null --storage.tsdb.path="$work/data" --storage.tsdb.retention.time=30d \
  --web.listen-address="127.0.0.1:$port" >"$work/prometheus.log" 2>&1 &
prom_pid=$!
for _ in $(seq 1 600); do   # up to 120 s on a busy machine
  if curl -fsS "$url/-/ready" >/dev/null 2>&1; then break; fi
  kill -0 "$prom_pid" 2>/dev/null || { cat "$work/prometheus.log" >&2; exit 1; }
  sleep 0.2
done
curl -fsS "$url/-/ready" >/dev/null || { echo "prometheus-bench: Prometheus not ready in 120 s" >&2; exit 1; }

queries=(
  'max_over_time(haproxy_frontend_current_sessions[7d])'
  'last_over_time(haproxy_frontend_limit_sessions[7d])'
  'max_over_time(haproxy_process_current_connections[7d])'
  'last_over_time(haproxy_process_max_connections[7d])'
  'max_over_time(nginx_ingress_controller_nginx_process_connections{state="active"}[7d])'
)
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
ref() { for q in "${queries[@]}"; do curl -fsS --http1.1 -G "$url/api/v1/query" --data-urlencode "query=$q" >/dev/null; done; }
deja_scan() {
  /usr/bin/time -f "%U %S" -a -o "$work/cpu" ./deja scan --prometheus "$url" --window 7d --allow-partial --fail-on none --format json \
    --rules haproxy-sessions-near-limit,lb-connections-near-capacity -o "$work/report.json" 2>/dev/null
}
ref; deja_scan; : > "$work/cpu"   # warm Prometheus's page cache for both
refs=(); dejas=()
for r in $(seq 1 "$runs"); do
  if [ $((r % 2)) -eq 1 ]; then
    t=$(date +%s%N); ref; refs+=("$(ms "$t")"); t=$(date +%s%N); deja_scan; dejas+=("$(ms "$t")")
  else
    t=$(date +%s%N); deja_scan; dejas+=("$(ms "$t")"); t=$(date +%s%N); ref; refs+=("$(ms "$t")")
  fi
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
mr=$(median "${refs[@]}"); md=$(median "${dejas[@]}")
t=$(date +%s%N); java -version 2>/dev/null; jvm=$(ms "$t")
findings=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r["findings"]))' "$work/report.json")
echo "curl, the 5 queries one after another: ${refs[*]} ms (median $mr ms)"
echo "./deja scan --prometheus (fresh JVM):     ${dejas[*]} ms (median $md ms); ${findings} findings"
echo "java -version (JVM start floor):        $jvm ms"
# on a shared machine the wall time of a JVM depends on the CPU it gets: its own CPU time says what it costs
cpu=$(awk '{printf "%d ", ($1 + $2) * 1000}' "$work/cpu")
echo "deja's CPU time (user+sys):             ${cpu}ms (median $(median $cpu) ms); load average $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v d="$md" -v r="$mr" 'BEGIN { printf "ratio deja / curl: %.2f\n", d / (r > 0 ? r : 1) }'
