#!/usr/bin/env bash
# The test suite under AddressSanitizer: the read path borrows entries and boxes from the registry
# table's storage and the shared application unretained, and any use after free or
# out-of-bounds access fails the run.
# Leak detection is off: test helper processes exit with objects alive, as processes do.
set -euo pipefail
ASAN_OPTIONS="detect_leaks=0:halt_on_error=1" swift test --sanitize=address --scratch-path .build-asan
