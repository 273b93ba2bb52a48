#!/usr/bin/env bash
# Proves that the core library resolves no packages for a client that doesn't enable the
# PostgreSQL trait, and that enabling it brings postgres-nio in for AppStateKitPostgres.
# Scratch client packages in a temporary folder depend on this repository by path:
#   1. AppStateKit, no trait: `swift package resolve` must fetch nothing (no .build/checkouts/*,
#      no Package.resolved pins). Any fetched package fails the step.
#   2. AppStateKitPostgres with traits: ["PostgreSQL"]: must resolve postgres-nio and
#      swift-service-lifecycle. (The PostgreSQL step builds the product with the trait; set
#      APPSTATEKIT_TRAIT_BUILD=1 to also build this client, which takes minutes.)
set -euo pipefail
REPO="$(cd "$(dirname "$0")/../.." && pwd)"
IDENTITY="$(basename "$REPO" | tr '[:upper:]' '[:lower:]')"
WORK="$(mktemp -d /tmp/appstatekit-trait-check.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

make_client() { # folder, dependency line, product, source
    mkdir -p "$1/Sources/Client"
    cat > "$1/Package.swift" <<MANIFEST
// swift-tools-version:6.1
import PackageDescription
let package = Package(
    name: "Client",
    dependencies: [$2],
    targets: [.executableTarget(name: "Client", dependencies: [.product(name: "$3", package: "$IDENTITY")])]
)
MANIFEST
    printf '%s\n' "$4" > "$1/Sources/Client/main.swift"
}

echo "--- client without the trait: .package(path: \"$REPO\")"
make_client "$WORK/plain" ".package(path: \"$REPO\")" AppStateKit 'import AppStateKit
print(Application.self)'
(cd "$WORK/plain" && swift package resolve)
CHECKOUTS="$(ls -A "$WORK/plain/.build/checkouts" 2>/dev/null || true)"
PINS="$( [ -f "$WORK/plain/Package.resolved" ] && grep -c '"identity"' "$WORK/plain/Package.resolved" || echo 0)"
echo "checkouts: [${CHECKOUTS}]  Package.resolved pins: $PINS"
if [ -n "$CHECKOUTS" ] || [ "$PINS" != "0" ]; then
    echo "error: depending on AppStateKit without the PostgreSQL trait resolved packages:" >&2
    echo "$CHECKOUTS" >&2
    exit 1
fi

echo "--- client with the trait: .package(path: \"$REPO\", traits: [\"PostgreSQL\"])"
make_client "$WORK/trait" ".package(path: \"$REPO\", traits: [\"PostgreSQL\"])" AppStateKitPostgres 'import AppStateKitPostgres
print(PostgresSyncStore.self)'
(cd "$WORK/trait" && swift package resolve > /dev/null)
for needed in postgres-nio swift-service-lifecycle; do
    if [ ! -d "$WORK/trait/.build/checkouts/$needed" ]; then
        echo "error: with the PostgreSQL trait, $needed was not resolved" >&2
        exit 1
    fi
done
echo "checkouts: $(ls "$WORK/trait/.build/checkouts" | tr '\n' ' ')"
if [ "${APPSTATEKIT_TRAIT_BUILD:-0}" = "1" ]; then
    (cd "$WORK/trait" && swift build && ./.build/debug/Client)
fi
echo "trait resolution: no packages without the trait; postgres-nio with it"
