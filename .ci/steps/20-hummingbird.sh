#!/usr/bin/env bash
# Builds the Hummingbird server example and runs its tests (not the load test).
set -euo pipefail
swift build --package-path Examples/HummingbirdServer --build-tests
swift test --package-path Examples/HummingbirdServer --skip-build
