#!/usr/bin/env bash
# Builds the todo example (its own package, depending on this checkout by path) and runs its tests,
# then the README's first command in a temporary home.
set -euo pipefail
swift build --package-path Examples/Todo --build-tests 2>&1 | tee .build-ci-todo.log
if grep -E "warning:" .build-ci-todo.log | grep -v "^warning: 'main'"; then
    echo "error: the todo example built with warnings (listed above)" >&2
    exit 1
fi
swift test --package-path Examples/Todo --skip-build
home="$(mktemp -d)"
trap 'rm -rf "$home"' EXIT
env -u XDG_DATA_HOME -u XDG_CONFIG_HOME HOME="$home" swift run --package-path Examples/Todo todo add "Buy milk"
listed="$(env -u XDG_DATA_HOME -u XDG_CONFIG_HOME HOME="$home" swift run --package-path Examples/Todo todo list)"
echo "$listed"
[[ "$listed" == *"Buy milk"* ]] || { echo "error: 'todo list' did not show the added item" >&2; exit 1; }
echo "todo example: built, tested, README command ran"
