#!/usr/bin/env bash
# A development PostgreSQL (with PgBouncer in transaction pooling mode in front, as production
# runs it) for a developer who isn't root. One command:
#
#     Scripts/dev-database.sh start     # runs until Ctrl-C or `stop`; prints the settings
#     eval "$(Scripts/dev-database.sh env)"   # in another shell: APPSTATEKIT_POSTGRES_… variables
#     Scripts/dev-database.sh stop      # stops both servers and waits for them
#     Scripts/dev-database.sh destroy   # stops them and deletes the data
#
# The data lives in $APPSTATEKIT_DEV_DATABASE_DIR (default: ${XDG_DATA_HOME:-~/.local/share}/
# appstatekit-dev-database) and survives restarts. Needs PostgreSQL's server binaries (Debian/
# Ubuntu: `sudo apt-get install postgresql pgbouncer`; the script installs nothing and needs no
# root) — it looks in /usr/lib/postgresql/<newest>/bin, or $APPSTATEKIT_POSTGRES_BIN.
#
# `start` stays in the foreground as the parent of `postgres` and `pgbouncer` (neither is
# daemonized), and stops and waits for both when it ends, so no process outlives it — not even a
# defunct one on a machine whose init doesn't reap orphans. To keep your terminal, run it in the
# background of your shell (`Scripts/dev-database.sh start &`): the shell then reaps it too.
set -euo pipefail

DIR="${APPSTATEKIT_DEV_DATABASE_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/appstatekit-dev-database}"
log() { printf 'dev-database: %s\n' "$*" >&2; }

pg_bin() {
    if [ -n "${APPSTATEKIT_POSTGRES_BIN:-}" ]; then echo "$APPSTATEKIT_POSTGRES_BIN"; return; fi
    local newest
    newest="$(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V | tail -1)"
    [ -n "$newest" ] || { log "no PostgreSQL server binaries found (install postgresql, or set APPSTATEKIT_POSTGRES_BIN)"; exit 1; }
    echo "$newest"
}

