#!/usr/bin/env bash
# Every test suite runs in an isolated application, except the tests of process globals (the
# logging flag, FileManager.defaultFileStatePath, the shared application), which are gathered in
# the one serialized suite `ProcessGlobalTests` (Tests/AppStateKitTests/ProcessGlobals/) and the
# suites nested in it (`extension ProcessGlobalTests { … }`). Fails on any other suite, or any
# file-scope @Test, that lacks `.isolatedApplication`.
set -euo pipefail
status=0
while IFS= read -r file; do
    awk -v file="$file" '
        /^extension ProcessGlobalTests \{/ { nested = 1 }
        nested && /^\}/ { nested = 0 }
        /^[[:space:]]*@Suite/ || /^@Test/ {
            attribute = $0
            # An attribute may continue on the next lines up to its closing parenthesis.
            while (attribute ~ /\(/ && gsub(/\(/, "(", attribute) > gsub(/\)/, ")", attribute) && (getline next_line) > 0) {
                attribute = attribute " " next_line
            }
            if (attribute ~ /\.isolatedApplication/ || nested) next
            if (attribute ~ /@Suite\("Process globals", \.serialized\)/) next
            printf "%s:%d: error: not isolated: %s\n", file, FNR, $0
            failed = 1
        }
        END { exit failed }
    ' "$file" || status=1
done < <(find Tests/AppStateKitTests -name '*.swift' | sort)
if [ "$status" -ne 0 ]; then
    echo "error: run the suite under .isolatedApplication, or, if it tests a process global, nest it in ProcessGlobalTests" >&2
    exit 1
fi
echo "suite isolation: every suite is isolated or nested in ProcessGlobalTests"
