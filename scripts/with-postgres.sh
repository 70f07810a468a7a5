#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL server: installs Debian's
# `postgresql` package if no initdb is found, creates a cluster in a temp
# directory, serves it on a Unix socket only (no TCP), exports
# SDSI_TEST_POSTGRES (a libpq connection string) for the command, and
# removes everything afterwards. PostgreSQL refuses to run as root, so as
# root the server runs as the `postgres` user the package creates.
#
#   scripts/with-postgres.sh cargo test --workspace
set -euo pipefail

find_bin() {
    command -v "$1" 2>/dev/null && return
    ls /usr/lib/postgresql/*/bin/"$1" 2>/dev/null | sort -V | tail -n 1
}

INITDB=$(find_bin initdb || true)
if [ -z "$INITDB" ]; then
    echo "with-postgres: installing Debian's postgresql package" >&2
    if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
    INITDB=$(find_bin initdb)
fi
PG_CTL=$(dirname "$INITDB")/pg_ctl

DIR=$(mktemp -d /tmp/sdsi-pg.XXXXXX)
PORT=$((20000 + RANDOM % 20000))
if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    chown postgres "$DIR"
    AS=(runuser -u postgres --)
else
    AS=()
fi
cleanup() {
    "${AS[@]}" "$PG_CTL" -D "$DIR/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$DIR"
}
trap cleanup EXIT

"${AS[@]}" "$INITDB" -D "$DIR/data" -A trust -U postgres --no-sync >/dev/null
"${AS[@]}" "$PG_CTL" -D "$DIR/data" -l "$DIR/log" -w \
    -o "-c listen_addresses='' -k $DIR -p $PORT -c fsync=off" start >/dev/null

export SDSI_TEST_POSTGRES="host=$DIR port=$PORT user=postgres dbname=postgres"
"$@"
