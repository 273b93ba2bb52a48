#!/usr/bin/env bash
# AppState 3.0 code, written the way apps write it (Tests/AppStateCompat: a @MainActor @Observable
# view model as a dependency read through every wrapper and slice, @MainActor XCTest and Swift
# Testing tests, awaited override cancels, withObservationTracking, StoredState/FileState/
# SyncState/SecureState), builds against this checkout with warnings as errors, and its tests
# pass. Only its import names AppStateKit.
set -euo pipefail
root="$(pwd)"
# A fixed place under .build, so a second run builds incrementally; the package sits next to a
# directory `AppStateKit` that is this checkout, as in a reader's checkout of both.
work="$root/.build/appstate-compat"
mkdir -p "$work/home" "$work/data"
ln -sfn "$root" "$work/AppStateKit"
rm -rf "$work/TaskBoard.new"
cp -R "$root/Tests/AppStateCompat" "$work/TaskBoard.new"
if [ -d "$work/TaskBoard" ]; then
    # Keep the package's own .build: copy the sources over it.
    rm -rf "$work/TaskBoard/Sources" "$work/TaskBoard/Tests" "$work/TaskBoard/Package.swift"
    cp -R "$work/TaskBoard.new/." "$work/TaskBoard/"
    rm -rf "$work/TaskBoard.new"
else
    mv "$work/TaskBoard.new" "$work/TaskBoard"
fi
swift build --package-path "$work/TaskBoard" --build-tests -Xswiftc -warnings-as-errors
# Persistent entries go to a scratch HOME and XDG_DATA_HOME, not the machine's.
rm -rf "$work/home" "$work/data" && mkdir -p "$work/home" "$work/data"
HOME="$work/home" XDG_DATA_HOME="$work/data" swift test --package-path "$work/TaskBoard" --skip-build
echo "AppState-style package: builds with -warnings-as-errors and its tests pass"
