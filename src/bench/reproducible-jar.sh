#!/bin/sh
# Reproducible build check: builds target/deja.jar twice from the working tree, each time in a fresh copy, and
# compares the bytes (project.build.outputTimestamp in pom.xml fixes every entry's time). Exit 0 when identical.
#   src/bench/reproducible-jar.sh [-o]      (-o: Maven offline)
set -eu
here=$(cd "$(dirname "$0")/../.." && pwd)
offline=${1:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/deja-repro.XXXXXX")
trap '[ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT
# one snapshot of the tree, built twice (an edit between two copies would make them differ for the wrong reason)
(cd "$here" && tar --exclude=./target --exclude=./.git -cf "$work/src.tar" .)
for run in a b; do
  mkdir -p "$work/$run"
  (cd "$work/$run" && tar -xf "$work/src.tar")
  (cd "$work/$run" && mvn -B -q $offline -DskipTests package >/dev/null)
  sleep 2 # a different wall-clock second for the second build
done
a=$(sha256sum "$work/a/target/deja.jar" | cut -d' ' -f1)
b=$(sha256sum "$work/b/target/deja.jar" | cut -d' ' -f1)
echo "build 1: $a"
echo "build 2: $b"
if [ "$a" = "$b" ]; then
  echo "reproducible: the two builds are the same bytes"
else
  echo "NOT reproducible: the jars differ" >&2
  exit 1
fi
