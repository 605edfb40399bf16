#!/usr/bin/env bash
# A container engine for this project's checks, from Debian's packages only: podman with runc
# (crun refuses this kind of machine's hybrid cgroups), its Docker-compatible socket for
# testcontainers and the compose tools. Idempotent. Users with Docker need none of it.
#
#   scripts/containers/engine.sh start   # installs what is missing, starts the socket, prints DOCKER_HOST
#   scripts/containers/engine.sh stop    # stops the socket it started
#
# Without systemd podman never runs a container's health check by itself, so a `depends_on:
# service_healthy` or a wait on health would hang: `start` also runs a loop that runs each running
# container's check at that check's own interval (`podman healthcheck run` sets the status).
set -euo pipefail
SOCKET=${TOKEN_AUTHORITY_PODMAN_SOCKET:-/run/token-authority-podman.sock}
PIDFILE=${SOCKET%.sock}.pid
HEALTH_PIDFILE=${SOCKET%.sock}.health.pid
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

install_missing() {
  local missing=()
  command -v podman >/dev/null || missing+=(podman)
  command -v runc >/dev/null || missing+=(runc)
  command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
  # What the compose checks run: Debian's compose tool (it speaks to the socket), curl and jq.
  command -v docker-compose >/dev/null || missing+=(docker-compose)
  command -v curl >/dev/null || missing+=(curl)
  command -v jq >/dev/null || missing+=(jq)
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

running() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# Each running container with a health check, checked when its interval has passed.
health_loop() {
  set +e
  declare -A due=()
  while :; do
    local now id interval
    now=$(date +%s)
    for id in $(podman ps --quiet --no-trunc 2>/dev/null); do
      [ -n "${due[$id]:-}" ] && [ "${due[$id]}" -gt "$now" ] && continue
      interval=$(podman inspect --format '{{if .Config.Healthcheck}}{{printf "%.0f" .Config.Healthcheck.Interval.Seconds}}{{end}}' "$id" 2>/dev/null || true)
      if [ -z "$interval" ] || [ "$interval" = 0 ]; then
        due[$id]=$((now + 3600))
        continue
      fi
      due[$id]=$((now + interval))
      podman healthcheck run "$id" >/dev/null 2>&1 &
    done
    sleep 1
  done
}

start() {
  install_missing
  configure
  if ! running "$HEALTH_PIDFILE"; then
    nohup "$0" health-loop >/dev/null 2>&1 &
    echo $! >"$HEALTH_PIDFILE"
  fi
  if [ -S "$SOCKET" ] && running "$PIDFILE"; then
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
  if [ -f "$HEALTH_PIDFILE" ]; then
    kill "$(cat "$HEALTH_PIDFILE")" 2>/dev/null || true
    rm -f "$HEALTH_PIDFILE"
  fi
  if [ -f "$PIDFILE" ]; then
    kill "$(cat "$PIDFILE")" 2>/dev/null || true
    rm -f "$PIDFILE" "$SOCKET"
  fi
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  health-loop) health_loop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac
