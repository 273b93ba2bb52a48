#!/usr/bin/env bash
# AppStateKitConfiguration's tests, swift-configuration's ProviderCompatTest among them, from the
# trait build .ci/postgres/build.sh makes (started in the background by .ci/run; built here when
# run on its own), with the same traits so nothing is rebuilt. The compat test also runs over
# PostgresSyncStore, so this step starts its own private PostgreSQL (.ci/postgres/start.sh: the
# owner role creates the table, the store connects as the least-privileged app role) and always
# stops and deletes it. Every test must run: a skipped test fails the step.
set -euo pipefail
cd "$(dirname "$0")/../.."

eval "$(.ci/postgres/start.sh)"
trap '.ci/postgres/stop.sh "$APPSTATEKIT_POSTGRES_DIR"' EXIT

.ci/postgres/build.sh wait

timeout 600 swift test --traits PostgreSQL,Configuration --skip-build --scratch-path .build-postgres \
    --filter AppStateKitConfigurationTests 2>&1 | tee .build-ci-configuration-tests.log
status=${PIPESTATUS[0]}
[ "$status" = "0" ] || { echo "error: the configuration tests failed" >&2; exit "$status"; }
# Display names contain spaces, so match the whole line.
if grep -E "^[^ ]+ (Test|Suite) .* skipped" .build-ci-configuration-tests.log; then
    echo "error: configuration tests were skipped (above)" >&2
    exit 1
fi
summary="$(grep -E "Test run with [0-9]+ tests" .build-ci-configuration-tests.log | tail -1)"
echo "$summary"
# The filter matching nothing would pass with 0 tests; the compat suites have 5 tests and 1.
for suite in "ProviderCompatTest" "ProviderCompatTest over PostgreSQL"; do
    if ! grep -qE "✔ Suite \"$suite\" passed after" .build-ci-configuration-tests.log; then
        echo "error: the suite \"$suite\" (swift-configuration's ProviderCompatTest) did not run" >&2
        exit 1
    fi
done
