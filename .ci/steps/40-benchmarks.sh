#!/usr/bin/env bash
# Builds and runs the benchmarks in quick mode so they never rot (their numbers are not checked),
# and runs every operation of the instruction-count program once, natively (valgrind is only
# needed when you want the counts: Benchmarks/Scripts/instructions.sh).
set -euo pipefail
swift run -c release --package-path Benchmarks appstatekit-benchmarks --quick
swift build -c release --package-path Benchmarks --product appstatekit-profile
PROFILE="$(swift build -c release --package-path Benchmarks --show-bin-path)/appstatekit-profile"
for operation in $("$PROFILE" --list); do
    "$PROFILE" "$operation" 1000
done
echo "appstatekit-profile: every operation ran"
