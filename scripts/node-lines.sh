#!/usr/bin/env bash
# Installs Node release lines from the npm registry's node-linux-<arch> packages (Node's own Linux
# binaries; nothing else is downloaded) into .cache/node-lines/<line>/ and prints each node's path.
#   scripts/node-lines.sh 22 24        # one path a line, in the order given; a line already there is reused
# REP_NODE_LINES_DIR moves the cache; REP_NODE_LINES_REFRESH=1 fetches again (a newer patch release).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${REP_NODE_LINES_DIR:-$root/.cache/node-lines}"

[ "$(uname -s)" = Linux ] || { echo "node-lines: the node-linux-* packages are for Linux only" >&2; exit 1; }
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node-lines: no node-linux package for $(uname -m)" >&2; exit 1 ;;
esac
[ $# -gt 0 ] || { echo "usage: scripts/node-lines.sh LINE... (e.g. 22 24, or an exact version 22.23.3)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for line in "$@"; do
  [[ "$line" =~ ^[0-9]+(\.[0-9]+){0,2}$ ]] || { echo "node-lines: '$line' is not a Node line or version" >&2; exit 2; }
  dir="$cache/$line"
  if [ ! -x "$dir/bin/node" ] || [ "${REP_NODE_LINES_REFRESH:-}" = 1 ]; then
    # npm pack fetches the tarball without installing it, so no package script can run.
    tarball="$(cd "$work" && npm pack --loglevel=error "node-linux-$arch@$line")"
    mkdir -p "$work/$line" "$cache"
    tar xzf "$work/$tarball" -C "$work/$line" --strip-components=1 package/bin/node package/LICENSE
    rm -rf "$dir" && mv "$work/$line" "$dir"
  fi
  echo "$dir/bin/node"
done
