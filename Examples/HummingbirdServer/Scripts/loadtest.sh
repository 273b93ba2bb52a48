#!/usr/bin/env bash
# Bounded load test on loopback: runs wrk against a route that goes through AppStateKit
# (metrics State update, per-request scoped override, dependency resolution, StoredState read)
# and against a route that touches no AppStateKit code, side by side, then checks that the
# State counter counted exactly the requests the server served (0 lost updates).
#
# Usage: Examples/HummingbirdServer/Scripts/loadtest.sh [seconds] [connections]
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-10}"
CONNECTIONS="${2:-64}"
PORT="${PORT:-8099}"

if ! command -v wrk > /dev/null; then
    (apt-get update -qq && apt-get install -y -qq wrk) > /dev/null
fi

swift build -c release --product FlagServer > /dev/null
DATA_DIR="$(mktemp -d)"
trap 'kill "$SERVER" 2> /dev/null || true; rm -rf "$DATA_DIR"' EXIT
FLAG_DATA_DIR="$DATA_DIR" XDG_CONFIG_HOME="$DATA_DIR" PORT="$PORT" LOG_LEVEL=warning .build/release/FlagServer &
SERVER=$!
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT/plain" > /dev/null && break; sleep 0.2; done

run() { wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" "$1" | awk '/Requests\/sec/ {print $2}'; }
# Interleaved, so drift on a shared machine hits both alike.
WITH=$(run "http://127.0.0.1:$PORT/api/flags/alpha")
WITHOUT=$(run "http://127.0.0.1:$PORT/baseline/flags/alpha")
WITH_AGAIN=$(run "http://127.0.0.1:$PORT/api/flags/alpha")
WITHOUT_AGAIN=$(run "http://127.0.0.1:$PORT/baseline/flags/alpha")
METRICS=$(curl -sf "http://127.0.0.1:$PORT/metrics")

echo "requests/s through AppStateKit: $WITH, $WITH_AGAIN (two runs)"
echo "requests/s without AppStateKit: $WITHOUT, $WITHOUT_AGAIN (two runs; same JSON response, no AppStateKit code)"
echo "metrics: $METRICS"
python3 - "$METRICS" <<'PY'
import json, sys
metrics = json.loads(sys.argv[1])
lost = metrics["served"] - metrics["requests"]
print(f"served {metrics['served']} requests, State counted {metrics['requests']}: {lost} lost updates")
sys.exit(0 if lost == 0 and metrics["served"] > 0 else 1)
PY
