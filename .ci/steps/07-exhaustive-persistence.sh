#!/usr/bin/env bash
# Issue 42, items 2 and 3, at every position (the `swift test` run samples every seventh call and
# every 23rd byte): every I/O call of the store's writes, compactions, recovery and move-aside
# and of FileState's writes fails in turn (EIO, ENOSPC, EINTR, a short write, a crash that drops
# what was not flushed), and every bit of a small store's file, log, compacted file and a
# FileState file is flipped. Prints how many positions each tried; any lost acknowledged write,
# unreported failure or unkept damage fails the run. About 1 minute on the CI machine.
set -euo pipefail
if ! APPSTATEKIT_TEST_DIAGNOSTICS=1 APPSTATEKIT_EXHAUSTIVE=1 swift test --skip-build \
    --filter "ExhaustiveFailureTests|ExhaustiveBitFlipTests" > .build/ci-exhaustive.log 2>&1; then
    cat .build/ci-exhaustive.log
    echo "error: an exhaustive persistence test failed" >&2
    exit 1
fi
grep -E "^exhaustive " .build/ci-exhaustive.log
