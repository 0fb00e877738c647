#!/usr/bin/env bash
# Fleet scale benchmark: N synthetic clusters of 1,000 pods each, each in its own Fabric8 mock API server (CRUD mode,
# real HTTP, started by the harness), one kubeconfig with a context per cluster. Times
# `deja scan --all-contexts --parallel 8` in its own JVM with -Xmx512m against the parallel floor (the slowest
# single-cluster scan x N / 8) and prints the ratio (target <= 1.3) and the run's max RSS. Not a test: run it by hand.
#
#   src/bench/fleet-bench.sh [--clusters N (50)] [--parallel P (8)] [--sample K (5 single-cluster scans)] [--xmx 512m]
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -f target/deja.jar ]; then
  mvn -B -q -o -DskipTests package
fi
mvn -B -q -o test-compile
./deja --version >/dev/null   # (re)makes the jar and the class-data archive the launcher uses, when sources are newer
cp_file=target/bench-classpath.txt
if [ ! -s "$cp_file" ]; then
  plugin=org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath
  mvn -B -q -o "$plugin" -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test \
    || mvn -B -q "$plugin" -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test
fi
exec java -Xmx3g -cp "target/test-classes:target/classes:$(cat "$cp_file")" dev.deja.source.kube.FleetBench "$@"
