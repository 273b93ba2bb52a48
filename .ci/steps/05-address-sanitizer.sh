#!/usr/bin/env bash
# The test suite under AddressSanitizer: the read path hands out unretained references (thread
# memo slots, borrowed entries), and any use after free or out-of-bounds access fails the run.
# Leak detection is off: test helper processes exit with objects alive, as processes do.
set -euo pipefail
ASAN_OPTIONS="detect_leaks=0:halt_on_error=1" swift test --sanitize=address --scratch-path .build-asan
