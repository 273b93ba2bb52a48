#!/usr/bin/env bash
# Starts a private PostgreSQL 15 cluster for tests, benchmarks and demos, and prints the
# connection settings as shell `export` lines (also written to <dir>/env):
#
#     eval "$(.ci/postgres/start.sh)"      # …; .ci/postgres/stop.sh "$APPSTATEKIT_POSTGRES_DIR"
#
# - Installs Debian's postgresql-15 if its binaries are missing (apt-get update once, non-interactive).
# - Runs the server as a non-root OS user (`postgres` if it exists, else a new `appstatekit-pg`).
# - `initdb` into a new temporary folder (or $APPSTATEKIT_POSTGRES_DIR if set and empty), trust
#   authentication, listening on 127.0.0.1 at a free port and on a Unix socket inside that folder only.
# - Creates the database `appstatekit` owned by the role `appstatekit`.
# Diagnostics go to stderr; stdout carries only the export lines.
set -euo pipefail

PG_BIN="${APPSTATEKIT_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
log() { printf 'postgres/start: %s\n' "$*" >&2; }

if [ ! -x "$PG_BIN/initdb" ] || [ ! -x "$PG_BIN/pg_ctl" ]; then
    log "installing Debian's postgresql-15 (binaries missing in $PG_BIN)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends postgresql-15 >&2
fi

# The server refuses to run as root: use a non-root OS user.
if id postgres > /dev/null 2>&1; then
    OS_USER=postgres
else
    OS_USER=appstatekit-pg
    id "$OS_USER" > /dev/null 2>&1 || useradd --system --no-create-home --shell /usr/sbin/nologin "$OS_USER"
fi
as_user() {
    if [ "$(id -u)" = "0" ]; then runuser -u "$OS_USER" -- "$@"; else "$@"; fi
}

DIR="${APPSTATEKIT_POSTGRES_DIR:-}"
if [ -z "$DIR" ]; then
    DIR="$(mktemp -d /tmp/appstatekit-postgres.XXXXXX)"
else
    mkdir -p "$DIR"
fi
chmod 755 "$DIR"
mkdir -p "$DIR/data" "$DIR/socket"
[ "$(id -u)" = "0" ] && chown -R "$OS_USER" "$DIR"
chmod 700 "$DIR/data"

PORT="${APPSTATEKIT_POSTGRES_PORT:-$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')}"

log "initdb in $DIR/data as $OS_USER"
as_user "$PG_BIN/initdb" -D "$DIR/data" -U appstatekit --auth=trust --encoding=UTF8 --no-locale > "$DIR/initdb.log" 2>&1 \
    || { cat "$DIR/initdb.log" >&2; exit 1; }
cat >> "$DIR/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$DIR/socket'
max_connections = 200
shared_buffers = 64MB
CONF

log "starting on 127.0.0.1:$PORT (log: $DIR/server.log)"
as_user "$PG_BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 start > /dev/null \
    || { cat "$DIR/server.log" >&2; exit 1; }
as_user "$PG_BIN/createdb" -h "$DIR/socket" -p "$PORT" -U appstatekit appstatekit

cat > "$DIR/env" <<ENV
export APPSTATEKIT_POSTGRES_HOST=127.0.0.1
export APPSTATEKIT_POSTGRES_PORT=$PORT
export APPSTATEKIT_POSTGRES_USER=appstatekit
export APPSTATEKIT_POSTGRES_DATABASE=appstatekit
export APPSTATEKIT_POSTGRES_DIR=$DIR
ENV
chmod 644 "$DIR/env"
cat "$DIR/env"
