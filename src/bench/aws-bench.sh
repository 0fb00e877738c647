#!/bin/sh
# AWS scan benchmark: deja scan --aws against a fake ELBv2/EC2 Query endpoint on loopback holding 500 load
# balancers and 1,500 target groups, with a fixed latency per call. Prints deja's wall time (each run a fresh
# `java -jar target/deja.jar` process, as users run it) against the sequential floor (API calls x latency; target
# ratio <= 0.2), and the API calls the endpoint received against the minimum they need. Exit 1 if either misses.
# Usage: src/bench/aws-bench.sh [LOAD_BALANCERS [LATENCY_MS [RUNS [in-process]]]]     (defaults: 500 20 2)
set -e
cd "$(dirname "$0")/../.."
if [ "$4" = "in-process" ]; then mode=""; else mode="target/deja.jar"; fi
echo "aws-bench: building target/deja.jar and the test classes..." >&2
mvn -B -q -o -DskipTests package >&2 || mvn -B -q -DskipTests package >&2
cp=target/bench-classpath.txt
if [ ! -f "$cp" ] || [ pom.xml -nt "$cp" ]; then
  mvn -B -q -o dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp" >&2
fi
exec java -cp "target/test-classes:target/classes:$(cat "$cp")" dev.deja.source.aws.AwsBench "${1:-500}" "${2:-20}" "${3:-2}" $mode
