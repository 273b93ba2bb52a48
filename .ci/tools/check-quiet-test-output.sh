#!/usr/bin/env bash
# Fails when a green `swift test` printed anything besides the test runner's lines that looks
# like an error or like AppStateKit's own output (issue 34, item 4). Tests send what they would
# print through `diagnostic(_:)` or `.reportsAsDiagnostics` (Tests/AppStateKitTests/TestSupport/
# TestDiagnostics.swift), shown with APPSTATEKIT_TEST_DIAGNOSTICS=1.
#   usage: check-quiet-test-output.sh LOG
set -euo pipefail
log="$1"
# The runner's lines: SwiftPM's build lines, XCTest's, and Swift Testing's (they start with a
# symbol); "- …" lines continue a known issue's message.
runner='^(◇|✔|✘|↳|➜|━|􀟈|􁁛|􀄵|􀢄|􀙟|Test Suite |Test Case |[[:space:]]+Executed |Building for|Build complete|\[[0-9]+/[0-9]+\]|- |$)'
noise=$(grep -avE "$runner" "$log" | grep -aiE 'error|warning|AppStateKit:|kill test' || true)
if [ -n "$noise" ]; then
    printf '%s\n' "$noise" | head -40
    echo "error: the green test run printed the lines above besides the test runner's; route them through diagnostic(_:) or .reportsAsDiagnostics" >&2
    exit 1
fi
echo "quiet test output: $(wc -l < "$log") lines, none besides the test runner's looks like an error"
