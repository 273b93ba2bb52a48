#!/usr/bin/env bash
# Issue 41: the PostgreSQL store under attack, as its own step. On a private PostgreSQL 15
# (.ci/postgres/start.sh) with TLS turned on (.ci/postgres/enable-tls.sh: a throw-away
# certificate made with openssl, ssl = on), from the build 50-postgres.sh already used
# (.ci/postgres/build.sh: built once per run), it runs
# - PostgresHostilePeerTests: a role with no grant and a role with the app's grants send each
#   trigger of issue 41 (NOTIFY with out-of-range numbers, a 100,000-notification flood, rows
#   with an infinite time, version Int64.max or an over-size value) while instances run;
# - HostileInputTests: the notification parser, the row decoder and the last-known-good
#   decoder fuzzed with 100,000 generated inputs each (seed printed; APPSTATEKIT_FUZZ_SEED
#   replays one), and every bit of a small last-known-good file flipped;
# - PostgresTLSTests: the store over TLS, verifying the server against that certificate.
# None may skip. Takes about two and a half minutes after the build (on a loaded 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)

eval "$(.ci/postgres/start.sh)"
trap '.ci/postgres/stop.sh "$APPSTATEKIT_POSTGRES_DIR"' EXIT
eval "$(.ci/postgres/enable-tls.sh "$APPSTATEKIT_POSTGRES_DIR")"

.ci/postgres/build.sh wait

# The fuzz suite first, on its own, so the flood's figures aren't measured beside it.
run_tests() {
    timeout 900 swift test --traits "$(.ci/postgres/build.sh traits)" --skip-build --scratch-path .build-postgres \
        --filter "$1" 2>&1 | tee -a .build-ci-postgres-hostile.log
    return "${PIPESTATUS[0]}"
}
rm -f .build-ci-postgres-hostile.log
for filter in 'HostileInputTests' 'PostgresHostilePeerTests|PostgresTLSTests'; do
    run_tests "$filter" || { status=$?; echo "error: the hostile-peer PostgreSQL tests ($filter) failed" >&2; exit "$status"; }
done
if grep -E "^[^ ]+ (Test|Suite) .* skipped" .build-ci-postgres-hostile.log; then
    echo "error: hostile-peer tests were skipped although the server is running (above)" >&2
    exit 1
fi
grep -E "Test run with [0-9]+ tests" .build-ci-postgres-hostile.log
# What the suites measured: fuzz counts and seeds, bit flips, the flood's memory and arrival time.
grep -E "^(fuzz |last-known-good bit flips|notification flood)" .build-ci-postgres-hostile.log || true

echo "postgres hostile step: $(( $(date +%s) - started )) s"
