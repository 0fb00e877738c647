#!/bin/sh
# The logic of deja's GitHub Action (action.yml at the repository root calls it, one subcommand per step); it runs
# the same way on a laptop: set the INPUT_* variables below and call it with sh.
#
#   scan.sh install   INPUT_VERSION: a release (v1.2.3 or 1.2.3): download deja-<v>-<os>-<arch>.tar.gz and its
#                     .sha256 from the release, refuse it unless the checksum matches, unpack it. Empty, or a
#                     release without that archive (HTTP 404): say so and leave the build to the next steps.
#                     Outputs: mode (release|build), bin, version; for a build: jar-dir, key, pom-key.
#   scan.sh build     DEJA_MODE, DEJA_JAR_DIR (install's outputs): unless the jar is in DEJA_JAR_DIR already
#                     (restored by actions/cache, keyed on the hash of the sources), build it with Maven from the
#                     action's own checkout (GITHUB_ACTION_PATH) and copy it there. Output: jar.
#                     (DEJA_CACHE_DIR, default ~/.cache/deja-action, holds DEJA_JAR_DIR.)
#   scan.sh scan      INPUT_PATHS, INPUT_FAIL_ON, INPUT_BASELINE, INPUT_FORMAT, INPUT_OUTPUT, INPUT_ANNOTATIONS,
#                     INPUT_CONFIG, INPUT_ARGS; DEJA_BIN or DEJA_JAR: run deja scan, writing the report, a SARIF
#                     file and a JSON file (to count new findings); exit with deja's exit code.
#                     Outputs: exit-code, findings, new-findings, sarif, report.
#
# Inputs may come from anywhere (a pull request's title pasted into a workflow): they arrive as environment
# variables, never inside the script's text; nothing is evaluated (no eval, no globbing: set -f); paths and
# arguments are split on newlines (or, on one line, on blanks) into separate words and paths follow '--', so a
# value is never an option, a command or a pattern. deja runs with an empty environment (PATH, JAVA_HOME, the
# locale and a HOME of its own, nothing else: no token, no cloud or cluster credentials).
set -eu
set -f

nl='
'

log() { printf '%s\n' "$*" >&2; }

# one line of error, shown by GitHub as an annotation; the text goes through the workflow command escaping
fail() {
  code=$1
  shift
  msg=$(printf '%s' "$*" | sed -e 's/%/%25/g' | awk 'BEGIN { ORS = "%0A" } { print }' | sed -e 's/%0A$//')
  printf '::error title=deja action::%s\n' "$msg"
  exit "$code"
}

# name=value for a later step, in GITHUB_OUTPUT (nowhere when it is unset: a local run); a value on one line only
output() {
  case $2 in *"$nl"*) fail 2 "output $1: a value with a line break" ;; esac
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
  fi
}

# the SHA-256 tool of this system (GNU coreutils or Perl's shasum on macOS), used unquoted ($sha FILE: two words on macOS)
if command -v sha256sum >/dev/null 2>&1; then
  sha=sha256sum
else
  sha='shasum -a 256'
fi

sha256_of() {
  $sha "$1" | cut -d ' ' -f 1
}

temp_root() {
  printf '%s' "${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
}

# --- install -------------------------------------------------------------------------------------------------------

platform() {
  case $(uname -s) in
    Linux) os=linux ;;
    Darwin) os=macos ;;
    *) os= ;;
  esac
  case $(uname -m) in
    x86_64 | amd64) arch=amd64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *) arch= ;;
  esac
}

# the releases' base URL (DEJA_RELEASES_URL overrides it, for a mirror): https, or http to this machine only;
# sets base and protos (the protocols curl may use, redirects included)
releases_url() {
  base=${DEJA_RELEASES_URL:-https://github.com/deja-dev/deja/releases/download}
  case $base in
    https://*) protos='=https' ;;
    http://127.0.0.1:* | http://127.0.0.1/* | http://localhost:* | http://localhost/* | http://\[::1\]:*) protos='=http' ;;
    *) fail 2 "DEJA_RELEASES_URL $base: not an https URL (http only to 127.0.0.1, localhost or [::1])" ;;
  esac
  base=${base%/}
}

