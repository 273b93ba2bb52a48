#!/usr/bin/env bash
# Runs a command with a time limit. When the limit passes, prints every thread's stack of each
# process the command started (gdb), then stops them all and fails with status 124 — so a step
# that hangs fails in minutes with the place it hung, instead of running into CI's own limit
# with nothing to show.
#   usage: watchdog.sh SECONDS COMMAND [ARGUMENTS...]
set -uo pipefail
limit="$1"; shift

descendants() {
    local child
    for child in $(pgrep -P "$1" 2>/dev/null); do
        echo "$child"
        descendants "$child"
    done
}

setsid "$@" &
pid=$!
waited=0
while kill -0 "$pid" 2>/dev/null; do
    if [ "$waited" -ge "$limit" ]; then
        echo "error: still running after ${limit}s, stopped: $*" >&2
        for process in $pid $(descendants "$pid"); do
            echo "--- process $process: $(tr '\0' ' ' < "/proc/$process/cmdline" 2>/dev/null | cut -c1-200)" >&2
            if command -v gdb > /dev/null; then
                timeout 60 gdb -p "$process" -batch -ex 'thread apply all bt 30' 2>/dev/null \
                    | grep -E '^(Thread|#)' | cut -c1-240 | head -300 >&2
            fi
        done
        kill -TERM -- "-$pid" 2>/dev/null
        sleep 5
        kill -KILL -- "-$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        exit 124
    fi
    sleep 1
    waited=$((waited + 1))
done
wait "$pid"
