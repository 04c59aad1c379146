#!/usr/bin/env bash
# Installs the JavaScript clients of the integration tests (package.json:
# graphql-js, pinned) from the npm registry into it/.cache/node
# (DOHYO_IT_NODE_DIR overrides). Idempotent: a directory whose stamp
# matches package.json is left alone, so repeated calls cost milliseconds.
# graphql 16 is the line that runs on the node of Debian 13 (20); 17 needs 22.
# Needs node >= 18 and npm; on Debian/Ubuntu it installs nodejs and npm with
# apt-get when missing (as root, or with passwordless sudo).
#
# With -p, prints the node_modules path on standard output (for scripts).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
it_dir="$(dirname "$here")"
dir="${DOHYO_IT_NODE_DIR:-$it_dir/.cache/node}"
pkg="$here/package.json"
stamp="$dir/.package.sha256"

say() { echo "node/setup.sh: $*" >&2; }

want="$(sha256sum "$pkg" | cut -d' ' -f1)"
if [[ -d "$dir/node_modules/graphql" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  say "$dir is up to date"
  [[ "${1:-}" == "-p" ]] && echo "$dir/node_modules"
  exit 0
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null ||
  ! node -e 'process.exit(parseInt(process.versions.node) < 18 ? 1 : 0)'; then
  sudo=()
  [[ "$(id -u)" -ne 0 ]] && command -v sudo >/dev/null && sudo -n true 2>/dev/null && sudo=(sudo -n)
  if command -v apt-get >/dev/null && { [[ "$(id -u)" -eq 0 ]] || [[ ${#sudo[@]} -gt 0 ]]; }; then
    say "apt-get install nodejs npm (no node >= 18 with npm here)"
    "${sudo[@]}" apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq nodejs npm >&2
  else
    say "need node >= 18 and npm (Debian/Ubuntu: apt-get install nodejs npm, as root)"
    exit 1
  fi
fi

say "npm install (from the npm registry) $(node -e 'const p=require(process.argv[1]);console.log(Object.entries(p.dependencies).map(([k,v])=>k+"@"+v).join(" "))' "$pkg") into $dir"
rm -rf "$dir"
mkdir -p "$dir"
cp "$pkg" "$dir/package.json"
npm install --prefix "$dir" --no-audit --no-fund --loglevel=error >&2
node -e 'require(process.argv[1] + "/node_modules/graphql")' "$dir" >&2
echo "$want" >"$stamp"
say "installed in $dir"
[[ "${1:-}" == "-p" ]] && echo "$dir/node_modules"
exit 0