# GET $1 into $2; prints the HTTP status (000 when there was no answer)
get() {
  curl -sS -L --proto "$protos" --proto-redir "$protos" --retry 3 --connect-timeout 30 --max-time 600 \
    --max-filesize 1073741824 -o "$2" -w '%{http_code}' "$1" 2>"$2.err" || {
    cat "$2.err" >&2
    printf '000'
  }
}

build_outputs() {
  src=${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/../.." && pwd)}
  [ -f "$src/pom.xml" ] || fail 1 "no pom.xml in $src: cannot build deja there"
  # the key of the built jar: the hash of what the build reads (not the ref: a tag can move, a local action has none)
  key=$(
    cd "$src"
    list=$(mktemp "$(temp_root)/deja-src.XXXXXX")
    for d in pom.xml .mvn src/main rules packaging/AwsSlim.java packaging/aws; do
      if [ -e "$d" ]; then find "$d" -type f -exec $sha {} + >>"$list"; fi
    done
    LC_ALL=C sort -k 2 "$list" >"$list.sorted"
    sha256_of "$list.sorted"
    rm -f "$list" "$list.sorted"
  )
  output mode build
  output key "$key"
  output pom-key "$(sha256_of "$src/pom.xml")"
  # DEJA_CACHE_DIR: where built jars are kept, one folder per key (GitLab caches only the project's folder)
  output jar-dir "${DEJA_CACHE_DIR:-$HOME/.cache/deja-action}/$key"
  log "deja: building from $src (sources $key); the jar is cached under that key"
}

install() {
  version=${INPUT_VERSION:-}
  version=${version#v}
  if [ -z "$version" ]; then
    log "deja: no version given: building deja from the action's own checkout"
    build_outputs
    return
  fi
  case $version in
    *[!0-9A-Za-z.+-]* | [!0-9]*) fail 2 "version '$INPUT_VERSION': expected a release tag such as v1.2.3" ;;
  esac
  platform
  if [ -z "$os" ] || [ -z "$arch" ]; then
    log "deja: no release archive for $(uname -s) $(uname -m): building deja instead"
    build_outputs
    return
  fi
  releases_url
  name="deja-$version-$os-$arch"
  dir=$(mktemp -d "$(temp_root)/deja-release.XXXXXX")
  url="$base/v$version/$name.tar.gz"
  status=$(get "$url.sha256" "$dir/$name.tar.gz.sha256")
  case $status in
    200) ;;
    404)
      printf '::warning title=deja action::%s\n' "release v$version has no $name.tar.gz (not published?): building deja from the action's checkout instead"
      rm -rf "$dir"
      build_outputs
      return
      ;;
    *) fail 1 "$url.sha256: HTTP $status" ;;
  esac
  expected=$(head -c 200 "$dir/$name.tar.gz.sha256" | head -n 1 | cut -d ' ' -f 1 | tr 'A-F' 'a-f')
  case $expected in
    *[!0-9a-f]*) fail 1 "$url.sha256 holds no SHA-256" ;;
  esac
  [ ${#expected} -eq 64 ] || fail 1 "$url.sha256 holds no SHA-256"
  status=$(get "$url" "$dir/$name.tar.gz")
  [ "$status" = 200 ] || fail 1 "$url: HTTP $status"
  actual=$(sha256_of "$dir/$name.tar.gz")
  if [ "$actual" != "$expected" ]; then
    rm -f "$dir/$name.tar.gz"
    fail 1 "$url: SHA-256 $actual, but the release's $name.tar.gz.sha256 says $expected: refused (not unpacked, not run)"
  fi
  tar -xzf "$dir/$name.tar.gz" -C "$dir"
  rm -f "$dir/$name.tar.gz"
  bin="$dir/$name/bin/deja"
  [ -f "$bin" ] && [ -x "$bin" ] || fail 1 "$name.tar.gz has no executable $name/bin/deja"
  log "deja: $name.tar.gz verified (sha256 $actual) and unpacked in $dir"
  output mode release
  output version "$version"
  output bin "$bin"
}

# --- build ---------------------------------------------------------------------------------------------------------

build() {
  if [ "${DEJA_MODE:-}" != build ]; then
    log "deja: installed from the release archive: nothing to build"
    return
  fi
  jar_dir=${DEJA_JAR_DIR:-}
  [ -n "$jar_dir" ] || fail 2 "DEJA_JAR_DIR is not set (the install step's output jar-dir)"
  jar="$jar_dir/deja.jar"
  src=${GITHUB_ACTION_PATH:-$(cd "$(dirname "$0")/../.." && pwd)}
  if [ -f "$jar" ]; then
    log "deja: $jar is cached for these sources: no build"
  else
    echo "::group::Build deja with Maven (once per version of its sources; cached afterwards)"
    (cd "$src" && mvn -B -ntp -Dmaven.test.skip=true package) || {
      echo "::endgroup::"
      fail 1 "the Maven build of deja failed (its log is above)"
    }
    echo "::endgroup::"
    [ -f "$src/target/deja.jar" ] || fail 1 "the Maven build made no $src/target/deja.jar"
    # the jar, and Helm's native library beside it (target/helm-java/: chart rendering looks for it there)
    partial="$jar_dir.partial"
    rm -rf "$partial"
    mkdir -p "$partial"
    cp "$src/target/deja.jar" "$partial/deja.jar"
    if [ -d "$src/target/helm-java" ]; then cp -R "$src/target/helm-java" "$partial/helm-java"; fi
    rm -rf "$jar_dir"
    mv "$partial" "$jar_dir"
  fi
  output jar "$jar"
}

# --- scan ----------------------------------------------------------------------------------------------------------

# the value split into words: one per line when it has several lines, else on blanks (never globbed: set -f)
words() {
  case $1 in
    *"$nl"*) IFS=$nl ;;
    *) IFS=' 	' ;;
  esac
}

