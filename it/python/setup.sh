#!/usr/bin/env bash
# Creates the integration-test Python venv (cassandra-driver + cqlsh) at
# it/.cache/venv. Idempotent: a venv whose requirements stamp matches
# requirements.txt is left alone, so repeated calls cost milliseconds.
#
# Prints nothing on the fast path; prints the venv path with -p.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
it_dir="$(dirname "$here")"
venv="${DOHYO_IT_VENV:-$it_dir/.cache/venv}"
req="$here/requirements.txt"
stamp="$venv/.requirements.sha256"

want="$(sha256sum "$req" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -x "$venv/bin/cqlsh" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  [[ "${1:-}" == "-p" ]] && echo "$venv"
  exit 0
fi

# Any python3 >= 3.10 with the venv module will do (cqlsh 6.2 needs >= 3.10).
py="${DOHYO_IT_PYTHON:-$(command -v python3 || true)}"
if [[ -z "$py" ]] || ! "$py" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  if command -v apt-get >/dev/null; then
    echo "setup.sh: installing python3-venv from Debian" >&2
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-venv >&2
    py=/usr/bin/python3
  else
    echo "setup.sh: need python3 >= 3.10 with venv" >&2
    exit 1
  fi
fi

rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"$py" -m venv "$venv"
# Wheels exist for cassandra-driver on CPython 3.10-3.13 x86_64; should pip
# ever fall back to the sdist, skip the slow Cython/C-extension build: the
# pure-Python driver is all cqlsh and the tests need.
export CASS_DRIVER_NO_CYTHON=1 CASS_DRIVER_NO_EXTENSIONS=1
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2
"$venv/bin/python" -c 'import cassandra, cqlshlib' >&2
echo "$want" >"$stamp"
[[ "${1:-}" == "-p" ]] && echo "$venv"
exit 0
