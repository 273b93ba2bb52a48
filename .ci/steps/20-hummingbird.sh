#!/usr/bin/env bash
# Builds the Hummingbird server example and runs its tests (not the load test).
set -euo pipefail
# CI_EXAMPLE_BUILD_FLAGS: set by .ci/run (see there); empty when this step runs alone.
# shellcheck disable=SC2086
swift build --package-path Examples/HummingbirdServer --build-tests ${CI_EXAMPLE_BUILD_FLAGS:-}
swift test --package-path Examples/HummingbirdServer --skip-build
