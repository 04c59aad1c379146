#!/usr/bin/env bash
# Builds dohyo's YCSB binding (bench/ycsb) and collects it with its runtime
# jars (site.ycsb:core, the DataStax Java driver 4.x) in the git-ignored
# it/.cache/ycsb/lib. Idempotent: a stamp (hash of the POM and the sources)
# makes repeat calls cost milliseconds. Installs Maven and a JDK 17 from
# Debian/Ubuntu when missing (as root or with sudo), so a fresh machine needs only the registries.
#
# Prints nothing on the fast path; prints the jar directory with -p (the
# classpath is DIR/*). Build output never lands in the source tree.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=../lib.sh
source "$here/../lib.sh"
src="$(cd "$IT_DIR/../bench/ycsb" && pwd)"
cache="$IT_CACHE/ycsb"
lib="$cache/lib"

# The stamp covers everything that goes into the jars.
want="$(cd "$src" && find pom.xml src -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1)"
if [[ -f "$lib/.stamp" && "$(cat "$lib/.stamp")" == "$want" ]]; then
  [[ "${1:-}" == "-p" ]] && echo "$lib"
  exit 0
fi

jdk="$(it_jdk17_home javac)"
if [[ ! -x "$jdk/bin/javac" ]]; then
  apt_install openjdk-17-jdk-headless >/dev/null
  jdk="$(it_jdk17_home javac)"
fi
[[ -x "$jdk/bin/javac" ]] || it_die "no JDK 17 (javac) at $jdk (set DOHYO_IT_JAVA_HOME to one)"
command -v mvn >/dev/null || apt_install maven >/dev/null

mkdir -p "$cache"
tmp="$cache/tmp.$$"
rm -rf "$tmp"
mkdir -p "$tmp/lib"
trap 'rm -rf "$tmp"' EXIT
it_log "building the YCSB binding (bench/ycsb) and resolving its jars from Maven Central"
# Maven's output is kept for a failure only.
if ! JAVA_HOME="$jdk" mvn -B -q -Dstyle.color=never -f "$src/pom.xml" \
    -Dycsb.build.dir="$tmp/build" \
    package org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$tmp/lib" >"$tmp/mvn.log" 2>&1; then
  sed 's/\x1b\[[0-9;]*m//g' "$tmp/mvn.log" >&2
  it_die "maven could not build $src"
fi
cp "$tmp/build/dohyo-ycsb-0.jar" "$tmp/lib/"
echo "$want" >"$tmp/lib/.stamp"
rm -rf "$lib"
mv "$tmp/lib" "$lib"
jars=("$lib"/*.jar)
it_log "${#jars[@]} jars in $lib"
[[ "${1:-}" == "-p" ]] && echo "$lib"
exit 0
