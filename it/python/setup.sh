#!/usr/bin/env bash
# Creates the Python venv with the pinned cqlsh and cassandra-driver of
# requirements.txt at it/.cache/venv (DOHYO_IT_VENV overrides), for the
# README's quickstart and the integration tests. Idempotent: a venv whose
# requirements stamp matches requirements.txt is left alone, so repeated
# calls cost milliseconds. Needs python3 >= 3.10 with the venv module; on
# Debian/Ubuntu it installs python3-venv with apt-get when missing (as root,
# or with passwordless sudo).
#
# Says on standard error what it does and where cqlsh is; with -p, prints
# the venv path on standard output (for scripts).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
it_dir="$(dirname "$here")"
venv="${DOHYO_IT_VENV:-$it_dir/.cache/venv}"
req="$here/requirements.txt"
stamp="$venv/.requirements.sha256"

say() { echo "setup.sh: $*" >&2; }
# done_msg names cqlsh, relative to the current directory when it is inside.
done_msg() {
  local rel="${venv#"$PWD"/}"
  say "$1; run cqlsh as: $rel/bin/cqlsh HOST PORT (e.g. $rel/bin/cqlsh 127.0.0.1 9042)"
}

want="$(sha256sum "$req" | cut -d' ' -f1)"
if [[ -x "$venv/bin/python" && -x "$venv/bin/cqlsh" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  done_msg "venv $venv is up to date"
  [[ "${1:-}" == "-p" ]] && echo "$venv"
  exit 0
fi

# Any python3 >= 3.10 with the venv module will do (cqlsh 6.2 needs >= 3.10).
py="${DOHYO_IT_PYTHON:-$(command -v python3 || true)}"
if [[ -z "$py" ]] || ! "$py" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  sudo=()
  [[ "$(id -u)" -ne 0 ]] && command -v sudo >/dev/null && sudo -n true 2>/dev/null && sudo=(sudo -n)
  if command -v apt-get >/dev/null && { [[ "$(id -u)" -eq 0 ]] || [[ ${#sudo[@]} -gt 0 ]]; }; then
    say "apt-get install python3 python3-venv (no python3 >= 3.10 with venv here)"
    "${sudo[@]}" apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq python3 python3-venv >&2
    py=/usr/bin/python3
  else
    say "need python3 >= 3.10 with the venv module (Debian/Ubuntu: apt-get install python3-venv, as root)"
    exit 1
  fi
fi

say "creating venv $venv with $("$py" --version 2>&1)"
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"$py" -m venv "$venv"
# Wheels exist for cassandra-driver on CPython 3.10-3.13 x86_64; should pip
# ever fall back to the sdist, skip the slow Cython/C-extension build: the
# pure-Python driver is all cqlsh and the tests need.
export CASS_DRIVER_NO_CYTHON=1 CASS_DRIVER_NO_EXTENSIONS=1
say "pip install (from PyPI) $(grep -vE '^\s*(#|$)' "$req" | tr '\n' ' ')"
"$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$req" >&2
"$venv/bin/python" -c 'import cassandra, cqlshlib' >&2
echo "$want" >"$stamp"
done_msg "cqlsh $("$venv/bin/cqlsh" --version 2>&1 | awk '{print $2}') installed"
[[ "${1:-}" == "-p" ]] && echo "$venv"
exit 0
