#!/usr/bin/env bash
# Issue 13's durability bar: the SIGKILL tests again with 200 kills each (the `swift test` run
# uses 50): StoredState in every layout, 8 concurrent writers sharing batches (threads, and tasks
# awaiting writeDurably), FileState (write and writeDurably) and
# LocalSyncStore. Each prints its tally (a test diagnostic, shown with APPSTATEKIT_TEST_DIAGNOSTICS=1);
# any lost or unreadable write fails the run.
#
# One test process per test: a single process starting some 1,400 children crashed once inside
# swift-corelibs-foundation's `Process.run()` (a bad `memcpy` while launching a child), which
# is the test harness's tool, not the code under test.
set -euo pipefail
for test in storeSurvivesKill concurrentWritersSurviveKill fileStateSurvivesKill asyncWritersSurviveKill asyncFileStateSurvivesKill LocalSyncStoreProcessTests; do
    if ! APPSTATEKIT_TEST_DIAGNOSTICS=1 APPSTATEKIT_KILL_ROUNDS=200 swift test --skip-build --filter "$test" > .build-ci-kill.log 2>&1; then
        cat .build-ci-kill.log
        echo "error: a kill test failed with 200 SIGKILLs ($test)" >&2
        exit 1
    fi
    grep -E "kill test" .build-ci-kill.log
done
