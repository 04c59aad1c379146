#!/usr/bin/env bash
# run.sh HOST:PORT[,HOST:PORT...] [options] — YCSB core workloads against a
# CQL endpoint (Cassandra, or dohyo serve on any backend) with dohyo's own
# YCSB binding (dohyo.ycsb.CqlClient, see README.md).
#
#   --workloads a,b,c,d,e,f   which core workloads (default all six, in order)
#   --records N               records loaded per workload (default 1000)
#   --ops N                   operations per run phase (default 1000)
#   --threads T               client threads (default 4)
#   --keyspace K              keyspace (default ycsb), created if missing
#   --out DIR                 where outputs go (default bench/out/ycsb-TIME)
#   --phases load,run         which phases (default both); run alone skips
#                             creating/emptying the table and the load, for
#                             repeated runs on records loaded once
#   -p NAME=VALUE             extra YCSB/binding property, passed to every
#                             phase (e.g. -p cassandra.username=cassandra)
#
# Creates K.usertable if missing and empties it, then for each workload runs
# `site.ycsb.Client -load` and `-t` and keeps each output in DIR. Fails
# (exit 1) when a phase exits non-zero, reports any Return= other than OK
# (ERROR, NOT_FOUND, ...) or a -FAILED measurement, measures an operation
# with no Return=OK, or lacks an operation its workload mixes in. Prints a
# summary table (also DIR/summary.txt).
#
# Environment: YCSB_LIB (jar directory; default: it/ycsb/setup.sh builds it),
# YCSB_JAVA (default: JDK 17), YCSB_JAVA_OPTS, YCSB_STEP_TIMEOUT (seconds per
# JVM, default 600).
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

usage() {
  sed -n '2,/^set -uo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//' >&2
  exit 2
}
die() { echo "run.sh: $*" >&2; exit 2; }

[[ $# -ge 1 && "$1" != -* ]] || usage
hosts="$1"
shift
workloads="a,b,c,d,e,f" records=1000 ops=1000 threads=4 keyspace=ycsb out="" phases="load,run"
props=()
while [[ $# -gt 0 ]]; do
  [[ $# -ge 2 ]] || usage
  case "$1" in
    --workloads) workloads="$2" ;;
    --records) records="$2" ;;
    --ops) ops="$2" ;;
    --threads) threads="$2" ;;
    --keyspace) keyspace="$2" ;;
    --out) out="$2" ;;
    --phases) phases="$2" ;;
    -p) [[ "$2" == *=* ]] || die "-p wants NAME=VALUE, got $2"; props+=(-p "$2") ;;
    *) usage ;;
  esac
  shift 2
done
for n in "$records" "$ops" "$threads"; do
  [[ "$n" =~ ^[1-9][0-9]*$ ]] || die "not a positive number: $n"
done
IFS=, read -r -a wl <<<"$workloads"
IFS=, read -r -a ph <<<"$phases"
for p in "${ph[@]}"; do
  [[ "$p" == load || "$p" == run ]] || die "no phase '$p' (have load, run)"
done
for w in "${wl[@]}"; do
  [[ -f "$here/workloads/workload$w" ]] || die "no workload '$w' (have a-f)"
done

if [[ -z "${YCSB_LIB:-}" ]]; then
  YCSB_LIB="$("$root/it/ycsb/setup.sh" -p)" || die "building the YCSB binding failed"
fi
[[ -f "$YCSB_LIB/dohyo-ycsb-0.jar" ]] || die "no dohyo-ycsb-0.jar in $YCSB_LIB"
java="${YCSB_JAVA:-}"
if [[ -z "$java" ]]; then
  # shellcheck source=../../it/lib.sh
  source "$root/it/lib.sh"
  java="$(it_java)" || exit 2
fi
# shellcheck disable=SC2206  # word splitting wanted
jopts=(${YCSB_JAVA_OPTS:--Xms256m -Xmx512m -XX:+UseSerialGC})
jopts+=(-Dorg.slf4j.simpleLogger.defaultLogLevel=warn)
step_timeout="${YCSB_STEP_TIMEOUT:-600}"
out="${out:-$root/bench/out/ycsb-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out" || die "cannot create $out"

common=(-p "cassandra.hosts=$hosts" -p "cassandra.keyspace=$keyspace" "${props[@]}")
java_run() {
  timeout -k 10 "$step_timeout" "$java" "${jopts[@]}" -cp "$YCSB_LIB/*" "$@"
}

# expected_ops FILE PHASE: the operations a phase must report (those with a
# share of at least 10 expected operations, so short runs do not flake).
expected_ops() {
  local file="$1" phase="$2"
  if [[ "$phase" == load ]]; then
    echo INSERT
    return
  fi
  awk -F= -v ops="$ops" '
    $1 == "readproportion" && $2 * ops >= 10 { print "READ" }
    $1 == "updateproportion" && $2 * ops >= 10 { print "UPDATE" }
    $1 == "scanproportion" && $2 * ops >= 10 { print "SCAN" }
    $1 == "insertproportion" && $2 * ops >= 10 { print "INSERT" }
    $1 == "readmodifywriteproportion" && $2 * ops >= 10 { print "READ-MODIFY-WRITE" }
  ' "$file"
}

