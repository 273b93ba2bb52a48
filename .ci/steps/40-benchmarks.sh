#!/usr/bin/env bash
# Builds and runs the benchmarks in quick mode so they never rot (their numbers are not checked).
set -euo pipefail
swift run -c release --package-path Benchmarks appstatekit-benchmarks --quick