# the number after '"KEY" : ' on the first line at depth 2 of the top-level object SECTION of deja's JSON report
# (Jackson's pretty printer: two spaces a level; a string value never spans lines, so no value can fake one)
json_count() {
  awk -v section="$2" -v key="$3" '
    /^  "/ { inside = ($0 == "  \"" section "\" : {") ; next }
    inside && index($0, "    \"" key "\" : ") == 1 {
      v = substr($0, length(key) + 10); sub(/,$/, "", v)
      if (v ~ /^[0-9]+$/) { print v; exit }
    }' "$1"
}

scan() {
  format=${INPUT_FORMAT:-sarif}
  case $format in
    sarif) ext=sarif ;;
    json) ext=json ;;
    junit) ext=xml ;;
    html) ext=html ;;
    text | table) ext=txt ;;
    prometheus) ext=prom ;;
    github) ext= ;;
    *) fail 2 "format '$format': expected sarif, json, junit, html, text, table, prometheus or github" ;;
  esac
  annotations=${INPUT_ANNOTATIONS:-false}
  case $annotations in
    true | false) ;;
    *) fail 2 "annotations '$annotations': expected true or false" ;;
  esac
  work=$(mktemp -d "$(temp_root)/deja-scan.XXXXXX")
  report=${INPUT_OUTPUT:-}
  case $report in *"$nl"*) fail 2 "output: a path with a line break" ;; esac
  if [ "$format" = github ]; then
    [ -z "$report" ] || fail 2 "output: format github is workflow commands on the log, not a file"
  elif [ -z "$report" ]; then
    report="$work/deja.$ext"
  fi
  sarif="$work/deja.sarif"
  json="$work/deja.json"
  [ "$format" = sarif ] && sarif=$report
  [ "$format" = json ] && json=$report

  if [ -n "${DEJA_BIN:-}" ]; then
    set -- "$DEJA_BIN"
  elif [ -n "${DEJA_JAR:-}" ]; then
    java=java
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then java="$JAVA_HOME/bin/java"; fi
    set -- "$java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar "$DEJA_JAR"
  else
    fail 1 "deja is not installed (neither DEJA_BIN nor DEJA_JAR is set): the install step did not run"
  fi
  set -- "$@" scan --format "$format"
  if [ "$format" != github ]; then set -- "$@" -o "$report"; fi
  if [ "$format" != sarif ]; then set -- "$@" --output "sarif=$sarif"; fi
  if [ "$format" != json ]; then set -- "$@" --output "json=$json"; fi
  if [ "$annotations" = true ] && [ "$format" != github ]; then set -- "$@" --output github=-; fi
  if [ -n "${INPUT_FAIL_ON:-}" ]; then set -- "$@" --fail-on "$INPUT_FAIL_ON"; fi
  if [ -n "${INPUT_BASELINE:-}" ]; then set -- "$@" --baseline "$INPUT_BASELINE"; fi
  if [ -n "${INPUT_CONFIG:-}" ]; then set -- "$@" --config "$INPUT_CONFIG"; fi
  # the checkout's deja.yaml is the pull request's: it may tune judging, never send, write or read live systems
  if [ "${INPUT_TRUST_CONFIG:-false}" != true ]; then set -- "$@" --untrusted-config; fi
  args=${INPUT_ARGS:-}
  words "$args"
  for a in $args; do set -- "$@" "$a"; done
  set -- "$@" --
  paths=${INPUT_PATHS:-}
  words "$paths"
  for p in $paths; do set -- "$@" "$p"; done
  unset IFS

  # deja's environment: nothing of the job's but what running Java needs
  home="$work/home"
  mkdir -p "$home" "$work/tmp"
  locale=${LC_ALL:-${LANG:-}}
  case $locale in '' | C | POSIX) locale=C.UTF-8 ;; esac
  set -- env -i "PATH=$PATH" "HOME=$home" "TMPDIR=$work/tmp" "LC_ALL=$locale" ${JAVA_HOME:+"JAVA_HOME=$JAVA_HOME"} "$@"

  # deja's stderr (its summary, and file names it quotes) is shown after the run with workflow commands off, so
  # a file name cannot smuggle one in; its stdout carries the annotations (--format github) and stays live
  code=0
  "$@" 2>"$work/stderr" || code=$?
  token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  echo "::stop-commands::$token"
  cat "$work/stderr" >&2
  echo "::$token::"

  output exit-code "$code"
  if [ -f "$json" ]; then
    total=$(json_count "$json" summary total)
    new=$(json_count "$json" baseline new)
    output findings "${total:-}"
    output new-findings "${new:-${total:-}}"
  fi
  if [ -f "$sarif" ]; then output sarif "$sarif"; fi
  if [ -n "$report" ] && [ -f "$report" ]; then output report "$report"; fi
  case $code in
    0) ;;
    1) log "deja: exit 1: findings at or above --fail-on ${INPUT_FAIL_ON:-(deja's default, medium, or deja.yaml's failOn)}" ;;
    *) log "deja: exit $code (docs/exit-codes.md: 2 usage or input error, 3 scan incomplete, 4 internal error)" ;;
  esac
  return "$code"
}

# the whole script is read before anything runs (a file deja writes cannot change what runs next)
main() {
  case ${1:-} in
    install) install ;;
    build) build ;;
    scan) scan ;;
    *) fail 2 "usage: scan.sh install|build|scan (the inputs in INPUT_* variables)" ;;
  esac
}
main "$@"; exit $?
