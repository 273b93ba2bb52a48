#!/usr/bin/env bash
# Instructions per operation of appstatekit-profile, counted by valgrind's callgrind (see
# callgrind.sh for how). Deterministic, so it compares two versions of the code exactly,
# whatever else the machine is doing. To check against the checked-in figures, use
# check-instructions.sh.
#
# Usage: Benchmarks/Scripts/instructions.sh [operation ...]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/callgrind.sh
OPERATIONS=("$@")
[ ${#OPERATIONS[@]} -gt 0 ] || mapfile -t OPERATIONS < <("$PROFILE" --list)
for operation in "${OPERATIONS[@]}"; do
    printf '%-18s %8d instructions/op\n' "$operation" "$(instructions_per_op "$operation")"
done
