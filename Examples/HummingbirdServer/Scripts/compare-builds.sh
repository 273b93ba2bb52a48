#!/usr/bin/env bash
# Compares two builds of FlagServer side by side: both run at once on processor 0 (each idle
# while wrk drives the other), wrk on processor 1, rounds alternated between them, so drift on a
# shared machine hits both alike. Prints each build's server processor time per request on
# /api and /equivalent (from /proc) and requests/s. Use it to tell whether a library change
# moved the server at all: the load test's ratios swing by several percent from run to run.
#
#   Usage: Examples/HummingbirdServer/Scripts/compare-builds.sh OLD_BINARY NEW_BINARY [seconds] [rounds]
#
# Build each binary from its own clone (`swift build -c release --product FlagServer` in
# Examples/HummingbirdServer, then copy .build/release/FlagServer somewhere).
set -euo pipefail
if [ $# -lt 2 ]; then
    echo "usage: $0 OLD_BINARY NEW_BINARY [seconds] [rounds]" >&2
    exit 2
fi
OLD="$1" NEW="$2" SECONDS_PER_RUN="${3:-5}" ROUNDS="${4:-6}"
if ! command -v wrk > /dev/null; then
    (apt-get update -qq && apt-get install -y -qq wrk) > /dev/null
fi
if [ "$(nproc)" -lt 2 ] || ! command -v taskset > /dev/null; then
    echo "compare-builds: needs two processors and taskset" >&2
    exit 1
fi

OLD_DIR="$(mktemp -d)" NEW_DIR="$(mktemp -d)"
FLAG_DATA_DIR="$OLD_DIR" XDG_CONFIG_HOME="$OLD_DIR" PORT=8141 LOG_LEVEL=warning taskset -c 0 "$OLD" &
OLD_PID=$!
FLAG_DATA_DIR="$NEW_DIR" XDG_CONFIG_HOME="$NEW_DIR" PORT=8142 LOG_LEVEL=warning taskset -c 0 "$NEW" &
NEW_PID=$!
trap 'kill "$OLD_PID" "$NEW_PID" 2> /dev/null || true; rm -rf "$OLD_DIR" "$NEW_DIR"' EXIT
. "$(dirname "$0")/flag-server.sh"
wait_until_serving 8141 "$OLD_PID"
wait_until_serving 8142 "$NEW_PID"

# name port route pid
CASES=("old-api 8141 api $OLD_PID" "new-api 8142 api $NEW_PID" "old-equivalent 8141 equivalent $OLD_PID" "new-equivalent 8142 equivalent $NEW_PID")
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
for entry in "${CASES[@]}"; do
    read -r _ port route _ <<< "$entry"
    taskset -c 1 wrk -t1 -c64 -d1s "http://127.0.0.1:$port/$route/flags/alpha" > /dev/null
done
declare -A REQUESTS TICKS
for round in $(seq 1 "$ROUNDS"); do
    line="round $round:"
    for entry in "${CASES[@]}"; do
        read -r name port route pid <<< "$entry"
        before=$(ticks "$pid")
        count=$(taskset -c 1 wrk -t1 -c64 -d"${SECONDS_PER_RUN}s" "http://127.0.0.1:$port/$route/flags/alpha" | awk '/requests in/ {print $1}')
        after=$(ticks "$pid")
        REQUESTS[$name]=$(( ${REQUESTS[$name]:-0} + count ))
        TICKS[$name]=$(( ${TICKS[$name]:-0} + after - before ))
        line="$line $name $(awk -v t=$((after - before)) -v n="$count" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.1f µs", t * 1e6 / hz / n}')"
    done
    echo "$line"
done
for entry in "${CASES[@]}"; do
    read -r name _ _ _ <<< "$entry"
    awk -v name="$name" -v t="${TICKS[$name]}" -v n="${REQUESTS[$name]}" -v hz="$(getconf CLK_TCK)" -v s=$((ROUNDS * SECONDS_PER_RUN)) \
        'BEGIN {printf "%-15s %6.2f µs/request  %8.0f requests/s\n", name, t * 1e6 / hz / n, n / s}'
done
