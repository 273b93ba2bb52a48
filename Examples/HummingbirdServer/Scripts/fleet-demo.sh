#!/usr/bin/env bash
# Three FlagServer instances on loopback sharing their flags through PostgreSQL:
# starts a private PostgreSQL (the CI scripts; reused if APPSTATEKIT_POSTGRES_HOST is already
# set), builds and starts three instances, flips a flag on the first with curl, shows the other
# two serving it, then stops everything (also on failure or Ctrl-C).
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

for index in 0 1 2; do
    echo "instance $index before: $(curl -sf "http://127.0.0.1:${PORTS[$index]}/api/flags/beta")"
done
echo "--- PUT beta = true on instance 0"
curl -sf -X PUT "http://127.0.0.1:${PORTS[0]}/api/flags/beta" -H 'content-type: application/json' -d '{"enabled":true}'
echo
for index in 1 2; do
    served=""
    for _ in $(seq 1 100); do
        served="$(curl -sf "http://127.0.0.1:${PORTS[$index]}/api/flags/beta")"
        case "$served" in *'"enabled":true'*) break ;; esac
        sleep 0.05
    done
    echo "instance $index serves: $served"
    case "$served" in
        *'"enabled":true'*) ;;
        *) cat "$LOGS/instance$index.log" >&2; echo "error: instance $index doesn't serve the flag" >&2; exit 1 ;;
    esac
done
echo "--- all three instances serve beta = true; stopping"
