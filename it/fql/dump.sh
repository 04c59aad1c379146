#!/usr/bin/env bash
# dump.sh DIR [ROLL_CYCLE]: prints every entry of the full query log in DIR
# as a JSON line, read with Chronicle Queue's own API (FQLDump.java) from the
# test server's cassandra-all jars. Test-only: the reference that
# capture/fql's TestReferenceReader compares dohyo's Go reader with.
#
# Builds with Maven on first use (cached under it/.cache/fql-ref, keyed by
# the hash of the POM and the source). Chronicle may write in DIR (it
# creates metadata.cq4t when missing): point it at a copy.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source-path=SCRIPTDIR source=../lib.sh
source "$here/../lib.sh"

[[ $# -ge 1 ]] || { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

bash "$here/../cassandra/run.sh" install
version="$(sed -n 's:.*<cassandra.version>\(.*\)</cassandra.version>.*:\1:p' "$here/pom.xml")"
lib="$IT_CACHE/cassandra-$version/lib"
out="$IT_CACHE/fql-ref"
want="$(cat "$here/pom.xml" "$here/src/main/java/dohyo/it/FQLDump.java" | sha256sum | cut -d' ' -f1)"
java="$(it_java)"
if [[ ! -f "$out/.stamp" || "$(cat "$out/.stamp")" != "$want" ]]; then
  command -v mvn >/dev/null || apt_install maven
  it_log "building the FQL reference reader with Maven"
  rm -rf "$out"
  mkdir -p "$out"
  if ! JAVA_HOME="$(dirname "$(dirname "$java")")" mvn -B -q -Dstyle.color=never -f "$here/pom.xml" \
      package >"$out/build.log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$out/build.log" >&2
    it_die "maven could not build $here"
  fi
  cp "$here/target/fql-ref.jar" "$out/fql-ref.jar"
  rm -rf "$here/target"
  echo "$want" >"$out/.stamp"
fi

mapfile -t opts < <(grep -E '^\s*(--add-|-Dio\.netty|-Djdk\.attach)' "$here/../cassandra/jvm17.options")
exec "$java" "${opts[@]}" -Xmx256m -Dlogback.configurationFile=file://"$here/../cassandra/logback.xml" \
  -cp "$out/fql-ref.jar:$lib/*" dohyo.it.FQLDump "$@"
