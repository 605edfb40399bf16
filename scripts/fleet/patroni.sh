#!/usr/bin/env bash
# Makes `patroni` on PATH a Patroni that keeps the fleet's promise of zero acknowledged writes lost.
#
# Debian 12's Patroni 3.0.2 can overwrite the etcd leader key without a compare when its session
# expired (fixed upstream in 3.0.3, patroni/patroni#2689): a node reading a partitioned etcd
# member's stale view took the lock from the real leader and promoted, and the partition drill lost
# 8,921 acknowledged tokens (docs/fleet.md). When the installed Patroni is older than 3.0.3, this
# takes Debian 13's package (4.0.7, pure Python), unpacks it under /opt and puts `patroni` and
# `patronictl` wrappers in /usr/local/bin, ahead of /usr/bin on PATH; Debian 12's python3 runs it
# with the libraries Debian 12's patroni package already installed. Nothing of Debian 13 is
# installed system-wide: its package list is fetched into a folder of this script's own.
set -euo pipefail

at_least() { # at_least <version> <minimum>: true when version >= minimum
  [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]
}
current=$(patroni --version 2>/dev/null | awk '{print $2}' || true)
if [ -n "$current" ] && at_least "$current" 3.0.3; then
  exit 0
fi

SUDO=$([ "$(id -u)" = 0 ] || echo sudo)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial"
echo 'deb http://deb.debian.org/debian trixie main' >"$work/sources.list"
apt=(-o APT::Sandbox::User=root -o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=- -o "Dir::State::Lists=$work/lists")
$SUDO apt-get "${apt[@]}" update -qq
version=$(apt-cache "${apt[@]}" show patroni | awk '/^Version:/ {print $2; exit}')
(cd "$work" && $SUDO apt-get "${apt[@]}" download -qq "patroni=$version" 2>/dev/null)
prefix="/opt/patroni-${version%%-*}"
$SUDO rm -rf "$prefix"
$SUDO dpkg-deb -x "$work"/patroni_*.deb "$prefix"
libs="$prefix/usr/lib/python3/dist-packages"
# The package's own entry points (its console_scripts), under their own names.
for tool in patroni:patroni.__main__:main patronictl:patroni.ctl:ctl; do
  IFS=: read -r name module function <<<"$tool"
  printf '#!/bin/sh\nPYTHONPATH=%s exec /usr/bin/python3 -c %s "$@"\n' "$libs" \
    "'import sys; sys.argv[0] = \"$name\"; from $module import $function; $function()'" |
    $SUDO tee "/usr/local/bin/$name" >/dev/null
  $SUDO chmod 755 "/usr/local/bin/$name"
done
hash -r
echo "patroni: $(patroni --version) from Debian 13 in $prefix (was ${current:-none})"
