#!/usr/bin/env bash
# Runs the parallel isolation suite (60 parallel tests sharing keys) 20 times in a row. Each run
# must report the suite's 60 test cases passing: a filter that matches nothing (the suite renamed
# or moved) passes with 0 tests, and must fail here instead.
set -euo pipefail
EXPECTED='with 60 test cases passed'
for run in $(seq 1 20); do
    if ! swift test --skip-build --filter ParallelIsolationTests > .build-ci-parallel.log 2>&1; then
        cat .build-ci-parallel.log
        echo "error: parallel isolation run $run of 20 failed" >&2
        exit 1
    fi
    if ! grep -q "$EXPECTED" .build-ci-parallel.log; then
        cat .build-ci-parallel.log
        echo "error: parallel isolation run $run of 20 did not run the suite's 60 test cases (\"$EXPECTED\" missing): was ParallelIsolationTests renamed?" >&2
        exit 1
    fi
done
echo "parallel isolation: 20 of 20 runs passed, 60 test cases each"
