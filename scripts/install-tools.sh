#!/usr/bin/env bash
# install-tools.sh
#
# Makes sure the tools `make test` needs besides Go are installed, and says
# what it installs: a C compiler (gcc, for go test -race), tcpdump (for the
# packet-capture import test) and chromium (for the GraphQL playground's
# headless-browser test). The JDK 17, Maven and
# python3-venv the test servers need are installed on first use by
# it/*/run.sh and it/python/setup.sh. Installing uses apt-get (Debian or
# Ubuntu, amd64 or arm64) as root or with passwordless sudo; without it,
# the script names what is missing. Idempotent: a second run installs
# nothing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=../it/lib.sh
source "$root/it/lib.sh"

log() { echo "[install-tools $(date +%H:%M:%S)] $*" >&2; }

# Go itself: go.mod's version (GOTOOLCHAIN=auto fetches it from a newer go
# than 1.21 by itself, so only a missing go is fatal).
command -v go >/dev/null || it_die "no go on PATH: install Go $(sed -n 's/^go //p' "$root/go.mod") from https://go.dev/dl"
log "go: $(go version)"

if command -v gcc >/dev/null && echo 'int main(void){return 0;}' | gcc -x c -o /dev/null - 2>/dev/null; then
  log "C compiler for -race: $(command -v gcc)"
else
  log "installing gcc (go test -race needs a C compiler)"
  apt_install gcc libc6-dev
fi

if command -v tcpdump >/dev/null; then
  log "tcpdump (capture import --pcap test): $(command -v tcpdump)"
else
  log "installing tcpdump (the capture import --pcap test records lo with it)"
  apt_install tcpdump
fi

if chromium="$(bash "$root/scripts/install-chromium.sh")"; then
  log "chromium (headless browser test): $chromium"
elif [[ "${CI:-}" == true ]]; then
  it_die "chromium could not be installed (see above); CI runs the browser test"
else
  log "warning: chromium could not be installed (see above); the browser test will be skipped"
fi
