#!/usr/bin/env bash
# Benchmark of the HAProxy source against references measured in the same run:
#   1. a generated ~85,000-line haproxy.cfg (2,500 frontends and backends, 20 servers each):
#      `deja scan` against `haproxy -c -f` on the same file             (target ratio <= 1.0)
#   2. a 50-line haproxy.cfg: `deja scan` against `java -version`        (target ratio <= 8; the JVM start is the floor)
# Runs alternate between the two commands of a pair (A B, B A, ...) so that drift of the machine hits both.
# Each run is timed with hyperfine (one run per call) when it is installed, else with /usr/bin/time.
# Usage: src/bench/haproxy-bench.sh [ROUNDS]      (default 7; needs java, haproxy, and target/deja.jar or mvn)
#        BENCH_TIMER=time src/bench/haproxy-bench.sh   forces /usr/bin/time (or date) instead of hyperfine
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-7}
jar=target/deja.jar
# the launcher users run: ./deja (C1 only, serial GC, the AppCDS archive target/deja.jsa when the build made one)
java_cmd=(./deja)
command -v haproxy >/dev/null || { echo "haproxy is not installed (apt-get install haproxy)" >&2; exit 2; }
./deja --version >/dev/null   # builds target/deja.jar when missing or stale
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# ---------------------------------------------------------------- inputs
awk -v n=2500 -v servers=20 'BEGIN {
  print "global"; print "    maxconn 200000"; print "    stats socket /tmp/deja-bench.sock mode 600 level admin"; print ""
  print "defaults"; print "    mode http"; print "    timeout connect 5s"; print "    timeout client 30s"
  print "    timeout server 30s"; print "    timeout http-request 5s"; print ""
  print "backend st_rates"; print "    stick-table type ip size 1m expire 10s store http_req_rate(1s)"; print ""
  for (i = 0; i < n; i++) {
    printf "frontend fe_%d\n    bind 127.0.0.1:%d\n    mode http\n    maxconn 50\n    option httplog\n", i, 20000 + i
    printf "    acl abuse sc_http_req_rate(0) gt 100\n    http-request track-sc0 src table st_rates\n"
    printf "    http-request deny deny_status 429 if abuse\n    timeout client 20s\n    default_backend be_%d\n\n", i
    printf "backend be_%d\n    balance roundrobin\n    option httpchk GET /health\n", i
    for (s = 0; s < servers; s++) {
      printf "    server s%d 10.%d.%d.%d:8080 weight 10\n", s, int(i / 250), i % 250, s + 1
    }
    print ""
  }
}' > "$work/big.cfg"
cat > "$work/small.cfg" <<'CFG'
global
    maxconn 4000
    log stdout format raw local0
    stats socket /tmp/deja-bench-small.sock mode 600 level admin

defaults
    mode http
    log global
    option httplog
    timeout connect 5s
    timeout client 30s
    timeout server 30s
    timeout http-request 5s

backend st_rates
    stick-table type ip size 1m expire 10s store http_req_rate(1s)

frontend www
    bind :8080
    maxconn 2000
    http-request track-sc0 src table st_rates
    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 50 }
    use_backend be_api if { path_beg /api }
    default_backend be_web

frontend ping
    bind :8081
    maxconn 1000
    http-request track-sc0 src table st_rates
    http-request deny deny_status 429 if { sc_http_req_rate(0) gt 50 }
    default_backend be_api

backend be_web
    balance roundrobin
    option httpchk GET /health
    server web1 10.0.0.1:80 check
    server web2 10.0.0.2:80 check
    server web3 10.0.0.3:80 check

backend be_api
    balance leastconn
    option httpchk GET /health
    server api1 10.0.1.1:80 check
    server api2 10.0.1.2:80 check
    server api3 10.0.1.3:80 check
    server api4 10.0.1.4:80 check
    server api5 10.0.1.5:80 check
    server api6 10.0.1.6:80 check
CFG
echo "big config:   $(wc -l < "$work/big.cfg") lines, $(grep -c '^frontend' "$work/big.cfg") frontends, $(grep -c '^    server' "$work/big.cfg") servers"
echo "small config: $(wc -l < "$work/small.cfg") lines"
haproxy -c -q -f "$work/big.cfg" || { echo "haproxy -c refuses the generated config" >&2; exit 2; }

# ---------------------------------------------------------------- timing
# BENCH_TIMER=hyperfine|time|date forces a timer
timer=${BENCH_TIMER:-}
if [ -z "$timer" ]; then
  if command -v hyperfine >/dev/null; then timer=hyperfine; elif [ -x /usr/bin/time ]; then timer=time; else timer=date; fi
fi
echo "timer: $timer; $rounds alternating rounds per pair"

# seconds for one run of the command (stdout/stderr discarded)
one_run() {
  case "$timer" in
    hyperfine)
      hyperfine -N --runs 1 --export-json "$work/h.json" --style none -- "$(printf '%q ' "$@")" >/dev/null 2>&1 \
        || { echo "failed: $*" >&2; exit 2; }
      sed -n 's/.*"mean": *\([0-9.e-]*\).*/\1/p' "$work/h.json" | head -n 1 ;;
    time)
      /usr/bin/time -f '%e' -o "$work/t" "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 2; }
      tail -n 1 "$work/t" ;;
    *)
      local s e; s=$(date +%s%N); "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 2; }; e=$(date +%s%N)
      echo "scale=4; ($e - $s) / 1000000000" | bc ;;
  esac
}

median() { sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2] + a[NR/2+1]) / 2}'; }

# pair NAME -- A... -- B...
pair() {
  local name=$1; shift; shift
  local a=() b=()
  while [ "$1" != "--" ]; do a+=("$1"); shift; done; shift
  b=("$@")
  "${a[@]}" >/dev/null 2>&1 || true; "${b[@]}" >/dev/null 2>&1 || true   # warm the page cache
  : > "$work/a"; : > "$work/b"
  for ((r = 0; r < rounds; r++)); do
    if ((r % 2 == 0)); then one_run "${a[@]}" >> "$work/a"; one_run "${b[@]}" >> "$work/b"
    else one_run "${b[@]}" >> "$work/b"; one_run "${a[@]}" >> "$work/a"; fi
  done
  local ma mb la lb
  ma=$(median < "$work/a"); mb=$(median < "$work/b")
  la=$(sort -g "$work/a" | head -n 1); lb=$(sort -g "$work/b" | head -n 1)
  printf '%-44s deja %.3fs   reference %.3fs   ratio %.2f   (fastest runs: %.3fs / %.3fs = %.2f)\n' \
    "$name" "$ma" "$mb" "$(echo "$ma / $mb" | bc -l)" "$la" "$lb" "$(echo "$la / $lb" | bc -l)"
}

pair "85k-line config: deja scan / haproxy -c" -- "${java_cmd[@]}" scan --fail-on none "$work/big.cfg" \
  -- haproxy -c -q -f "$work/big.cfg"
pair "50-line config: deja scan / java -version" -- "${java_cmd[@]}" scan --fail-on none "$work/small.cfg" \
  -- java -XX:TieredStopAtLevel=1 -version
echo "ratio = median of deja / median of the reference; targets: <= 1.0 (85k-line config), <= 8 (50-line config)"
echo "on a busy machine the fastest runs are the steadier figure"
