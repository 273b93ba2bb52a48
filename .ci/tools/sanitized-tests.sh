#!/usr/bin/env bash
# The test suite under a sanitizer, the PostgreSQL and Configuration tests included:
#
#     .ci/tools/sanitized-tests.sh thread      # .ci/run's ThreadSanitizer step
#     .ci/tools/sanitized-tests.sh address     # 05-address-sanitizer.sh
#
# One build per sanitizer, with the traits .ci/postgres/build.sh uses, in .build-<sanitizer>; a
# private PostgreSQL 15 (.ci/postgres/start.sh) runs for the whole test run, so the PostgreSQL
# store's tests and the Configuration tests over it run against a real server as the
# least-privileged app role, and none of them may skip. Any sanitizer report fails the run
# (halt_on_error makes the test process exit non-zero).
#
# Left to 51-postgres-hostile.sh, from the plain build: the hostile-peer suite (a 100,000-
# notification flood and a role without grants, whose figures a sanitizer would only slow) and
# the TLS suite (it needs the server's throw-away certificate). The fuzzers of HostileInputTests
# run here too: a parser that reads out of bounds is what the address sanitizer is for.
set -euo pipefail
cd "$(dirname "$0")/../.."
kind="${1:?usage: sanitized-tests.sh thread|address}"
case "$kind" in
thread) export TSAN_OPTIONS="halt_on_error=1" ;;
# Leak detection is off: test helper processes exit with objects alive, as processes do.
address) export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1" ;;
*) echo "error: unknown sanitizer '$kind' (thread or address)" >&2; exit 2 ;;
esac

eval "$(.ci/postgres/start.sh)"
trap '.ci/postgres/stop.sh "$APPSTATEKIT_POSTGRES_DIR"' EXIT

log=".build-ci-$kind-sanitizer.log"
# C and C++ (BoringSSL, most of the dependencies' compile time) without debug information;
# Swift frames keep their file and line in reports.
flags=(--sanitize="$kind" --traits "$(.ci/postgres/build.sh traits)" --scratch-path ".build-$kind" -Xcc -g0)
server_tests='AppStateKitPostgresTests|AppStateKitConfigurationTests'
# Builds of tests keep SwiftPM's index store (no --disable-index-store, though it cuts a third off
# a debug build): on Linux `swift test` discovers the tests through it.
# The package's own tests first, then, from the same build, the PostgreSQL and Configuration
# tests: together, the slowed-down suites starve each other's waits (a Configuration test's
# one-minute limit, a PostgreSQL test's 30-second wait for a report).
swift test "${flags[@]}" --skip "$server_tests" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
[ "$status" = "0" ] || { echo "error: the tests under the $kind sanitizer failed" >&2; exit "$status"; }
# One test at a time: a few PostgreSQL tests hold a thread of Swift's two-thread pool on purpose
# (an update body waiting for a row lock to be contended), which the sanitizer's slowdown turns
# into another test's timeout when they run side by side.
swift test "${flags[@]}" --skip-build --no-parallel --filter "$server_tests" \
    --skip 'PostgresHostilePeerTests|PostgresTLSTests' 2>&1 | tee -a "$log"
status=${PIPESTATUS[0]}
[ "$status" = "0" ] || { echo "error: the PostgreSQL and Configuration tests under the $kind sanitizer failed" >&2; exit "$status"; }
# Display names contain spaces, so match the whole line; some names say "skipped" themselves,
# so the lines announcing a start or an outcome don't count.
if grep -E "^[^ ]+ (Test|Suite) .* skipped" "$log" | grep -vE " (started\.|(passed|failed) after .*)$"; then
    echo "error: tests were skipped under the $kind sanitizer although the server is running (above)" >&2
    exit 1
fi
# A filter or trait that left the PostgreSQL or Configuration tests out would pass silently: each
# of these suites must have run.
for suite in "PostgresServerTests" "ProviderCompatTest over PostgreSQL" "Sync store conformance"; do
    # A suite with a display name is printed quoted, one without (PostgresServerTests) bare.
    if ! grep -qE "✔ Suite (\"$suite\"|$suite) passed after" "$log"; then
        echo "error: the suite \"$suite\" did not run under the $kind sanitizer" >&2
        exit 1
    fi
done
grep -E "Test run with [0-9]+ tests" "$log"
