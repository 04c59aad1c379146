#!/usr/bin/env bash
# test-steps.sh STATIC_STEPS SERVER_STEPS [CLUSTER_STEPS]
#
# Runs `make test`'s steps one after the other and keeps going when one
# fails: every step runs, each failure is reported again at the end, and the
# exit status is 1 when any step failed. STATIC_STEPS (make targets, space
# separated) need no servers and run first; SERVER_STEPS run inside one
# scripts/with-backends.sh invocation (Cassandra and HBase started once,
# stopped at the end); CLUSTER_STEPS then run inside one
# scripts/with-cluster.sh invocation (the 3-node Cassandra cluster, on the
# single node's ports, started once and stopped at the end). When servers
# cannot be started, the steps that needed them count as failed.
#
# DOHYO_TEST_HOG=N keeps N CPU-bound busy loops running for the whole run
# (`make test-busy` sets N to the number of cores): the suite's promises are
# logical facts the program reports, so it must pass on a busy machine. The
# loops are stopped when this script exits, however it exits.
#
# Internal: test-steps.sh --inner RESULTS STEP... runs the steps and appends
# "STEP STATUS SECONDS" lines to RESULTS.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 2

log() { echo "[test-steps $(date +%H:%M:%S)] $*" >&2; }

# run_steps RESULTS STEP... runs each step with make, recording its outcome.
run_steps() {
  local results="$1" step start rc
  shift
  for step in "$@"; do
    log "step $step"
    start=$(date +%s)
    make --no-print-directory "$step"
    rc=$?
    echo "$step $rc $(($(date +%s) - start))" >>"$results"
    if [[ $rc -ne 0 ]]; then
      log "step $step FAILED (exit $rc); going on with the next step"
    fi
  done
}

if [[ "${1:-}" == --inner ]]; then
  shift
  run_steps "$@"
  exit 0
fi

if [[ $# -ne 2 && $# -ne 3 ]]; then
  sed -n "2,/^set -uo/p" "$0" | grep "^#" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
static_steps="$1"
server_steps="$2"
cluster_steps="${3:-}"

hogs=()
stop_hogs() {
  if [[ ${#hogs[@]} -gt 0 ]]; then
    kill "${hogs[@]}" 2>/dev/null
    wait "${hogs[@]}" 2>/dev/null
    hogs=()
  fi
}
trap stop_hogs EXIT
trap 'stop_hogs; exit 130' INT TERM
if [[ "${DOHYO_TEST_HOG:-0}" =~ ^[1-9][0-9]*$ ]]; then
  log "busy machine: $DOHYO_TEST_HOG CPU-bound loops run until the suite ends"
  for ((i = 0; i < DOHYO_TEST_HOG; i++)); do
    bash -c 'while :; do :; done' &
    hogs+=($!)
  done
elif [[ -n "${DOHYO_TEST_HOG:-}" && "${DOHYO_TEST_HOG}" != 0 ]]; then
  log "DOHYO_TEST_HOG must be a number of loops, not '$DOHYO_TEST_HOG'"
  exit 2
fi

results="$(mktemp)"
began=$(date +%s)
# shellcheck disable=SC2086  # step lists are word lists
run_steps "$results" $static_steps
# shellcheck disable=SC2086
bash scripts/with-backends.sh bash "$0" --inner "$results" $server_steps
wb=$?
for step in $server_steps; do
  if ! grep -q "^$step " "$results"; then
    echo "$step servers-unavailable 0" >>"$results"
  fi
done
if [[ $wb -ne 0 ]] && ! awk '$2 != 0 {bad=1} END {exit !bad}' "$results"; then
  echo "with-backends $wb 0" >>"$results"
fi
if [[ -n "$cluster_steps" ]]; then
  # shellcheck disable=SC2086
  bash scripts/with-cluster.sh bash "$0" --inner "$results" $cluster_steps
  wc=$?
  for step in $cluster_steps; do
    if ! grep -q "^$step " "$results"; then
      echo "$step cluster-unavailable 0" >>"$results"
    fi
  done
  if [[ $wc -ne 0 ]] && ! awk '$2 != 0 {bad=1} END {exit !bad}' "$results"; then
    echo "with-cluster $wc 0" >>"$results"
  fi
fi

echo
echo "make test: every step (wall $(($(date +%s) - began)) s${DOHYO_TEST_HOG:+, $DOHYO_TEST_HOG CPU hog loops})"
passed=0 failed=0
while read -r step rc secs; do
  if [[ "$rc" == 0 ]]; then
    passed=$((passed + 1))
    printf '  ok    %-22s %5s s\n' "$step" "$secs"
  else
    failed=$((failed + 1))
    printf '  FAIL  %-22s %5s s  (%s)\n' "$step" "$secs" "$rc"
  fi
done <"$results"
rm -f "$results"
echo "steps: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
