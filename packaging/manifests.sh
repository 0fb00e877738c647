#!/bin/sh
# Release step, after the archives are built (pom.xml, execution release-manifests; the release workflow runs it again
# over the four platforms' archives): for every deja-VERSION-*.tar.gz and deja-VERSION-*.cdx.json in FOLDER, a
# NAME.sha256 file and one SHA256SUMS for all ('sha256sum -c' reads both), then the Homebrew formula deja.rb and the
# krew plugin manifest deja.yaml from the templates in PACKAGING (homebrew/deja.rb, krew/deja.yaml).
#
# Templates: @VERSION@ anywhere; a block between the lines '# @platform OS-ARCH' and '# @end' is written once for that
# platform, with @URL@, @SHA256@ and @TOP@ (the archive's top folder) filled, when its archive is in FOLDER, and left
# out when it is not: a build on one platform writes a formula and a manifest for that platform only, the release
# workflow one for all four. A placeholder left over, or a template without a block for every platform, is an error.
#
# Usage: manifests.sh FOLDER VERSION DOWNLOAD-URL PACKAGING
set -eu
if [ "$#" -ne 4 ]; then
  echo "usage: manifests.sh FOLDER VERSION DOWNLOAD-URL PACKAGING" >&2
  exit 2
fi
dir=$1 version=$2 download=$3 pkg=$(cd "$4" && pwd)
platforms="linux-amd64 linux-arm64 macos-amd64 macos-arm64"
LC_ALL=C
export LC_ALL
sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1"; else shasum -a 256 "$1"; fi | cut -d' ' -f1
}
cd "$dir"
# a checksum file left from an earlier build whose file is gone (an offline build writes no SBOM)
for f in deja-"$version"-*.sha256; do
  if [ -f "$f" ] && [ ! -f "${f%.sha256}" ]; then rm -f "$f"; fi
done
: >SHA256SUMS.tmp
for f in deja-"$version"-*.tar.gz deja-"$version"-*.cdx.json; do
  [ -f "$f" ] || continue
  line="$(sha256 "$f")  $f"
  echo "$line" >"$f.sha256"
  echo "$line" >>SHA256SUMS.tmp
done
sort -k2 SHA256SUMS.tmp >SHA256SUMS
rm -f SHA256SUMS.tmp
sums=""
for p in $platforms; do
  f="deja-$version-$p.tar.gz"
  if [ -f "$f" ]; then sums="$sums $p=$(cut -d' ' -f1 "$f.sha256")"; fi
done
if [ -z "$sums" ]; then
  echo "manifests.sh: no archive deja-$version-OS-ARCH.tar.gz in $dir" >&2
  exit 1
fi
fill() {
  awk -v version="$version" -v download="$download" -v sums="$sums" -v platforms="$platforms" -v template="$1" '
    function fail(msg) { print template ":" FNR ": " msg > "/dev/stderr"; failed = 1; exit 1 }
    BEGIN {
      n = split(platforms, ps, " "); for (i = 1; i <= n; i++) known[ps[i]] = 1
      n = split(sums, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], a, "="); sha[a[1]] = a[2] }
    }
    /^[ \t]*# @platform / {
      if (p != "") fail("# @platform inside the block of " p)
      p = $3; if (!(p in known)) fail("unknown platform " p)
      seen[p] = 1; next
    }
    /^[ \t]*# @end$/ { if (p == "") fail("# @end outside a block"); p = ""; next }
    p != "" && !(p in sha) { next }
    {
      line = $0
      gsub(/@VERSION@/, version, line)
      if (p != "") {
        top = "deja-" version "-" p
        gsub(/@URL@/, download "/" top ".tar.gz", line)
        gsub(/@SHA256@/, sha[p], line)
        gsub(/@TOP@/, top, line)
      }
      if (line ~ /@[A-Z0-9_]+@/) fail("placeholder left: " line)
      print line
    }
    END {
      if (failed) exit 1
      if (p != "") fail("block of " p " has no # @end")
      for (q in known) if (!(q in seen)) fail("no block for " q)
    }' "$pkg/$1"
}
# (not 'fill ... && mv': set -e does not stop at a failure on the left of &&)
for t in homebrew/deja.rb krew/deja.yaml; do
  out=${t#*/}
  if ! fill "$t" >"$out.tmp"; then
    rm -f "$out.tmp"
    exit 1
  fi
  mv "$out.tmp" "$out"
done
echo "manifests.sh: SHA256SUMS, deja.rb and deja.yaml in $dir for$sums"
