#!/usr/bin/env bash
# Builds, without any image registry, a Postgres image from Debian's postgresql-15 that honours the
# official image's contract (scripts/containers/postgres-entrypoint.sh), under a local name. Built
# by content: the tag is a hash of its inputs, so a second run on the same machine builds nothing.
# Prints the image name. Needs scripts/containers/engine.sh start first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
hash=$(cat "$0" "$here/postgres-entrypoint.sh" | sha256sum | cut -c1-12)
IMAGE="localhost/token-authority/postgres:15-$hash"
if podman image exists "$IMAGE"; then
  echo "$IMAGE"
  exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mmdebstrap --quiet --variant=minbase --include=postgresql-15 \
  --customize-hook="copy-in $here/postgres-entrypoint.sh /usr/local/bin" \
  --customize-hook='chmod 755 "$1/usr/local/bin/postgres-entrypoint.sh"' \
  --customize-hook='rm -rf "$1/var/lib/postgresql/15" "$1/var/cache/apt"/*.bin "$1/var/lib/apt/lists"/*' \
  "$SUITE" "$work/rootfs.tar" "$MIRROR" >&2
podman import --quiet \
  --change 'ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]' \
  --change 'CMD ["postgres"]' \
  --change 'EXPOSE 5432' \
  --change 'ENV PGDATA=/var/lib/postgresql/data' \
  --change 'ENV PATH=/usr/lib/postgresql/15/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'STOPSIGNAL SIGINT' \
  --change 'VOLUME /var/lib/postgresql/data' \
  "$work/rootfs.tar" "$IMAGE" >/dev/null
echo "$IMAGE"
