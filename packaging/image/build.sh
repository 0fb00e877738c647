#!/bin/sh
# The container image (pom.xml, profile image): the root filesystem from the release archive (rootfs.sh), then
# Jib's buildTar on packaging/image/pom.xml, run by the Maven that runs this build (offline when it is), then the
# image tar's SHA-256 beside it.
# Usage: build.sh MVN offline=(true|false) LOCAL_REPO ARCHIVE.tar.gz VERSION WORK IMAGE.tar OS
set -eu
mvn=$1 offline=$2 repo=$3 archive=$4 version=$5 work=$6 tar=$7 os=$8
if [ "$os" != linux ]; then
  echo "build.sh: the image is built on Linux only (it holds the build machine's glibc and a Linux runtime), not on $os" >&2
  exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
# Jib needs its (empty) class folder to exist
rm -rf "$work/jib"
mkdir -p "$work/jib/classes"
"$here/rootfs.sh" "$archive" "$work/rootfs" >"$work/os-files.log"
o=
[ "$offline" = offline=true ] && o=-o
# shellcheck disable=SC2086
"$mvn" -B -q $o -Dmaven.repo.local="$repo" -f "$here/pom.xml" \
  -Dimage.version="$version" -Dimage.rootfs="$work/rootfs" -Dimage.tar="$tar" -Dimage.work="$work/jib" \
  jib:buildTar
(cd "$(dirname "$tar")" && sha256sum "$(basename "$tar")" >"$(basename "$tar").sha256")
echo "image: $tar ($(cut -c1-64 "$tar.sha256")), image digest $(cat "$work/jib/jib-image.digest")"
