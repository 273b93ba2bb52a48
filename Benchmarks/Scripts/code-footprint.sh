#!/usr/bin/env bash
# How many distinct 64-byte lines of code one operation of appstatekit-profile executes: in a
# server, whose own work between two requests evicts the processor's instruction cache, each of
# them is fetched again on every request, so this (not the instruction count) is what a request
# pays for AppStateKit's code there. Counted with callgrind's per-instruction counts: runs of N
# and 2N operations, and every line with an instruction executed at least once per extra
# operation. `plain-request` is the example server's same work in plain Swift, for comparison.
#
# Usage: Benchmarks/Scripts/code-footprint.sh [operation ...]   (default: server-request plain-request)
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/callgrind.sh
OPERATIONS=("$@")
[ ${#OPERATIONS[@]} -gt 0 ] || OPERATIONS=(server-request plain-request)
N=1000
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
for operation in "${OPERATIONS[@]}"; do
    record_runs "$operation" "$N" "$WORK" --dump-instr=yes --compress-pos=no
    lines=$(python3 - "$WORK/$operation-$N" "$WORK/$operation-$((2 * N))" "$N" <<'PY'
import collections, sys

def executions(path):
    """Instruction address -> times executed (a call instruction: times it called)."""
    counts = collections.Counter()
    fields, calls = None, None
    for line in open(path):
        if line.startswith("positions:"):
            fields = len(line.split()) - 1
        elif line.startswith("calls="):
            calls = int(line[6:].split()[0])
        elif fields and line.startswith("0x"):
            parts = line.split()
            executed = calls if calls is not None else int(parts[fields]) if len(parts) > fields else 0
            counts[int(parts[0], 16)] += executed
            calls = None
    return counts

once, twice, n = executions(sys.argv[1]), executions(sys.argv[2]), int(sys.argv[3])
print(len({address >> 6 for address, count in twice.items() if count - once.get(address, 0) >= n}))
PY
)
    printf '%-18s %6d lines of code per operation\n' "$operation" "$lines"
done
