#!/usr/bin/env bash
# Rules of one's own in CEL (docs/writing-rules.md), against the same scan without them:
#   0. for information: one HAProxy rule over a 2-line config, against the same scan without it: what bringing up
#      CEL costs before any object is judged (its classes, parser, type-checker and runtime)
#   1. 50 HAProxy rules (frontends' effective settings, backends' servers, effective(), millis()) over the generated
#      ~85,000-line haproxy.cfg of haproxy-bench.sh (2,500 frontends and backends, 20 servers each):
#      `deja scan --rules-dir R cfg` against `deja scan cfg`                                   (target ratio <= 1.5)
#   2. 50 Kubernetes rules (fields of Deployments, Services, HPAs; isLoadBalancer, pods, pdbsOf) over the synthetic
#      cluster of kube-bench.sh (about 28,000 objects in Fabric8's mock API server, real HTTP):
#      `deja scan --cluster --rules-dir R` against `deja scan --cluster`                        (target ratio <= 1.5)
# Each rule reads what a real one does and fires on about 1% of the objects it judges (a name suffix), as a team's
# rules fire on few objects: the row measures judging, not writing tens of thousands of findings.
# Both through ./deja, the launcher users run (the Kubernetes scans with DEJA_JAVA_OPTS=-Xmx384m, as kube-bench.sh);
# runs alternate between the two commands of a pair (A B, B A, ...); the medians are compared.
# Usage: src/bench/user-rules-bench.sh [ROUNDS]      (default 5; needs java and target/deja.jar or mvn)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5}
./deja --version >/dev/null   # builds target/deja.jar when missing or stale
work=$(mktemp -d)
server=""
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# ---------------------------------------------------------------- the rules
head_rule() { # id source title
  printf 'id: %s\ntitle: %s\nseverity: low\nsource: %s\ncases: [BENCH-0001]\n' "$1" "$3" "$2"
  printf 'description: A benchmark rule.\nremediation: Nothing to do.\nlinks: [https://example.org/bench]\n'
}
mkdir -p "$work/haproxy-rules/cases" "$work/kube-rules/cases"
for d in haproxy-rules kube-rules; do
  cat > "$work/$d/cases/BENCH-0001.yaml" <<'CASE'
id: BENCH-0001
title: A benchmark case
organisation: deja's benchmark
date: "2026-01-01"
tags: [bench]
summary: The case the benchmark's rules link.
timeline:
  - {time: "00:00", event: Nothing happened.}