# The PID of a running `start`, if any.
running_pid() {
    local pid
    [ -f "$DIR/supervisor.pid" ] || return 1
    pid="$(cat "$DIR/supervisor.pid")"
    kill -0 "$pid" 2> /dev/null && echo "$pid"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'; }

# Creates the cluster, roles, schema and PgBouncer configuration the first time.
initialize() {
    local bin="$1" port bouncer_port password
    [ "$(id -u)" != "0" ] || { log "run this as your own user, not root (PostgreSQL refuses to run as root)"; exit 1; }
    mkdir -p "$DIR"
    chmod 700 "$DIR"
    [ -d "$DIR/data" ] && return 0
    command -v pgbouncer > /dev/null || [ -x /usr/sbin/pgbouncer ] || { log "pgbouncer not found (install pgbouncer)"; exit 1; }
    port="$(free_port)"
    bouncer_port="$(free_port)"
    password="$(python3 -c 'import secrets; print(secrets.token_hex(16))')"
    mkdir -p "$DIR/socket"
    log "creating the cluster in $DIR/data"
    "$bin/initdb" -D "$DIR/data.new" -U appstatekit --auth=trust --encoding=UTF8 --no-locale > "$DIR/initdb.log" 2>&1 \
        || { cat "$DIR/initdb.log" >&2; rm -rf "$DIR/data.new"; exit 1; }
    cat >> "$DIR/data.new/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$DIR/socket'
max_connections = 200
CONF
    { echo "host all appstatekit_app 127.0.0.1/32 scram-sha-256"; cat "$DIR/data.new/pg_hba.conf"; } > "$DIR/pg_hba.new"
    mv "$DIR/pg_hba.new" "$DIR/data.new/pg_hba.conf"
    printf '"appstatekit_app" "%s"\n' "$password" > "$DIR/pgbouncer-users.txt"
    chmod 600 "$DIR/pgbouncer-users.txt"
    cat > "$DIR/pgbouncer.ini" <<INI
[databases]
appstatekit = host=127.0.0.1 port=$port dbname=appstatekit
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $bouncer_port
unix_socket_dir =
auth_type = scram-sha-256
auth_file = $DIR/pgbouncer-users.txt
pool_mode = transaction
max_client_conn = 400
default_pool_size = 40
ignore_startup_parameters = extra_float_digits
logfile = $DIR/pgbouncer.log
INI
    cat > "$DIR/env" <<ENV
export APPSTATEKIT_POSTGRES_HOST=127.0.0.1
export APPSTATEKIT_POSTGRES_PORT=$port
export APPSTATEKIT_POSTGRES_USER=appstatekit
export APPSTATEKIT_POSTGRES_DATABASE=appstatekit
export APPSTATEKIT_POSTGRES_OWNER=appstatekit_owner
export APPSTATEKIT_POSTGRES_APP_USER=appstatekit_app
export APPSTATEKIT_POSTGRES_APP_PASSWORD=$password
export APPSTATEKIT_POSTGRES_SCHEMA=appstatekit_flags
export APPSTATEKIT_PGBOUNCER_PORT=$bouncer_port
ENV
    chmod 600 "$DIR/env"
    mv "$DIR/data.new" "$DIR/data"
    touch "$DIR/needs-roles"
}

# Creates the database and roles once the server answers (first start only).
create_roles() {
    local bin="$1" port password
    port="$(sed -n 's/^export APPSTATEKIT_POSTGRES_PORT=//p' "$DIR/env")"
    password="$(sed -n 's/^export APPSTATEKIT_POSTGRES_APP_PASSWORD=//p' "$DIR/env")"
    "$bin/createdb" -h "$DIR/socket" -p "$port" -U appstatekit appstatekit
    "$bin/psql" -q -v ON_ERROR_STOP=1 -h "$DIR/socket" -p "$port" -U appstatekit -d appstatekit > /dev/null <<SQL
CREATE ROLE appstatekit_owner LOGIN;
CREATE ROLE appstatekit_app LOGIN PASSWORD '$password';
GRANT CREATE ON SCHEMA public TO appstatekit_owner;
CREATE SCHEMA appstatekit_flags AUTHORIZATION appstatekit_owner;
GRANT USAGE ON SCHEMA appstatekit_flags TO appstatekit_app;
ALTER DEFAULT PRIVILEGES FOR ROLE appstatekit_owner GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO appstatekit_app;
SQL
    rm -f "$DIR/needs-roles"
}

start() {
    local bin port
    bin="$(pg_bin)"
    if pid="$(running_pid)"; then log "already running (pid $pid); settings: $DIR/env"; exit 1; fi
    initialize "$bin"
    port="$(sed -n 's/^export APPSTATEKIT_POSTGRES_PORT=//p' "$DIR/env")"
    echo $$ > "$DIR/supervisor.pid"
    postgres_pid="" bouncer_pid=""
    # Stops both servers and reaps them: on Ctrl-C, on `stop` (SIGTERM) and on any failure.
    finish() {
        trap - INT TERM EXIT
        [ -z "$bouncer_pid" ] || kill -TERM "$bouncer_pid" 2> /dev/null || true
        [ -z "$postgres_pid" ] || kill -INT "$postgres_pid" 2> /dev/null || true   # fast shutdown
        wait 2> /dev/null || true
        rm -f "$DIR/supervisor.pid"
        log "stopped"
    }
    trap 'finish; exit 0' INT TERM
    trap finish EXIT
    "$bin/postgres" -D "$DIR/data" > "$DIR/server.log" 2>&1 &
    postgres_pid=$!
    for _ in $(seq 1 100); do
        "$bin/pg_isready" -q -h "$DIR/socket" -p "$port" && break
        kill -0 "$postgres_pid" 2> /dev/null || { cat "$DIR/server.log" >&2; exit 1; }
        sleep 0.1
    done
    [ ! -f "$DIR/needs-roles" ] || create_roles "$bin"
    "$(command -v pgbouncer || echo /usr/sbin/pgbouncer)" -q "$DIR/pgbouncer.ini" &
    bouncer_pid=$!
    log "PostgreSQL on 127.0.0.1:$port, PgBouncer on 127.0.0.1:$(sed -n 's/^export APPSTATEKIT_PGBOUNCER_PORT=//p' "$DIR/env"); Ctrl-C or '$0 stop' stops both"
    cat "$DIR/env"
    # Runs until either server ends or a signal arrives (`wait -n` returns for the signal too).
    wait -n "$postgres_pid" "$bouncer_pid" || true
    log "a server ended (logs: $DIR/server.log, $DIR/pgbouncer.log)"
    exit 1
}

stop() {
    local pid
    pid="$(running_pid)" || { log "not running"; return 0; }
    kill -TERM "$pid"
    for _ in $(seq 1 100); do kill -0 "$pid" 2> /dev/null || return 0; sleep 0.1; done
    log "pid $pid did not stop within 10 seconds"
    return 1
}

case "${1:-}" in
    start) start ;;
    stop) stop ;;
    env) [ -f "$DIR/env" ] || { log "no database yet: run '$0 start'"; exit 1; }; cat "$DIR/env" ;;
    destroy) stop; rm -rf "$DIR"; log "deleted $DIR" ;;
    *) echo "usage: $0 start|stop|env|destroy" >&2; exit 2 ;;
esac
