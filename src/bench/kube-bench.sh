#!/usr/bin/env bash
# Kubernetes scale benchmark: a synthetic cluster (20,000 pods, 3,000 Deployments, 3,000 Services, 500 Ingresses,
# 1,000 ConfigMaps, HPAs, PDBs) in Fabric8's mock API server (CRUD mode, real HTTP, started by the harness);
# `deja scan --cluster` in its own JVM with -Xmx384m, timed against fetching the same lists with the JDK HttpClient
# from the same server in the same run (in the harness JVM, in a fresh JVM like deja's, and with curl). Prints the
# ratios (targets: <= 1.2 against the JDK fetch in its own JVM, <= 2.0 against curl) and the scan's max RSS.
#
#   src/bench/kube-bench.sh [--runs N] [--scale F] [--xmx 384m]
#   src/bench/kube-bench.sh --serve [--tls] [--scale F]   (keeps the loaded server up for your own measurements)
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ ! -f target/deja.jar ]; then
  mvn -B -q -o -DskipTests package
fi
mvn -B -q -o test-compile
./deja --version >/dev/null   # (re)makes the AppCDS archive the launcher uses, when the jar is newer
cp_file=target/bench-classpath.txt
if [ ! -s "$cp_file" ]; then
  plugin=org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath
  mvn -B -q -o "$plugin" -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test \
    || mvn -B -q "$plugin" -Dmdep.outputFile="$cp_file" -Dmdep.includeScope=test
fi
exec java -Xmx3g -cp "target/test-classes:target/classes:$(cat "$cp_file")" dev.deja.source.kube.KubeBench --jar target/deja.jar "$@"
