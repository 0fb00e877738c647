#!/bin/sh
# The container image's root filesystem (pom.xml, profile image; docs/install.md), from the release archive:
#   /opt/deja/                 the release archive's content (bin/deja, runtime/, lib/, LICENSE, NOTICE, ...)
#   /bin/sh, /bin/readlink, /bin/dirname, /bin/cat
#                              what the launcher bin/deja runs (dash as sh, coreutils), copied from this machine
#   /lib/..., /lib64/...       the shared libraries that the runtime's programs and libraries, the .so files inside
#                              the archive's jars (JNA, Helm for the JVM) and the tools above link, as ldd lists them
#                              on this machine (glibc, zlib: from its Debian packages), at the paths ldd names
#   /usr/share/doc/PKG/copyright  the copyright file of each Debian package a file was copied from
#   /usr/share/doc/deja-image/os-files.txt  each copied file with its package and version
#   /etc/passwd, /etc/group    the user and group 10001 (deja) the image runs as
#   /tmp, /work                empty: a writable temporary folder, the working directory
# The set is computed here, at build time, so that it follows the runtime: a library the runtime stops linking
# leaves the image. Left out: the links of the runtime's GUI, sound, font and image libraries (libawt_xawt,
# libjawt, libsplashscreen, libjsound, libfontmanager, libjavajpeg, liblcms; java.desktop is in the runtime for
# java.beans), which deja never loads (src/main uses no java.awt, javax.imageio or javax.swing); their X11, ALSA,
# FreeType, HarfBuzz, GLib, libjpeg and LittleCMS libraries would be half of the image's libraries.
# Usage: rootfs.sh ARCHIVE.tar.gz ROOTFS   (ROOTFS is emptied first). Needs ldd, tar, unzip; dpkg-query for the
# package names (without it, os-files.txt says "no dpkg").
set -eu
archive=$1
root=$2
case "$root" in
  ''|/) echo "rootfs.sh: refusing to empty '$root'" >&2; exit 2 ;;
esac
rm -rf "$root"
mkdir -p "$root"
root=$(cd "$root" && pwd -P)
mkdir -p "$root/opt/deja" "$root/bin" "$root/etc" "$root/tmp" "$root/work" "$root/usr/share/doc/deja-image"
tar -xzf "$archive" -C "$root/opt/deja" --strip-components=1 --no-same-owner
opt="$root/opt/deja"
test -x "$opt/bin/deja" && test -x "$opt/runtime/bin/java" && test -f "$opt/lib/deja.jar" || {
  echo "rootfs.sh: $archive is not a deja release archive (bin/deja, runtime/bin/java, lib/deja.jar)" >&2
  exit 2
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# the tools the launcher runs, by the name it runs them
for t in sh:dash readlink dirname cat; do
  name=${t%%:*}
  real=$(command -v "${t#*:}")
  cp -L "$real" "$root/bin/$name"
  chmod 0755 "$root/bin/$name"
  echo "$real /bin/$name" >>"$work/copied"
done
# the ELF files whose links count: the runtime's programs and libraries, the .so files in the archive's jars
: >"$work/elves"
find "$opt/runtime/bin" -type f >>"$work/elves"
find "$opt/runtime/lib" -type f \( -name '*.so' -o -name jspawnhelper -o -name jexec \) \
  ! -name libawt_xawt.so ! -name libjawt.so ! -name libsplashscreen.so ! -name libjsound.so \
  ! -name libfontmanager.so ! -name libjavajpeg.so ! -name liblcms.so >>"$work/elves"
find "$opt/lib" -name '*.jar' | sort | while read -r jar; do
  d="$work/so/$(basename "$jar")"
  mkdir -p "$d"
  unzip -qq -o "$jar" '*.so' -d "$d" 2>/dev/null || true
  find "$d" -type f -name '*.so' >>"$work/elves"
done
for b in sh readlink dirname cat; do echo "$root/bin/$b" >>"$work/elves"; done
# every library ldd resolves outside the image's own tree (the runtime's own libraries are found through $ORIGIN
# or, libjvm.so for the libraries the JVM loads after it, through LD_LIBRARY_PATH here), and the program
# interpreter; a library ldd cannot find fails the build
: >"$work/libs"
while read -r f; do
  out=$(LD_LIBRARY_PATH="$opt/runtime/lib/server:$opt/runtime/lib" ldd "$f" 2>&1) || case "$out" in
    *"not a dynamic executable"*) continue ;;
    *) echo "rootfs.sh: ldd $f: $out" >&2; exit 3 ;;
  esac
  if printf '%s\n' "$out" | grep -q 'not found'; then
    echo "rootfs.sh: $f links a library this machine does not have:" >&2
    printf '%s\n' "$out" | grep 'not found' >&2
    exit 3
  fi
  printf '%s\n' "$out" | sed -n -e 's/^.*=> \(\/[^ ]*\) (0x.*$/\1/p' -e 's/^[[:space:]]*\(\/[^ ]*\) (0x.*$/\1/p' >>"$work/libs"
done <"$work/elves"
sort -u "$work/libs" | while read -r lib; do
  case "$lib" in "$root"/*|"$work"/*) continue ;; esac
  mkdir -p "$root$(dirname "$lib")"
  cp -L "$lib" "$root$lib"
  chmod 0755 "$root$lib"
  echo "$lib $lib" >>"$work/copied"
done
# where each copied file comes from: the Debian package and its version, and the package's copyright file
{
  echo "# files of the image copied from the build machine: path in the image, source path, Debian package, version"
  sort -k2 "$work/copied" | while read -r src dst; do
    pkg=none
    ver=none
    if command -v dpkg-query >/dev/null 2>&1; then
      # merged /usr: dpkg may know /usr/bin/cat as /bin/cat
      for p in "$src" "${src#/usr}" "$(readlink -f "$src")" "/usr$src"; do
        pkg=$(dpkg-query -S "$p" 2>/dev/null | sed -n '1s/: .*$//p') && [ -n "$pkg" ] && break
        pkg=none
      done
      if [ "$pkg" != none ]; then
        ver=$(dpkg-query -W -f '${Version}' "$pkg")
        base=${pkg%%:*}
        if [ -f "/usr/share/doc/$base/copyright" ] && [ ! -f "$root/usr/share/doc/$base/copyright" ]; then
          mkdir -p "$root/usr/share/doc/$base"
          cp "/usr/share/doc/$base/copyright" "$root/usr/share/doc/$base/copyright"
        fi
      fi
    else
      pkg="no dpkg"
    fi
    echo "$dst $src $pkg $ver"
  done
} >"$root/usr/share/doc/deja-image/os-files.txt"
printf 'root:x:0:0:root:/root:/bin/sh\ndeja:x:10001:10001:deja:/tmp:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\ndeja:x:10001:\n' >"$root/etc/group"
cat "$root/usr/share/doc/deja-image/os-files.txt"
