#!/usr/bin/env bash
# Which of AppStateKit's source files one operation of appstatekit-profile executes code from:
# the files a reader follows along the operation's path. Measured on a debug build, where every
# function keeps its own file (an optimised build inlines across files and attributes much of
# the inlined code to line 0). A file counts when its lines execute at least once per
# operation: runs of N and 2N operations under callgrind, and the difference per extra
# operation, as code-footprint.sh does. Documentation/Internals.md's "files in folders"
# figures come from this script.
#
# Usage: Benchmarks/Scripts/hot-path-files.sh [operation ...]   (default: state-read dependency stored-read file-read)
set -euo pipefail
cd "$(dirname "$0")/.."
PROFILE_CONFIGURATION=debug
source Scripts/callgrind.sh
OPERATIONS=("$@")
[ ${#OPERATIONS[@]} -gt 0 ] || OPERATIONS=(state-read dependency stored-read file-read)
N=2000
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
for operation in "${OPERATIONS[@]}"; do
    record_runs "$operation" "$N" "$WORK" --compress-strings=no --compress-pos=no
    python3 - "$operation" "$WORK/$operation-$N" "$WORK/$operation-$((2 * N))" "$N" <<'PY'
import collections, re, sys

def per_file(path):
    """Source file -> instructions executed on its lines (inlined code under its own file)."""
    counts = collections.Counter()
    function_file = current = None
    skip_call_cost = False
    for line in open(path):
        if line.startswith("fl="):
            function_file = current = line[3:].strip()
        elif line.startswith(("fi=", "fe=")):
            current = line[3:].strip()
        elif line.startswith("fn="):
            current = function_file
        elif line.startswith("calls="):
            skip_call_cost = True  # the next line is the call's inclusive cost, not this file's
        elif line[:1].isdigit():
            if skip_call_cost:
                skip_call_cost = False
                continue
            parts = line.split()
            if len(parts) > 1:
                counts[current] += int(parts[1])
    return counts

operation, once, twice, n = sys.argv[1], per_file(sys.argv[2]), per_file(sys.argv[3]), int(sys.argv[4])
# The engine's modules (AppStateKit, AppStateKitCore, …): paths from the folder on, as before the split.
marker = re.compile(r"/Sources/AppStateKit[A-Za-z]*/")
files = sorted(
    marker.split(path, 1)[1]
    for path, count in twice.items()
    if marker.search(path) and count - once.get(path, 0) >= n
)
folders = sorted({path.split("/", 1)[0] for path in files})
print(f"{operation}: {len(files)} files in {len(folders)} folders ({', '.join(folders)})")
for path in files:
    print(f"    {path}")
PY
done
