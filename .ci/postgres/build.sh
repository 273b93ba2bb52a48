#!/usr/bin/env bash
# The build of the steps that need the package's traits: the library and its tests with the
# PostgreSQL and Configuration traits, in .build-postgres, warnings failing it as in the main
# build. 50-postgres.sh and 52-configuration.sh run their tests from it with the same traits
# (`swift test --traits "$(.ci/postgres/build.sh traits)" --skip-build --scratch-path .build-postgres`).
#
#   .ci/postgres/build.sh start   starts it in the background (log: .build-ci-postgres.log)
#   .ci/postgres/build.sh wait    waits for a started build, or builds now if none was started;
#                                 fails, showing the log, when the build failed or warned
#   .ci/postgres/build.sh stop    stops a started build that is still running (.ci/run does this
#                                 when it exits, so a failed run leaves no compiler behind)
#   .ci/postgres/build.sh traits  prints the traits it builds with, for `swift test --skip-build`
#                                 on .build-postgres (other traits would rebuild everything)
#
# .ci/run starts it right after the main build: it shares no files with the steps that follow
# (its own scratch path), and fills the time they leave a processor idle, so it is done, or
# nearly, when 50-postgres.sh waits for it.
set -euo pipefail
cd "$(dirname "$0")/../.."
LOG=.build-ci-postgres.log STATUS=.build-ci-postgres.status PID=.build-ci-postgres.pid
TRAITS=PostgreSQL,Configuration

build() {
    # CI_WITHOUT_DEBUG_INFO: set by .ci/run (see there).
    # shellcheck disable=SC2086
    swift build --traits "$TRAITS" --build-tests --scratch-path .build-postgres ${CI_WITHOUT_DEBUG_INFO:-} > "$LOG" 2>&1
}

# Builds and records the outcome (0 or 1) in $STATUS, which appears only once complete.
build_and_record() {
    if build; then echo 0; else echo 1; fi > "$STATUS.part" && mv "$STATUS.part" "$STATUS"
}

case "${1:-}" in
start)
    rm -f "$STATUS"
    # Detached from this script's output, so the step that starts it ends while it runs; in a
    # process group of its own, so `stop` can end it with the compilers it started.
    export -f build build_and_record
    export LOG STATUS TRAITS
    setsid bash -c build_and_record < /dev/null > /dev/null 2>&1 &
    echo $! > "$PID"
    echo "PostgreSQL build started in the background (log: $LOG)"
    ;;
wait)
    if [ ! -e "$STATUS" ] && ! { [ -e "$PID" ] && kill -0 "$(cat "$PID")" 2> /dev/null; }; then
        build_and_record
    fi
    for _ in $(seq 1 1800); do [ -e "$STATUS" ] && break; sleep 1; done
    if [ ! -e "$STATUS" ]; then
        echo "error: the PostgreSQL build did not finish within 30 minutes" >&2
        exit 1
    fi
    if [ "$(cat "$STATUS")" != 0 ]; then
        cat "$LOG"
        echo "error: the PostgreSQL build failed (above)" >&2
        exit 1
    fi
    tail -1 "$LOG"
    if grep -E "warning:|error:" "$LOG" | grep -v "^warning: 'main'"; then
        echo "error: the PostgreSQL build produced warnings (listed above)" >&2
        exit 1
    fi
    ;;
stop)
    if [ -e "$PID" ] && [ ! -e "$STATUS" ]; then
        kill -- "-$(cat "$PID")" 2> /dev/null || true
        echo "stopped the background PostgreSQL build"
    fi
    rm -f "$PID"
    ;;
traits)
    echo "$TRAITS"
    ;;
*)
    echo "usage: $0 start|wait|stop|traits" >&2
    exit 2
    ;;
esac
