#!/usr/bin/env bash
# What durable writes do to everyone else's latency: the p99 of a read-only route
# (GET /api/flags/alpha, 4 connections) alone, and while 64 connections hammer a route that
# persists a StoredState on every request:
#
#   idle       no writers
#   async      POST /api/visits           writeDurably: the request's task is suspended while
#                                         AppStateKit's own threads wait for the disk
#   blocking   POST /api/visits/blocking  write(_:): the handler blocks its event loop (or pool
#                                         thread) until the disk answers
#
# Phases alternate round by round (so drift on a shared machine hits all alike). Prints each
# phase's reader p99 and requests/s and the writers' requests/s, round by round and as medians,
# and each writing phase's median p99 against the idle phase's (issue 32's bar: async within 2×).
#
# The server runs as deployed (Swift concurrency on its NIO event loops unless the caller sets
# FLAG_SERVER_EXECUTOR=swift), pinned to one processor and wrk to the other when PIN=1 (the
# default with two or more processors), as in loadtest.sh.
#
# Usage: Examples/HummingbirdServer/Scripts/write-latency.sh [seconds] [rounds] [writer connections]
set -euo pipefail
cd "$(dirname "$0")/.."
DURATION="${1:-5}"
ROUNDS="${2:-3}"
WRITERS="${3:-64}"
PORT="${PORT:-8098}"

if ! command -v wrk > /dev/null; then
    (apt-get update -qq && apt-get install -y -qq wrk) > /dev/null
fi

swift build -c release --product FlagServer > /dev/null
DATA_DIR="$(mktemp -d)"
trap 'kill "$SERVER" 2> /dev/null || true; rm -rf "$DATA_DIR"' EXIT
SERVER_PIN=() CLIENT_PIN=()
if [ "${PIN:-1}" = 1 ] && command -v taskset > /dev/null && [ "$(nproc)" -ge 2 ]; then
    SERVER_PIN=(taskset -c 0) CLIENT_PIN=(taskset -c 1)
fi
FLAG_DATA_DIR="$DATA_DIR" XDG_CONFIG_HOME="$DATA_DIR" PORT="$PORT" LOG_LEVEL=warning "${SERVER_PIN[@]}" .build/release/FlagServer &
SERVER=$!
. Scripts/flag-server.sh
wait_until_serving "$PORT" "$SERVER"
echo "server: Swift concurrency on ${FLAG_SERVER_EXECUTOR:-event-loops} (FLAG_SERVER_EXECUTOR), ${SERVER_PIN[*]:-unpinned}; readers 4 connections, writers $WRITERS"
printf 'wrk.method = "POST"\n' > "$DATA_DIR/post.lua"

# reader OUTPUT: the read-only route for DURATION seconds, with latency percentiles.
reader() {
    "${CLIENT_PIN[@]}" wrk -t1 -c4 -d"${DURATION}s" --latency "http://127.0.0.1:$PORT/api/flags/alpha" > "$1"
}
# writers ROUTE OUTPUT: WRITERS connections posting to ROUTE, a second longer than the reader
# (started first, so the reader measures only while the writers are at full speed).
writers() {
    "${CLIENT_PIN[@]}" wrk -t1 -c"$WRITERS" -d"$((DURATION + 1))s" -s "$DATA_DIR/post.lua" "http://127.0.0.1:$PORT/api/$1" > "$2"
}
# phase NAME: runs one phase and prints "p99_µs,reader_rps,writer_rps".
phase() {
    local writer_pid=""
    case "$1" in
        async) writers visits "$DATA_DIR/writers.out" & writer_pid=$! ;;
        blocking) writers visits/blocking "$DATA_DIR/writers.out" & writer_pid=$! ;;
    esac
    [ -n "$writer_pid" ] && sleep 0.5
    reader "$DATA_DIR/reader.out"
    local writer_rps=0
    if [ -n "$writer_pid" ]; then
        wait "$writer_pid"
        writer_rps=$(awk '/Requests\/sec/ {print $2}' "$DATA_DIR/writers.out")
    fi
    awk -v writer_rps="$writer_rps" '
        function micros(text) {
            if (text ~ /us$/) return substr(text, 1, length(text) - 2) + 0
            if (text ~ /ms$/) return 1000 * substr(text, 1, length(text) - 2)
            if (text ~ /s$/) return 1000000 * substr(text, 1, length(text) - 1)
            return text + 0
        }
        $1 == "99%" {p99 = micros($2)} /Requests\/sec/ {rps = $2}
        END {printf "%.0f,%s,%s\n", p99, rps, writer_rps}' "$DATA_DIR/reader.out"
}

PHASES=(idle async blocking)
phase idle > /dev/null   # warm up
RESULTS=""
for round in $(seq 1 "$ROUNDS"); do
    line="round $round:"
    shift=$(( (round - 1) % ${#PHASES[@]} ))
    for name in "${PHASES[@]:$shift}" "${PHASES[@]:0:$shift}"; do
        result=$(phase "$name")
        RESULTS="$RESULTS $name=$result"
        line="$line $name p99 ${result%%,*} µs;"
    done
    echo "$line"
done
python3 - $RESULTS <<'PY'
import sys
phases = {}
for item in sys.argv[1:]:
    name, result = item.split("=")
    p99, reader_rps, writer_rps = (float(value) for value in result.split(","))
    phases.setdefault(name, []).append((p99, reader_rps, writer_rps))
def median(values):
    values = sorted(values)
    middle = len(values) // 2
    return values[middle] if len(values) % 2 else (values[middle - 1] + values[middle]) / 2
idle = median(p for p, _, _ in phases["idle"])
for name in ("idle", "async", "blocking"):
    p99 = median(p for p, _, _ in phases[name])
    reads = median(r for _, r, _ in phases[name])
    writes = median(w for _, _, w in phases[name])
    if reads == 0:
        # wrk prints no percentiles when no request completed: the readers were starved.
        print(f"{name:8} no reader request completed (starved), writers {writes:7.0f} requests/s")
        continue
    print(f"{name:8} reader p99 {p99:8.0f} µs ({p99 / idle:5.2f}× idle), reader {reads:7.0f} requests/s, writers {writes:7.0f} requests/s")
ratio = median(p for p, _, _ in phases["async"]) / idle
print(f"async writers: reader p99 {ratio:.2f}× idle — issue 32's bar (≤ 2×): {'met' if ratio <= 2 else 'not met'}")
PY
