#!/usr/bin/env bash
# A user's package that depends on this checkout by path and declares targets with the names
# the root manifest used to take (`todo`, `TodoCore`, `AppStateKitPersistenceChild`) must build
# and test: target names are global in a package graph, so the root package may declare only
# names no user picks.
set -euo pipefail
root="$(pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# The dependency is reached as `AppStateKit`, the name a clone of the repository has.
ln -s "$root" "$scratch/AppStateKit"
mkdir -p "$scratch/User/Sources/todo" "$scratch/User/Sources/TodoCore" \
    "$scratch/User/Sources/AppStateKitPersistenceChild" "$scratch/User/Tests/todoTests"
cat > "$scratch/User/Package.swift" <<'MANIFEST'
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "User",
    platforms: [.macOS(.v15)],
    dependencies: [.package(path: "../AppStateKit")],
    targets: [
        .target(name: "TodoCore", dependencies: [.product(name: "AppStateKit", package: "AppStateKit")]),
        .executableTarget(name: "todo", dependencies: ["TodoCore"]),
        .executableTarget(name: "AppStateKitPersistenceChild"),
        .testTarget(name: "todoTests", dependencies: [
            "TodoCore",
            .product(name: "AppStateKitTesting", package: "AppStateKit"),
        ]),
    ]
)
MANIFEST
cat > "$scratch/User/Sources/TodoCore/Items.swift" <<'SWIFT'
import AppStateKit

extension Application {
    public var items: State<[String]> { state(initial: []) }
}
SWIFT
cat > "$scratch/User/Sources/todo/main.swift" <<'SWIFT'
import AppStateKit
import TodoCore

Application.update(\.items) { $0.append("Buy milk") }
print(Application.state(\.items).value)
SWIFT
echo 'print("mine")' > "$scratch/User/Sources/AppStateKitPersistenceChild/main.swift"
cat > "$scratch/User/Tests/todoTests/ItemsTests.swift" <<'SWIFT'
import AppStateKit
import AppStateKitTesting
import Testing
import TodoCore

@Test(.isolatedApplication) func startsEmpty() {
    #expect(Application.state(\.items).value.isEmpty)
}
SWIFT
swift build --package-path "$scratch/User" --build-tests
swift test --package-path "$scratch/User" --skip-build
[ "$(swift run --package-path "$scratch/User" --skip-build todo)" = '["Buy milk"]' ]
echo "user package with its own todo, TodoCore and AppStateKitPersistenceChild targets: builds and runs"
