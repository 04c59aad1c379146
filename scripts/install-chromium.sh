#!/usr/bin/env bash
# install-chromium.sh
#
# Makes sure Debian's chromium is installed at /usr/bin/chromium, for the
# headless-browser test of the GraphQL playground (graphql/browser_test.go).
# Idempotent: does nothing when chromium is already there. Needs root (or
# passwordless sudo) the first time, as apt-get does.
#
# Prints the path of the browser on success.
set -euo pipefail

BIN=/usr/bin/chromium

if [[ -x "$BIN" ]]; then
  echo "$BIN"
  exit 0
fi

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO=(sudo -n env DEBIAN_FRONTEND=noninteractive)
  else
    echo "install-chromium.sh: not root and no sudo; install chromium by hand" >&2
    exit 1
  fi
fi

echo "install-chromium.sh: apt-get install chromium fonts-liberation" >&2
export DEBIAN_FRONTEND=noninteractive
"${SUDO[@]}" apt-get update -qq
"${SUDO[@]}" apt-get install -y -qq --no-install-recommends chromium fonts-liberation >/dev/null

if [[ ! -x "$BIN" ]]; then
  echo "install-chromium.sh: apt-get finished but $BIN is missing" >&2
  exit 1
fi
echo "$BIN"
