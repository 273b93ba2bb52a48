#!/usr/bin/env bash
# Builds the Hummingbird server example, runs its tests, and runs the built server with each
# executor setting (Scripts/smoke.sh; not the load test).
set -euo pipefail
# CI_WITHOUT_DEBUG_INFO: set by .ci/run (see there).
# shellcheck disable=SC2086
swift build --package-path Examples/HummingbirdServer --build-tests ${CI_WITHOUT_DEBUG_INFO:-}
swift test --package-path Examples/HummingbirdServer --skip-build
# The same flags as the build above, so the server isn't built again.
SWIFT_BUILD_FLAGS="${CI_WITHOUT_DEBUG_INFO:-}" bash Examples/HummingbirdServer/Scripts/smoke.sh
