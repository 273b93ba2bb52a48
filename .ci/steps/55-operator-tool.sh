#!/usr/bin/env bash
# The operator tool (Tools/appstatekit, its own package): built once in debug with its tests (any
# compiler warning fails the step), then its end-to-end tests run the built binary against real
# stores in temporary directories, and the sync/PostgreSQL ones against a private PostgreSQL
# server started here (.ci/postgres/start.sh, stopped by the trap as in 50-postgres.sh). With the
# server running, a skipped test fails the step.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)

eval "$(.ci/postgres/start.sh)"
trap '.ci/postgres/stop.sh "$APPSTATEKIT_POSTGRES_DIR"' EXIT
# start.sh exported the connection settings (APPSTATEKIT_POSTGRES_HOST/PORT/USER/DATABASE, the
# app and owner roles, the schema, APPSTATEKIT_PGBOUNCER_PORT); the tool's tests read them.

# Built in the Hummingbird example's scratch folder with its flags (20-hummingbird.sh,
# CI_WITHOUT_DEBUG_INFO): the two packages share swift-nio, swift-nio-ssl's BoringSSL and
# postgres-nio, so after step 20 only the tool and the library compile here (about 290 build steps
# instead of 1,980; on its own this step builds everything).
scratch=Examples/HummingbirdServer/.build
# shellcheck disable=SC2086
swift build --build-tests --package-path Tools/appstatekit --scratch-path "$scratch" ${CI_WITHOUT_DEBUG_INFO:-} 2>&1 | tee .build-ci-operator-tool-build.log
[ "${PIPESTATUS[0]}" = "0" ] || { echo "error: the operator tool did not build" >&2; exit 1; }
if grep -E "warning:" .build-ci-operator-tool-build.log | grep -v "^warning: 'main'"; then
    echo "error: the operator tool's build produced warnings (listed above)" >&2
    exit 1
fi
built=$(date +%s)

timeout 900 swift test --skip-build --package-path Tools/appstatekit --scratch-path "$scratch" 2>&1 | tee .build-ci-operator-tool-tests.log
status=${PIPESTATUS[0]}
[ "$status" = "0" ] || { echo "error: the operator tool's tests failed" >&2; exit "$status"; }
bash .ci/tools/check-quiet-test-output.sh .build-ci-operator-tool-tests.log
if grep -E "^[^ ]+ (Test|Suite) .* skipped" .build-ci-operator-tool-tests.log; then
    echo "error: operator tool tests were skipped although the PostgreSQL server is running (above)" >&2
    exit 1
fi
grep -E "Test run with [0-9]+ tests" .build-ci-operator-tool-tests.log | tail -1

# The incident drill: three FlagServer instances (the fleet demo, built with the same flags in the
# same folder by steps 20 and 50) and a flag flipped for all of them with `appstatekit sync set`.
# shellcheck disable=SC2086
APPSTATEKIT_TOOL="$(swift build --package-path Tools/appstatekit --scratch-path "$scratch" ${CI_WITHOUT_DEBUG_INFO:-} --show-bin-path)/appstatekit" \
    SWIFT_BUILD_FLAGS="${CI_WITHOUT_DEBUG_INFO:-}" bash Examples/HummingbirdServer/Scripts/fleet-demo.sh
echo "operator tool step: build $(( built - started )) s, tests and drill $(( $(date +%s) - built )) s"
