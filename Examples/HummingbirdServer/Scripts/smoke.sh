#!/usr/bin/env bash
# Runs the FlagServer binary as deployed, once with each FLAG_SERVER_EXECUTOR: the first run
# (Swift concurrency on the NIO event loops, the default) saves a flag and the default value,
# the second (Swift's own thread pool) must serve both from the same data folder; each run
# stops on SIGTERM with status 0. An unknown FLAG_SERVER_EXECUTOR must fail to start, saying why.
# Everything lives in a temporary folder, removed afterwards.
set -euo pipefail
. "$(dirname "$0")/flag-server.sh"
DATA="$(mktemp -d /tmp/flag-smoke.XXXXXX)"
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2> /dev/null || true; fi
    rm -rf "$DATA"
}
trap cleanup EXIT

build_flag_server
PORT="$(free_port)"
URL="http://127.0.0.1:$PORT"

fail() { cat "$DATA/server.log" >&2 || true; echo "error: $*" >&2; exit 1; }
# Becomes the server with FLAG_SERVER_EXECUTOR=$1 on PORT and the data folder, logging to
# server.log: call it in the background or in a subshell (it `exec`s, so a background job's
# process id is the server's own, for `kill` and `wait`).
run_server() {
    FLAG_SERVER_EXECUTOR="$1" PORT="$PORT" FLAG_DATA_DIR="$DATA" XDG_CONFIG_HOME="$DATA" exec "$SERVER" > "$DATA/server.log" 2>&1
}
# Starts the server with FLAG_SERVER_EXECUTOR=$1 and waits until it answers.
start() {
    run_server "$1" &
    SERVER_PID=$!
    wait_until_serving "$PORT" "$SERVER_PID" || fail "the server with FLAG_SERVER_EXECUTOR=$1 didn't start"
}
# Stops the server with SIGTERM and checks that it shut down cleanly.
stop() {
    kill -TERM "$SERVER_PID"
    local status=0
    wait "$SERVER_PID" || status=$?
    SERVER_PID=""
    [ "$status" = 0 ] || fail "the server exited with status $status on SIGTERM"
}
expect() {   # expect DESCRIPTION ACTUAL PATTERN
    case "$2" in *$3*) echo "ok: $1" ;; *) fail "$1: got $2" ;; esac
}

start event-loops
curl -sf -X PUT "$URL/api/flags/beta" -H 'content-type: application/json' -d '{"enabled":true}' > /dev/null
curl -sf -X PUT "$URL/api/config/default" -H 'content-type: application/json' -d '{"enabled":true}' > /dev/null
expect "event loops: saved flag served" "$(curl -sf "$URL/api/flags/beta")" '"enabled":true'
expect "event loops: metrics counted the requests" "$(curl -sf "$URL/metrics")" '"requests":3'
stop

start swift
expect "swift pool: flag saved by the first run" "$(curl -sf "$URL/api/flags/beta")" '"enabled":true'
expect "swift pool: default saved by the first run" "$(curl -sf "$URL/api/flags/unknown")" '"enabled":true'
stop

status=0
(run_server threads) || status=$?
[ "$status" != 0 ] || fail "FLAG_SERVER_EXECUTOR=threads started the server"
expect "an unknown executor is refused" "$(cat "$DATA/server.log")" 'FLAG_SERVER_EXECUTOR is "threads"'
