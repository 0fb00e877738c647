#!/bin/sh
# Fleet merge benchmark: `deja report merge` of REPORTS scan reports of FINDINGS findings each (default 1,000 x 300;
# two thirds of each report's findings are shared by every cluster, one third its own), written by
# dev.deja.report.MergeBench from a real scan of examples/kubernetes. Measures deja (java -Xmx512m -jar
# target/deja.jar, the report as JSON and as HTML) against references over the same files in the same invocation:
# `cat` (reading the bytes) and `jq -s` (parsing them all as JSON, when jq is installed). Wall time and peak RSS
# from /usr/bin/time -v. Targets: under 10 s and within -Xmx512m (exit 1 if deja misses the time or runs out of heap).
# On a machine shared with other work, the target applies to the CPU time (user+sys), printed with the load average.
# Usage: src/bench/merge-bench.sh [REPORTS [FINDINGS]]
set -e
cd "$(dirname "$0")/../.."
reports=${1:-1000}
findings=${2:-300}
[ -x /usr/bin/time ] || { echo "merge-bench: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
echo "merge-bench: building target/deja.jar and the test classes..." >&2
mvn -B -q -o -DskipTests package >&2 || mvn -B -q -DskipTests package >&2
cp=target/bench-classpath.txt
if [ ! -f "$cp" ] || [ pom.xml -nt "$cp" ]; then
  mvn -B -q -o dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp" >&2
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/deja-merge-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
java -cp "target/test-classes:target/classes:$(cat "$cp")" dev.deja.report.MergeBench "$work/reports" "$reports" "$findings"

# name, then the command; prints "name  wall s  CPU s (user+sys)  peak RSS MB  exit". On a shared machine the CPU
# time is the figure to compare (the load average is printed with it); wall time is what a user waits.
measure() {
  name=$1; shift
  /usr/bin/time -v -o "$work/time.txt" "$@" >"$work/out" 2>"$work/err" && code=0 || code=$?
  wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$work/time.txt" \
    | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  user=$(sed -n 's/.*User time (seconds): //p' "$work/time.txt")
  sys=$(sed -n 's/.*System time (seconds): //p' "$work/time.txt")
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$work/time.txt")
  printf '%-18s wall %7.2f s  cpu %7.2f s  peak RSS %7.1f MB  exit %s  (load %s)\n' "$name" "$wall" \
    "$(echo "$user + $sys" | bc -l)" "$(echo "$rss / 1024" | bc -l)" "$code" "$(cut -d' ' -f1 /proc/loadavg)"
  echo "$user + $sys" | bc -l >"$work/cpu.$name"
  if grep -q "out of memory" "$work/err"; then echo "merge-bench: $name ran out of memory" >&2; echo oom >"$work/oom.$name"; fi
}
files=$(find "$work/reports" -name '*.json' | sort)
# shellcheck disable=SC2086
measure cat cat $files
if command -v jq >/dev/null 2>&1; then
  # shellcheck disable=SC2086
  measure jq-s jq -s length $files
fi
measure deja-merge-json java -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar target/deja.jar report merge \
  "$work/reports" --format json -o "$work/fleet.json" --allow-partial
measure deja-merge-html java -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -jar target/deja.jar report merge \
  "$work/reports" --format html -o "$work/fleet.html" --allow-partial
tail -n 1 "$work/err"
jq -r '"fleet report: \(.fleet.targets | length) targets (\([.fleet.targets[] | select(.stale)] | length) stale), \(.findings | length) findings"' \
  "$work/fleet.json" 2>/dev/null || true
fail=0
for n in deja-merge-json deja-merge-html; do
  if [ -f "$work/oom.$n" ] || [ "$(echo "$(cat "$work/cpu.$n") > 10" | bc)" = 1 ]; then
    echo "merge-bench: $n missed the target (10 s, -Xmx512m)" >&2; fail=1
  fi
done
exit $fail
