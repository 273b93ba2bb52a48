#!/usr/bin/env bash
# Stops a cluster started by start.sh and deletes its folder: stop.sh <dir> (default:
# $APPSTATEKIT_POSTGRES_DIR). Safe to call twice; refuses folders start.sh didn't make.
set -euo pipefail
PG_BIN="${APPSTATEKIT_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
DIR="${1:-${APPSTATEKIT_POSTGRES_DIR:-}}"
[ -n "$DIR" ] || { echo "usage: stop.sh <cluster folder>" >&2; exit 2; }
[ -d "$DIR" ] || exit 0
[ -f "$DIR/env" ] || [ -d "$DIR/data" ] || { echo "postgres/stop: $DIR is not a cluster folder" >&2; exit 2; }
if [ -f "$DIR/pgbouncer.pid" ]; then
    kill "$(cat "$DIR/pgbouncer.pid")" 2> /dev/null || true
    for _ in $(seq 1 50); do kill -0 "$(cat "$DIR/pgbouncer.pid" 2> /dev/null)" 2> /dev/null || break; sleep 0.1; done
fi
if [ -f "$DIR/data/postmaster.pid" ]; then
    OWNER="$(stat -c %U "$DIR/data")"
    if [ "$(id -u)" = "0" ]; then
        runuser -u "$OWNER" -- "$PG_BIN/pg_ctl" -D "$DIR/data" -m fast -w stop > /dev/null || true
    else
        "$PG_BIN/pg_ctl" -D "$DIR/data" -m fast -w stop > /dev/null || true
    fi
fi
rm -rf "$DIR"
echo "postgres/stop: stopped and removed $DIR" >&2
