#!/usr/bin/env bash
# The test suite under AddressSanitizer, the PostgreSQL and Configuration tests included
# (.ci/tools/sanitized-tests.sh): the read path borrows entries and boxes from the registry
# table's storage and the shared application unretained, the PostgreSQL store parses rows and
# notifications from a hostile server, and any use after free or out-of-bounds access fails the run.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash .ci/tools/sanitized-tests.sh address
