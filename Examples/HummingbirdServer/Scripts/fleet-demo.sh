#!/usr/bin/env bash
# Three FlagServer instances on loopback sharing their flags through PostgreSQL, through
# SyncState: starts a private PostgreSQL (the CI scripts; reused if APPSTATEKIT_POSTGRES_HOST is
# already set), creates the fleet's table as the owner role with the SQL the server prints
# (`FlagServer print-migration-sql`), starts three instances as the least-privileged app role,
# then: flips a flag on the first (SyncState.update), sets the maintenance switch on the second
# (SyncState's setter), removes every flag on the third (SyncState.write), each time showing the
# other instances serving it; stops them with SIGTERM and everything else (also on failure or
# Ctrl-C).
set -euo pipefail
. "$(dirname "$0")/flag-server.sh"
REPO="$(cd "$FLAG_SERVER_PACKAGE/../.." && pwd)"
PIDS=()
OWN_CLUSTER=""
LOGS=""

cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2> /dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2> /dev/null || true; done
    if [ -n "$LOGS" ]; then rm -rf "$LOGS"; fi
    if [ -n "$OWN_CLUSTER" ]; then "$REPO/.ci/postgres/stop.sh" "$OWN_CLUSTER"; fi
}
trap cleanup EXIT

if [ -z "${APPSTATEKIT_POSTGRES_HOST:-}" ]; then
    eval "$("$REPO/.ci/postgres/start.sh")"
    OWN_CLUSTER="$APPSTATEKIT_POSTGRES_DIR"
fi
# A fresh table, so every run starts with no flags.
export FLAG_SYNC_TABLE="flag_demo_$RANDOM$RANDOM"

echo "--- building FlagServer"
build_flag_server

echo "--- creating table $FLAG_SYNC_TABLE as ${APPSTATEKIT_POSTGRES_OWNER:-$APPSTATEKIT_POSTGRES_USER}"
"$SERVER" print-migration-sql | psql -q -v ON_ERROR_STOP=1 -h "$APPSTATEKIT_POSTGRES_HOST" -p "$APPSTATEKIT_POSTGRES_PORT" \
    -U "${APPSTATEKIT_POSTGRES_OWNER:-$APPSTATEKIT_POSTGRES_USER}" -d "$APPSTATEKIT_POSTGRES_DATABASE" > /dev/null

PORTS=("$(free_port)" "$(free_port)" "$(free_port)")
LOGS="$(mktemp -d /tmp/flag-demo.XXXXXX)"
for index in 0 1 2; do
    # The instances' StoredState store lives in the demo's folder too, not in ~/.config.
    PORT="${PORTS[$index]}" FLAG_DATA_DIR="$LOGS" XDG_CONFIG_HOME="$LOGS" "$SERVER" > "$LOGS/instance$index.log" 2>&1 &
    PIDS+=("$!")
done
for index in 0 1 2; do
    wait_until_serving "${PORTS[$index]}" "${PIDS[$index]}" \
        || { cat "$LOGS/instance$index.log" >&2; echo "error: instance $index didn't start" >&2; exit 1; }
done
echo "--- three instances on ports ${PORTS[*]}, sharing table $FLAG_SYNC_TABLE on $APPSTATEKIT_POSTGRES_HOST:$APPSTATEKIT_POSTGRES_PORT"

# Waits until instance $1 serves a body matching the pattern $3 at path $2; fails otherwise.
expect_served() {
    local index="$1" path="$2" pattern="$3" served=""
    for _ in $(seq 1 100); do
        served="$(curl -sf "http://127.0.0.1:${PORTS[$index]}$path")"
        case "$served" in $pattern) echo "instance $index serves $path: $served"; return 0 ;; esac
        sleep 0.05
    done
    cat "$LOGS/instance$index.log" >&2
    echo "error: instance $index serves $path as '$served', not $pattern" >&2
    exit 1
}

for index in 0 1 2; do
    echo "instance $index before: $(curl -sf "http://127.0.0.1:${PORTS[$index]}/api/flags/beta")"
done
echo "--- PUT beta = true on instance 0 (SyncState.update)"
curl -sf -X PUT "http://127.0.0.1:${PORTS[0]}/api/flags/beta" -H 'content-type: application/json' -d '{"enabled":true}'
echo
for index in 1 2; do expect_served "$index" /api/flags/beta '*"enabled":true*'; done

echo "--- PUT maintenance = true on instance 1 (SyncState's setter)"
curl -sf -X PUT "http://127.0.0.1:${PORTS[1]}/api/maintenance" -H 'content-type: application/json' -d '{"enabled":true}'
for index in 0 2; do expect_served "$index" /api/maintenance '*"enabled":true*'; done

echo "--- DELETE every flag on instance 2 (SyncState.write)"
curl -sf -X DELETE "http://127.0.0.1:${PORTS[2]}/api/flags"
for index in 0 1; do expect_served "$index" /api/flags '[[]]'; done
# The incident drill of the operator tool's guide: with APPSTATEKIT_TOOL naming a built
# `appstatekit` (.ci/steps/55-operator-tool.sh sets it), the maintenance switch is flipped for the
# fleet from a shell, as the app role, and the time until all three instances serve it is printed.
if [ -n "${APPSTATEKIT_TOOL:-}" ]; then
    echo "--- incident drill: maintenance = false for the whole fleet with appstatekit sync set"
    drill_started=$(date +%s%N)
    APPSTATEKIT_POSTGRES_USER="${APPSTATEKIT_POSTGRES_APP_USER:-$APPSTATEKIT_POSTGRES_USER}" \
        APPSTATEKIT_POSTGRES_PASSWORD="${APPSTATEKIT_POSTGRES_APP_PASSWORD:-${APPSTATEKIT_POSTGRES_PASSWORD:-}}" \
        "$APPSTATEKIT_TOOL" sync set FlagServer/maintenance false --postgres --table "$FLAG_SYNC_TABLE"
    tool_done=$(date +%s%N)
    for index in 0 1 2; do expect_served "$index" /api/maintenance '*"enabled":false*'; done
    echo "incident drill: the command took $(( (tool_done - drill_started) / 1000000 )) ms; all three instances served the new value $(( ($(date +%s%N) - drill_started) / 1000000 )) ms after it started"
fi
echo "--- all three instances follow update, setter and write; stopping them with SIGTERM"
for pid in "${PIDS[@]}"; do kill -TERM "$pid"; done
for index in 0 1 2; do
    status=0
    wait "${PIDS[$index]}" || status=$?
    if [ "$status" != 0 ]; then cat "$LOGS/instance$index.log" >&2; echo "error: instance $index exited with $status on SIGTERM" >&2; exit 1; fi
    if grep -iE "error|warning" "$LOGS/instance$index.log"; then echo "error: instance $index reported the above on a normal run" >&2; exit 1; fi
done
PIDS=()
echo "--- every instance stopped cleanly"
