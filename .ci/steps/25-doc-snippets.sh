#!/usr/bin/env bash
# Every ```swift block of README.md, Documentation/*.md and the DocC catalog is compiled by a test:
# it appears, verbatim, in a Swift file under Tests/AppStateKitTests/ (see .ci/tools/DocSnippets.swift
# for the matching rules; files that `@testable import` do not count) and uses only what the public
# products offer (no stand-in in README.md, none named like a shipped symbol, no base64 `.json`).
# Package.swift snippets are built by 26-doc-manifests.sh instead.
set -euo pipefail
swift .ci/tools/DocSnippets.swift check
