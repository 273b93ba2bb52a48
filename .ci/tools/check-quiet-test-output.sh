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
# A green run reads green (issue 43, item 7): no line at all matches `error:`, the runner's own
# included (a known issue recorded by throwing prints "Caught error: …"; record its text with
# Issue.record instead).
alarming=$(grep -an 'error:' "$log" || true)
if [ -n "$alarming" ]; then
    printf '%s\n' "$alarming" | head -20
    echo "error: the green test run printed the lines above, which read as errors" >&2
    exit 1
fi
# No cut lines: a control character in a printed test argument (a NUL in a parameterized test's
# string) ends the runner's line where it stands, and the next line runs into it. Fails on any
# control character but tab, on a runner line that holds a second runner line, and on a test case's line that doesn't end as one does. Give such
# arguments a printable description (PrintableArgument in Tests/AppStateKitTests/TestSupport).
cut=$(LC_ALL=C grep -anP '[\x00-\x08\x0b-\x1f\x7f]' "$log" | grep -av $'\x1b\\[[0-9;]*m' || true)
cut="$cut$(grep -anE '^(◇|✔|✘|↳|➜|━) .*(◇|✔|✘|➜|━) (Test|Suite) ' "$log" || true)"
# A newline in an argument splits the "◇ Test case passing … started." line in two.
cut="$cut$(grep -anE '^◇ Test case passing ' "$log" | grep -avE ' started\.$' || true)"
if [ -n "$cut" ]; then
    printf '%s\n' "$cut" | head -20 | cat -v
    echo "error: the test run printed the cut lines above; give the test's arguments a short, printable description" >&2
    exit 1
fi
echo "quiet test output: $(wc -l < "$log") lines, none besides the test runner's looks like an error, none matches 'error:', none is cut"
