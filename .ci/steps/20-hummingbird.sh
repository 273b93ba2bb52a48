#!/usr/bin/env bash
# Builds the Hummingbird server example and runs its tests (not the load test).
set -euo pipefail
# CI_WITHOUT_DEBUG_INFO: set by .ci/run (see there).
# shellcheck disable=SC2086
swift build --package-path Examples/HummingbirdServer --build-tests ${CI_WITHOUT_DEBUG_INFO:-}
swift test --package-path Examples/HummingbirdServer --skip-build
