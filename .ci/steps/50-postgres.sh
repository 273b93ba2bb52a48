#!/usr/bin/env bash
# The PostgreSQL store against a real server: starts a private PostgreSQL 15 cluster and a
# PgBouncer in transaction pooling mode in front of it (.ci/postgres/start.sh: installs Debian's
# postgresql-15 and pgbouncer if missing, initdb as a non-root user into a temporary folder,
# loopback + a Unix socket in that folder only, an owner role and a least-privileged app role),
# builds the package with the PostgreSQL trait (no warnings allowed), runs
# AppStateKitPostgresTests as the app role — which must run, not skip — then the Hummingbird
# fleet demo (three instances sharing flags), and always stops and deletes both servers.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)

eval "$(.ci/postgres/start.sh)"
trap '.ci/postgres/stop.sh "$APPSTATEKIT_POSTGRES_DIR"' EXIT

# Started in the background by .ci/run after the main build; built here when run on its own.
.ci/postgres/build.sh wait

# The hostile-peer, fuzz and TLS suites run in 51-postgres-hostile.sh, from the same build.
timeout 900 swift test --traits "$(.ci/postgres/build.sh traits)" --skip-build --scratch-path .build-postgres --filter AppStateKitPostgresTests \
    --skip 'PostgresHostilePeerTests|HostileInputTests|PostgresTLSTests' 2>&1 \
    | tee .build-ci-postgres-tests.log
status=${PIPESTATUS[0]}
[ "$status" = "0" ] || { echo "error: the PostgreSQL tests failed" >&2; exit "$status"; }
# A reachable server must mean the tests ran: any skip here is a failure.
# Display names may contain spaces ("Suite \"PostgreSQL server\" skipped: …"), so match the whole line.
if grep -E "^[^ ]+ (Test|Suite) .* skipped" .build-ci-postgres-tests.log; then
    echo "error: PostgreSQL tests were skipped although the server is running (above)" >&2
    exit 1
fi
grep -E "Test run with [0-9]+ tests" .build-ci-postgres-tests.log | tail -1
# The figures the tests measure (cold start, propagation with and without PgBouncer, repair
# time, shutdown drain), for the log.
grep -E "^(cold start|propagation|reconciliation repair|shutdown drain)" .build-ci-postgres-tests.log || true

# With 20-hummingbird.sh's flags, so the demo's build finds the server already built.
SWIFT_BUILD_FLAGS="${CI_WITHOUT_DEBUG_INFO:-}" bash Examples/HummingbirdServer/Scripts/fleet-demo.sh

echo "postgres step: $(( $(date +%s) - started )) s"
