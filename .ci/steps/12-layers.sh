#!/usr/bin/env bash
# The folders of Sources/AppStateKit are layers: each depends only on folders below it. Derives
# the folder graph from the names each file uses (.ci/tools/LayerGraph.swift) and fails on a
# cycle, listing the edges that close it.
set -euo pipefail
swift .ci/tools/LayerGraph.swift
