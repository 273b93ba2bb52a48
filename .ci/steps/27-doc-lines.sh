#!/usr/bin/env bash
# Documentation/Internals.md draws the read paths with file and line; each reference carries the
# pattern of the line it names, and this fails when a change moved or removed that line (fix the
# numbers with: swift .ci/tools/DocLineReferences.swift --fix).
set -euo pipefail
swift .ci/tools/DocLineReferences.swift
