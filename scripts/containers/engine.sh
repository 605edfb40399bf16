#!/usr/bin/env bash
# A container engine for this project's checks, from Debian's packages only: podman with runc
# (crun refuses this kind of machine's hybrid cgroups), its Docker-compatible socket for
# testcontainers and the compose tools. Idempotent. Users with Docker need none of it.
#
#   scripts/containers/engine.sh start   # installs what is missing, starts the socket, prints DOCKER_HOST
#   scripts/containers/engine.sh stop    # stops the socket it started
set -euo pipefail
SOCKET=${TOKEN_AUTHORITY_PODMAN_SOCKET:-/run/token-authority-podman.sock}
PIDFILE=${SOCKET%.sock}.pid
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

install_missing() {
  local missing=()
  command -v podman >/dev/null || missing+=(podman)
  command -v runc >/dev/null || missing+=(runc)
  command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
  if [ ${#missing[@]} -gt 0 ]; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
}

# runc and cgroupfs (no systemd here); ulimits a process without CAP_SYS_RESOURCE may set.
configure() {
  local conf=/etc/containers/containers.conf
  local want='[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"

[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]'
  if [ "$(cat "$conf" 2>/dev/null)" != "$want" ]; then
    $SUDO mkdir -p /etc/containers
    printf '%s\n' "$want" | $SUDO tee "$conf" >/dev/null
  fi
}

start() {
  install_missing
  configure
  if [ -S "$SOCKET" ] && [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
    echo "DOCKER_HOST=unix://$SOCKET"
    return
  fi
  rm -f "$SOCKET"
  nohup podman system service --time=0 "unix://$SOCKET" >"${SOCKET%.sock}.log" 2>&1 &
  echo $! >"$PIDFILE"
  for _ in $(seq 1 100); do
    [ -S "$SOCKET" ] && break
    sleep 0.1
  done
  [ -S "$SOCKET" ] || { echo "podman's socket did not come up: ${SOCKET%.sock}.log" >&2; exit 1; }
  echo "DOCKER_HOST=unix://$SOCKET"
}

stop() {
  if [ -f "$PIDFILE" ]; then
    kill "$(cat "$PIDFILE")" 2>/dev/null || true
    rm -f "$PIDFILE" "$SOCKET"
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
