#!/usr/bin/env bash
# Restarts a cluster started by start.sh (same folder, port and data), as a PostgreSQL restart in
# production would: every connection is dropped. restart.sh <dir> (default: $APPSTATEKIT_POSTGRES_DIR);
# with a second argument N, the server stays down N seconds before starting again.
set -euo pipefail
PG_BIN="${APPSTATEKIT_POSTGRES_BIN:-/usr/lib/postgresql/15/bin}"
DIR="${1:-${APPSTATEKIT_POSTGRES_DIR:-}}"
DOWN="${2:-0}"
[ -n "$DIR" ] && [ -d "$DIR/data" ] || { echo "usage: restart.sh <cluster folder> [seconds down]" >&2; exit 2; }
OWNER="$(stat -c %U "$DIR/data")"
as_owner() { if [ "$(id -u)" = "0" ]; then runuser -u "$OWNER" -- "$@"; else "$@"; fi; }
as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" -m fast -w stop > /dev/null
sleep "$DOWN"
as_owner "$PG_BIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 start > /dev/null
echo "postgres/restart: restarted $DIR" >&2
