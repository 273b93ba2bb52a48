#!/usr/bin/env bash
# Scripts/dev-database.sh, as SyncState-PostgreSQL.md tells a developer to use it (issue 43,
# item 9): run by a user who isn't root, it starts PostgreSQL and PgBouncer in one command,
# answers through PgBouncer as the app role, and after `stop` leaves no process behind — not even
# a defunct one. Runs after 50-postgres.sh, which installed Debian's postgresql and pgbouncer.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)

user=nobody
work="$(mktemp -d /tmp/appstatekit-dev-database.XXXXXX)"
chmod 755 "$work"
chown "$user" "$work"
as_user() { su "$user" -s /bin/bash -c "APPSTATEKIT_DEV_DATABASE_DIR='$work/db' HOME='$work' $*"; }
cleanup() {
    as_user "Scripts/dev-database.sh stop" > /dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

# `start` stays in the foreground as the servers' parent; this shell is its (su's) parent.
as_user "exec Scripts/dev-database.sh start" > "$work/start.log" 2>&1 &
supervisor=$!

ready=""
for _ in $(seq 1 300); do
    if as_user "Scripts/dev-database.sh env" > "$work/env" 2> /dev/null; then
        # shellcheck disable=SC1091
        source "$work/env"
        if PGPASSWORD="$APPSTATEKIT_POSTGRES_APP_PASSWORD" psql -qtA -h 127.0.0.1 -p "$APPSTATEKIT_PGBOUNCER_PORT" \
            -U "$APPSTATEKIT_POSTGRES_APP_USER" -d "$APPSTATEKIT_POSTGRES_DATABASE" -c 'SELECT 1' 2> /dev/null | grep -qx 1; then
            ready=yes
            break
        fi
    fi
    kill -0 "$supervisor" 2> /dev/null || break
    sleep 0.2
done
if [ -z "$ready" ]; then
    cat "$work/start.log" >&2
    echo "error: the development database did not answer through PgBouncer within 60 seconds" >&2
    exit 1
fi
echo "dev database: answered through PgBouncer as $APPSTATEKIT_POSTGRES_APP_USER"

as_user "Scripts/dev-database.sh stop"
wait "$supervisor" || true

# Nothing of the user's may be left: no postgres, no pgbouncer, no defunct process.
left="$(ps -u "$user" -o pid=,stat=,comm= | grep -E 'postgres|pgbouncer' || true)"
if [ -n "$left" ]; then
    echo "$left" >&2
    echo "error: processes were left behind after Scripts/dev-database.sh stop (above)" >&2
    exit 1
fi
echo "dev database: stopped, no process left behind ($(( $(date +%s) - started )) s)"
