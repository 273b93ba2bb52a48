#!/usr/bin/env bash
# Issue 13's durability bar: the SIGKILL tests again with 200 kills each (the `swift test` run
# uses 50): StoredState in every layout, 8 concurrent writers sharing batches, FileState and
# LocalSyncStore. Each prints its tally; any lost or unreadable write fails the run.
set -euo pipefail
if ! APPSTATEKIT_KILL_ROUNDS=200 swift test --skip-build --filter "PersistenceProcessTests|LocalSyncStoreProcessTests" > .build-ci-kill.log 2>&1; then
    cat .build-ci-kill.log
    echo "error: a kill test failed with 200 SIGKILLs" >&2
    exit 1
fi
grep -E "kill test" .build-ci-kill.log
