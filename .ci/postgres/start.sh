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
# - Creates the database `appstatekit` owned by the role `appstatekit` (a superuser, for admin
#   work only), and the production-shaped roles every test and demo connects as:
#   `appstatekit_owner` (the migration role: creates tables in `public` and in the schema
#   `appstatekit_flags`) and `appstatekit_app` (the application role: no DDL, only USAGE on those
#   schemas and SELECT, INSERT, UPDATE, DELETE on the owner's tables, by default privileges; it
#   logs in over TCP with a random password and SCRAM).
# - Starts Debian's PgBouncer (installed if missing) in transaction pooling mode on another
#   loopback port, in front of the database, for the app role.
# Diagnostics go to stderr; stdout carries only the export lines.
set -euo pipefail

PG_BIN="${APPSTATEKIT_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
log() { printf 'postgres/start: %s\n' "$*" >&2; }

missing=()
[ -x "$PG_BIN/initdb" ] && [ -x "$PG_BIN/pg_ctl" ] || missing+=(postgresql-15)
command -v pgbouncer > /dev/null || [ -x /usr/sbin/pgbouncer ] || missing+=(pgbouncer)
if [ "${#missing[@]}" -gt 0 ]; then
    log "installing Debian's ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >&2
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi
PGBOUNCER="$(command -v pgbouncer || echo /usr/sbin/pgbouncer)"

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

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }
PORT="${APPSTATEKIT_POSTGRES_PORT:-$(free_port)}"
BOUNCER_PORT="$(free_port)"
APP_PASSWORD="$(python3 -c 'import secrets; print(secrets.token_hex(16))')"

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

# The app role logs in with its password over TCP; everything else is trusted (a private cluster).
{ echo "host all appstatekit_app 127.0.0.1/32 scram-sha-256"; cat "$DIR/data/pg_hba.conf"; } > "$DIR/pg_hba.new"
[ "$(id -u)" = "0" ] && chown "$OS_USER" "$DIR/pg_hba.new"
mv "$DIR/pg_hba.new" "$DIR/data/pg_hba.conf"

log "starting on 127.0.0.1:$PORT (log: $DIR/server.log)"
as_user "$PG_BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 start > /dev/null \
    || { cat "$DIR/server.log" >&2; exit 1; }
as_user "$PG_BIN/createdb" -h "$DIR/socket" -p "$PORT" -U appstatekit appstatekit
as_user "$PG_BIN/psql" -q -v ON_ERROR_STOP=1 -h "$DIR/socket" -p "$PORT" -U appstatekit -d appstatekit > /dev/null <<SQL
CREATE ROLE appstatekit_owner LOGIN;
CREATE ROLE appstatekit_app LOGIN PASSWORD '$APP_PASSWORD';
GRANT CREATE ON SCHEMA public TO appstatekit_owner;
CREATE SCHEMA appstatekit_flags AUTHORIZATION appstatekit_owner;
GRANT USAGE ON SCHEMA appstatekit_flags TO appstatekit_app;
ALTER DEFAULT PRIVILEGES FOR ROLE appstatekit_owner GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO appstatekit_app;
SQL

# PgBouncer, transaction pooling, for the app role (it logs in to PostgreSQL with the password
# from its auth file, as a production bouncer would).
printf '"appstatekit_app" "%s"\n' "$APP_PASSWORD" > "$DIR/pgbouncer-users.txt"
chmod 600 "$DIR/pgbouncer-users.txt"
cat > "$DIR/pgbouncer.ini" <<INI
[databases]
appstatekit = host=127.0.0.1 port=$PORT dbname=appstatekit
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $BOUNCER_PORT
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $DIR/pgbouncer-users.txt
pool_mode = transaction
max_client_conn = 400
default_pool_size = 40
ignore_startup_parameters = extra_float_digits
logfile = $DIR/pgbouncer.log
pidfile = $DIR/pgbouncer.pid
INI
[ "$(id -u)" = "0" ] && chown "$OS_USER" "$DIR/pgbouncer-users.txt" "$DIR/pgbouncer.ini"
log "starting PgBouncer (transaction pooling) on 127.0.0.1:$BOUNCER_PORT (log: $DIR/pgbouncer.log)"
as_user "$PGBOUNCER" -q -d "$DIR/pgbouncer.ini" >&2 || { cat "$DIR/pgbouncer.log" >&2 || true; exit 1; }

cat > "$DIR/env" <<ENV
export APPSTATEKIT_POSTGRES_HOST=127.0.0.1
export APPSTATEKIT_POSTGRES_PORT=$PORT
export APPSTATEKIT_POSTGRES_USER=appstatekit
export APPSTATEKIT_POSTGRES_DATABASE=appstatekit
export APPSTATEKIT_POSTGRES_DIR=$DIR
export APPSTATEKIT_POSTGRES_OWNER=appstatekit_owner
export APPSTATEKIT_POSTGRES_APP_USER=appstatekit_app
export APPSTATEKIT_POSTGRES_APP_PASSWORD=$APP_PASSWORD
export APPSTATEKIT_POSTGRES_SCHEMA=appstatekit_flags
export APPSTATEKIT_PGBOUNCER_PORT=$BOUNCER_PORT
ENV
chmod 600 "$DIR/env"
cat "$DIR/env"
