#!/usr/bin/env bash
# Every ```swift block of README.md, Documentation/*.md and the DocC catalog is compiled by a test:
# it appears, verbatim, in a Swift file under Tests/AppStateKitTests/ (see .ci/tools/DocSnippets.swift
# for the matching rules). Package.swift snippets are built by 26-doc-manifests.sh instead.
set -euo pipefail
swift .ci/tools/DocSnippets.swift check
