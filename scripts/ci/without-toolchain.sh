#!/usr/bin/env bash
# Runs a command as a newcomer's machine without a C++ toolchain would: PATH holds the given
# Node's bin/ and every command of the usual bin and sbin folders but the compilers, make and
# another node, and npm reads no user configuration (this machine's sets nodedir; a newcomer's
# does not).
#
#   scripts/ci/without-toolchain.sh <node folder> npm install
set -euo pipefail
node_dir=${1:?usage: without-toolchain.sh <node folder> <command…>}
shift
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
for dir in /usr/local/sbin /usr/local/bin /usr/sbin /usr/bin /sbin /bin; do
  for tool in "$dir"/*; do
    name=$(basename "$tool")
    case "$name" in
      gcc* | g++* | cc | c++ | c89* | c99* | cpp* | clang* | x86_64-linux-gnu-* | make | gmake | node) continue ;;
    esac
    [ -e "$bin/$name" ] || ln -s "$tool" "$bin/$name"
  done
done
empty=$(mktemp)
NPM_CONFIG_USERCONFIG=$empty PATH="$node_dir/bin:$bin" "$@"
status=$?
rm -f "$empty"
exit $status
