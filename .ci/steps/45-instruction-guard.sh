#!/usr/bin/env bash
# Speed guarded: fails when an operation of appstatekit-profile costs more than 10% more
# instructions than Benchmarks/Baselines/instructions.txt says (see Documentation/Performance.md,
# "Guarding against regressions"). Installs valgrind first when the machine lacks it.
set -euo pipefail
if ! command -v valgrind > /dev/null; then
    echo "valgrind missing: installing it with apt-get"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends valgrind > /dev/null
fi
bash Benchmarks/Scripts/check-instructions.sh