followUps: [None.]
links: [https://example.org/bench]
CASE
done
for i in $(seq 0 49); do
  id=bench-haproxy-$i
  { head_rule "$id" haproxy "Benchmark HAProxy rule $i"
    case $((i % 5)) in
      0) printf 'check:\n  for: frontends\n  when: object.http && object.client.known && object.client.millis > %d && object.section.name.endsWith("%02d")\n' $((i * 100)) "$i"
         printf "  message: '{{ object.section.label }} waits {{ formatMillis(object.client.millis) }} for a client'\n" ;;
      1) printf "check:\n  for: backends\n  when: size(object.directives.filter(d, d.keyword == 'server')) > %d && object.name.endsWith('%02d')\n" $((i % 25)) "$i"
         printf "  message: '{{ object.label }} has {{ size(object.directives.filter(d, d.keyword == \"server\")) }} servers'\n" ;;
      2) printf "check:\n  for: proxies\n  when: |\n    effective(object, 'timeout server') == null\n"
         printf "      || millis(effective(object, 'timeout server').words[2]) > %d\n      && object.name.endsWith('%02d')\n" $((i * 100)) "$i"
         printf "  message: '{{ object.label }}: timeout server over %ds'\n" "$i" ;;
      3) printf 'check:\n  for: frontends\n  when: object.maxconn.frontend > %d && !object.rateLimited && object.section.name.endsWith("%02d")\n' "$i" "$i"
         printf "  message: '{{ object.section.label }} allows {{ object.maxconn.frontend }} connections'\n" ;;
      4) printf "check:\n  for: backends\n  when: |\n    object.directives.exists(d, d.keyword == 'option' && size(d.words) > 1\n"
         printf "      && d.words[1] == 'httpchk') && size(object.label) > %d && object.name.endsWith('%02d')\n" "$i" "$i"
         printf "  message: '{{ object.label }} checks its servers with {{ effective(object, \"option httpchk\").text }}'\n" ;;
    esac
    printf '  key: bench %d\n' "$i"
  } > "$work/haproxy-rules/$id.yaml"
  id=bench-kube-$i
  { head_rule "$id" kubernetes "Benchmark Kubernetes rule $i"
    case $((i % 5)) in
      0) printf 'check:\n  for: [Deployment]\n  when: has(object.replicas) && object.replicas < %d && object.meta.name.endsWith("%02d")\n' $((i % 7 + 3)) "$i"
         printf "  message: '{{ object.meta.display }} runs {{ object.replicas }} replicas'\n" ;;
      1) printf 'check:\n  for: [Deployment, StatefulSet, DaemonSet]\n  when: isLoadBalancer(object) && object.kind != "DaemonSet" && pods(object) < %d\n' $((i % 4 + 2))
         printf "  message: '{{ object.meta.display }} runs {{ pods(object) }} pods {{ loadBalancer(object).because }}'\n" ;;
      2) printf "check:\n  for: [Service]\n  when: size(object.selector) > 0 && size(object.meta.labels) > %d && object.meta.name.endsWith('%02d')\n" $((i % 3)) "$i"
         printf "  message: '{{ object.meta.display }} selects {{ object.selector }}'\n" ;;
      3) printf "check:\n  for: [Deployment]\n  when: object.containers.exists(c, !has(c.readiness)) && size(object.meta.name) > %d && object.meta.name.endsWith('%02d')\n" $((i % 9)) "$i"
         printf "  message: '{{ object.meta.display }} has a container without a readiness probe'\n" ;;
      4) printf "check:\n  for: [Deployment]\n  when: size(hpaOf(object)) > 0 && size(pdbsOf(object)) == 0 && hpaOf(object)[0].effectiveMin <= %d\n" $((i % 5))
         printf "  message: '{{ object.meta.display }} scales down to {{ hpaOf(object)[0].effectiveMin }} without a PDB'\n" ;;
    esac
    printf '  key: bench %d\n' "$i"
  } > "$work/kube-rules/$id.yaml"
done
./deja rules test --lint "$work/haproxy-rules" >/dev/null
./deja rules test --lint "$work/kube-rules" >/dev/null

# ---------------------------------------------------------------- timing
secs() { # command...: wall seconds of one run (exit 0 or 1 is a scan that ran)
  local t0 t1 rc
  t0=$(date +%s.%N)
  set +e; "$@" >/dev/null 2>"$work/err"; rc=$?; set -e
  t1=$(date +%s.%N)
  if [ "$rc" -gt 1 ]; then echo "failed ($rc): $*" >&2; cat "$work/err" >&2; exit 1; fi
  echo "$t1 - $t0" | bc -l
}
median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.2f", m}'; }
pair() { # label, then the two commands separated by --- (TARGET: the ratio's target, shown after it)
  local label=$1; shift
  local a=() b=() seen=0
  for x in "$@"; do
    if [ "$x" = "---" ]; then seen=1; elif [ $seen = 0 ]; then a+=("$x"); else b+=("$x"); fi
  done
  secs "${a[@]}" >/dev/null; secs "${b[@]}" >/dev/null   # warm-up
  : > "$work/a"; : > "$work/b"
  for r in $(seq 1 "$rounds"); do
    if [ $((r % 2)) = 1 ]; then secs "${a[@]}" >> "$work/a"; secs "${b[@]}" >> "$work/b"
    else secs "${b[@]}" >> "$work/b"; secs "${a[@]}" >> "$work/a"; fi
  done
  local ma mb
  ma=$(median < "$work/a"); mb=$(median < "$work/b")
  printf '%-70s %6ss vs %6ss  ratio %s (%s)\n' "$label" "$ma" "$mb" "$(echo "scale=2; $ma / $mb" | bc -l)" \
    "${TARGET:-target <= 1.5}"
}