# check OUTPUT WORKLOAD PHASE RC: appends summary rows, prints problems, and
# returns non-zero when the phase failed.
check() {
  local file="$1" w="$2" phase="$3" rc="$4"
  local expect
  expect="$(expected_ops "$here/workloads/workload$w" "$phase" | tr '\n' ' ')"
  awk -v w="$w" -v phase="$phase" -v rc="$rc" -v expect="$expect" -v summary="$out/summary.rows" '
    BEGIN { FS = ", "; nerr = 0 }
    function err(m) { errs[++nerr] = m }
    /^\[[A-Z0-9_%-]+\], / {
      op = substr($1, 2, length($1) - 2); key = $2; val = $3
      if (op == "OVERALL" && key == "RunTime(ms)") runtime = val
      if (op == "OVERALL" || op == "CLEANUP" || op ~ /^TOTAL_GC/) next
      if (!(op in seen)) { seen[op] = 1; order[++nops] = op }
      if (key == "Operations") count[op] = val
      else if (key == "95thPercentileLatency(us)") p95[op] = val
      else if (key == "99thPercentileLatency(us)") p99[op] = val
      else if (key ~ /^Return=/) {
        r = substr(key, 8)
        if (r == "OK") ok[op] += val
        else err(op " Return=" r ", " val)
      }
    }
    END {
      if (rc != 0) err("client exited with status " rc)
      if (runtime == "") err("no [OVERALL] RunTime: the client did not finish")
      n = split(expect, want, " ")
      for (i = 1; i <= n; i++) if (!(want[i] in seen)) err(want[i] ": no such operation measured")
      for (i = 1; i <= nops; i++) {
        op = order[i]
        if (op ~ /-FAILED$/) { err(op ": " count[op] " operations failed"); continue }
        # READ-MODIFY-WRITE is a composite: its READ and UPDATE carry the Returns.
        if (op != "READ-MODIFY-WRITE" && count[op] > 0 && ok[op] == 0) err(op ": no Return=OK")
        if (op != "READ-MODIFY-WRITE" && ok[op] != count[op]) err(op ": " count[op] " operations, " ok[op] + 0 " Return=OK")
        tput = runtime > 0 ? count[op] * 1000 / runtime : 0
        printf "%s\t%s\t%s\t%d\t%.0f\t%.2f\t%.2f\n", w, phase, op, count[op], tput, p95[op] / 1000, p99[op] / 1000 >> summary
      }
      for (i = 1; i <= nerr; i++) print "  " errs[i]
      exit nerr > 0
    }
  ' "$file"
}

failed=()
: >"$out/summary.rows"
echo "YCSB against $hosts: workloads $workloads, $records records, $ops ops, $threads threads; outputs in $out" >&2
if [[ ",$phases," == *,load,* ]] && ! java_run dohyo.ycsb.Setup "${common[@]}" -truncate >"$out/setup.txt" 2>&1; then
  cat "$out/setup.txt" >&2
  echo "run.sh: FAILED: could not create/empty $keyspace.usertable on $hosts" >&2
  exit 1
fi
for w in "${wl[@]}"; do
  for phase in "${ph[@]}"; do
    file="$out/workload$w-$phase.txt"
    flag=-t
    [[ "$phase" == load ]] && flag=-load
    start=$SECONDS
    java_run site.ycsb.Client "$flag" -db dohyo.ycsb.CqlClient -P "$here/workloads/workload$w" \
      -p "recordcount=$records" -p "operationcount=$ops" -threads "$threads" "${common[@]}" \
      >"$file" 2>&1
    rc=$?
    if problems="$(check "$file" "$w" "$phase" "$rc")"; then
      echo "workload $w $phase: ok ($((SECONDS - start)) s)" >&2
    else
      echo "workload $w $phase: FAILED ($((SECONDS - start)) s, $file)" >&2
      echo "$problems" >&2
      # The binding prints its first errors; show a few.
      grep -m 5 -E '^dohyo\.ycsb|Exception' "$file" | cut -c1-300 | sed 's/^/    /' >&2
      failed+=("$w-$phase")
      # A run phase on a failed load would only add noise.
      [[ "$phase" == load ]] && break
    fi
  done
done

{
  printf '%-8s %-5s %-18s %8s %9s %9s %9s\n' workload phase op ops ops/s p95_ms p99_ms
  while IFS=$'\t' read -r w phase op n tput p95 p99; do
    printf '%-8s %-5s %-18s %8s %9s %9s %9s\n' "$w" "$phase" "$op" "$n" "$tput" "$p95" "$p99"
  done <"$out/summary.rows"
} | tee "$out/summary.txt"
rm -f "$out/summary.rows"

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "run.sh: FAILED: ${failed[*]} (outputs in $out)" >&2
  exit 1
fi
echo "run.sh: all phases Return=OK, no errors" >&2
