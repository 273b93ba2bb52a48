#!/usr/bin/env bash
# Instructions per operation, from valgrind's instruction counts of two runs (N and 2N
# operations): the difference divided by N leaves out start-up. Deterministic, so it compares
# two versions of the code exactly, whatever else the machine is doing.
#
# Usage: Benchmarks/Scripts/instructions.sh [operation ...]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind > /dev/null || (apt-get update -qq && apt-get install -y -qq valgrind) > /dev/null
swift build -c release --product appstatekit-profile > /dev/null
BINARY="$(swift build -c release --show-bin-path)/appstatekit-profile"
OPERATIONS=("$@")
[ ${#OPERATIONS[@]} -gt 0 ] || mapfile -t OPERATIONS < <("$BINARY" --list)
N=100000
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BINARY" "$1" "$2" 2>&1 | awk '/Collected/ {gsub(",", "", $4); print $4}'; }
for operation in "${OPERATIONS[@]}"; do
    once=$(count "$operation" "$N")
    twice=$(count "$operation" $((2 * N)))
    printf '%-16s %6d instructions/op\n' "$operation" $(((twice - once) / N))
done