awk -v n=2500 -v servers=20 'BEGIN {
  print "global"; print "    maxconn 200000"; print "    stats socket /tmp/deja-bench.sock mode 600 level admin"; print ""
  print "defaults"; print "    mode http"; print "    timeout connect 5s"; print "    timeout client 30s"
  print "    timeout server 30s"; print "    timeout http-request 5s"; print ""
  print "backend st_rates"; print "    stick-table type ip size 1m expire 10s store http_req_rate(1s)"; print ""
  for (i = 0; i < n; i++) {
    printf "frontend fe_%d\n    bind 127.0.0.1:%d\n    mode http\n    maxconn 50\n    option httplog\n", i, 20000 + i
    printf "    acl abuse sc_http_req_rate(0) gt 100\n    http-request track-sc0 src table st_rates\n"
    printf "    http-request deny deny_status 429 if abuse\n"
    printf "    timeout client 20s\n    default_backend be_%d\n\n", i
    printf "backend be_%d\n    balance roundrobin\n    option httpchk GET /health\n", i
    for (s = 0; s < servers; s++) {
      printf "    server s%d 10.%d.%d.%d:8080 weight 10\n", s, int(i / 250), i % 250, s + 1
    }
    print ""
  }
}' > "$work/big.cfg"
echo "haproxy.cfg: $(wc -l < "$work/big.cfg") lines; rules: 50 HAProxy, 50 Kubernetes ($rounds rounds each)"
# what CEL costs before it judges anything: one rule on a 2-line config (the start-up archive, CEL's classes, its
# parser, type-checker and runtime), shown beside row 1, whose budget at 1.5x is half the scan without rules
mkdir -p "$work/one-rule/cases"
cp "$work/haproxy-rules/bench-haproxy-0.yaml" "$work/one-rule/"
cp "$work/haproxy-rules/cases/BENCH-0001.yaml" "$work/one-rule/cases/"
printf 'global\n    maxconn 100\n' > "$work/tiny.cfg"
TARGET="information: CEL's fixed cost" pair "0. 2-line config: 1 user rule vs none" \
  ./deja scan --fail-on none --rules-dir "$work/one-rule" "$work/tiny.cfg" --- \
  ./deja scan --fail-on none "$work/tiny.cfg"
pair "1. HAProxy 85k lines: 50 user rules vs none" \
  ./deja scan --fail-on none --rules-dir "$work/haproxy-rules" "$work/big.cfg" --- \
  ./deja scan --fail-on none "$work/big.cfg"

# the synthetic cluster, served until the end of this script
cp_file=target/bench-classpath.txt
mvn -B -q -o test-compile
if [ ! -s "$cp_file" ]; then
  plugin=org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath
  mvn -B -q -o "$plugin" -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test \
    || mvn -B -q "$plugin" -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test
fi
java -Xmx3g -cp "target/test-classes:target/classes:$(cat "$cp_file")" dev.deja.source.kube.KubeBench \
  --jar target/deja.jar --serve > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 600); do
  grep -q 'kubeconfig .*; stop with' "$work/server.log" && break
  kill -0 "$server" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
  sleep 1
done
kc=$(sed -n 's/.*; kubeconfig \(.*\); stop with.*/\1/p' "$work/server.log" | head -n 1)
[ -n "$kc" ] || { echo "the mock cluster did not start" >&2; cat "$work/server.log" >&2; exit 1; }
grep '^cluster:' "$work/server.log" || true
export DEJA_JAVA_OPTS=-Xmx384m
pair "2. Kubernetes cluster: 50 user rules vs none" \
  ./deja scan --fail-on none --cluster --kubeconfig "$kc" --rules-dir "$work/kube-rules" --- \
  ./deja scan --fail-on none --cluster --kubeconfig "$kc"
