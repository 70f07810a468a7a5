#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL server: installs Debian's
# `postgresql` package if no initdb is found, creates a cluster in a temp
# directory, serves it on a Unix socket and, with TLS only, on 127.0.0.1
# (a test CA and server certificate made with openssl, when openssl is
# there), exports SDSI_TEST_POSTGRES (a libpq connection string for the
# socket) and SDSI_TEST_POSTGRES_TLS (one for TLS, naming the CA) for the
# command, and removes everything afterwards. PostgreSQL refuses to run as root, so as
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
LISTEN="-c listen_addresses=''"
if command -v openssl >/dev/null; then
    # A CA valid for two days, and a certificate for localhost it signed.
    ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
    openssl req -x509 "${ec[@]}" -days 2 -subj /CN=sdsi-test-ca \
        -keyout "$DIR/ca.key" -out "$DIR/ca.crt" 2>/dev/null
    openssl req "${ec[@]}" -subj /CN=localhost \
        -keyout "$DIR/server.key" -out "$DIR/server.csr" 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' > "$DIR/san.ext"
    openssl x509 -req -in "$DIR/server.csr" -CA "$DIR/ca.crt" -CAkey "$DIR/ca.key" \
        -CAcreateserial -days 2 -extfile "$DIR/san.ext" -out "$DIR/server.crt" 2>/dev/null
    chmod 600 "$DIR/server.key"
    [ "$(id -u)" = 0 ] && chown postgres "$DIR/server.key" "$DIR/server.crt"
    LISTEN="-c listen_addresses=127.0.0.1 -c ssl=on -c ssl_cert_file=$DIR/server.crt -c ssl_key_file=$DIR/server.key"
    # TCP connections must use TLS: a plain one is refused.
    printf 'local all all trust\nhostssl all all 127.0.0.1/32 trust\n' > "$DIR/data/pg_hba.conf"
    [ "$(id -u)" = 0 ] && chown postgres "$DIR/data/pg_hba.conf"
    export SDSI_TEST_POSTGRES_TLS="host=localhost port=$PORT user=postgres dbname=postgres sslmode=require sslrootcert=$DIR/ca.crt"
fi
"${AS[@]}" "$PG_CTL" -D "$DIR/data" -l "$DIR/log" -w \
    -o "$LISTEN -k $DIR -p $PORT -c fsync=off" start >/dev/null

export SDSI_TEST_POSTGRES="host=$DIR port=$PORT user=postgres dbname=postgres"
"$@"
