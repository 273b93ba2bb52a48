#!/usr/bin/env bash
# Issue 41 item 9 and issue 42 item 2 for the embedded sync store's file: the decoder fuzzed with
# 100,000 generated inputs (`swift test` runs 1,000), and every bit of a small store file flipped
# in turn (`swift test` flips every 17th). Each prints its counts and seed (test diagnostics); any trap, hang (the tests' time
# limits) or broken invariant fails the run. Uses the debug build `.ci/run` made: 66 s of CPU for
# both (3 min 20 s of wall time on the 2-core machine shared with five other builds).
set -euo pipefail
if ! APPSTATEKIT_TEST_DIAGNOSTICS=1 APPSTATEKIT_FUZZ_INPUTS=100000 APPSTATEKIT_BITFLIP_STRIDE=1 swift test --skip-build --filter "LocalSyncFileFuzzTests|LocalSyncBitFlipTests" > .build/ci-sync-fuzz.log 2>&1; then
    cat .build/ci-sync-fuzz.log
    echo "error: the sync file fuzzing or bit-flip test failed" >&2
    exit 1
fi
grep -E "LocalSyncFile fuzzing: |LocalSyncStore bit flips: " .build/ci-sync-fuzz.log
