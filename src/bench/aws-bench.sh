#!/bin/sh
# AWS scan benchmark: deja scan --aws against a fake ELBv2/EC2 Query endpoint on loopback holding 500 load
# balancers and 1,500 target groups, with a fixed latency per call. Prints deja's wall time against the sequential
# floor (API calls x latency; target ratio <= 0.2) and the API calls received against the minimum they need.
# Usage: src/bench/aws-bench.sh [LOAD_BALANCERS [LATENCY_MS [RUNS]]]     (defaults: 500 20 2)
set -e
cd "$(dirname "$0")/../.."
mvn -B -q -o test-compile >&2 || mvn -B -q test-compile >&2
cp=target/bench-classpath.txt
if [ ! -f "$cp" ] || [ pom.xml -nt "$cp" ]; then
  mvn -B -q -o dependency:build-classpath -Dmdep.includeScope=test -Dmdep.outputFile="$cp" >&2
fi
exec java -cp "target/test-classes:target/classes:$(cat "$cp")" dev.deja.aws.AwsBench "$@"
