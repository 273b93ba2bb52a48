#!/usr/bin/env bash
# The folders of Sources/AppStateKit are layers: each depends only on folders below it. Derives
# the folder graph from the names each file uses (.ci/tools/LayerGraph.swift) and fails on a
# cycle, listing the edges that close it. Then checks that the unsafe reference tools live only
# in the registry's own layer (Registry/, Support/).
set -euo pipefail
swift .ci/tools/LayerGraph.swift
UNSAFE='Unmanaged|unsafeDowncast|_withUnsafeGuaranteedRef|unowned\(unsafe\)|@exclusivity\(unchecked\)'
if grep -rnE "$UNSAFE" Sources --include='*.swift' | grep -vE '^Sources/AppStateKit/(Registry|Support)/'; then
    echo "error: unsafe reference tools outside Sources/AppStateKit/Registry and Support (listed above)" >&2
    exit 1
fi
echo "unsafe reference tools: only in Registry/ and Support/"
