#!/usr/bin/env bash
# Runs the parallel isolation suite (60 parallel tests sharing keys) 20 times in a row.
set -euo pipefail
for run in $(seq 1 20); do
    if ! swift test --skip-build --filter ParallelIsolationTests > .build-ci-parallel.log 2>&1; then
        cat .build-ci-parallel.log
        echo "error: parallel isolation run $run of 20 failed" >&2
        exit 1
    fi
done
echo "parallel isolation: 20 of 20 runs passed"
