#!/usr/bin/env bash
# Proves that the core library resolves no packages for a client that enables no trait, and that
# each trait brings in only what its product needs.
# Scratch client packages in a temporary folder depend on this repository by path:
#   1. AppStateKit, no trait: `swift package resolve` must fetch nothing (no .build/checkouts/*,
#      no Package.resolved pins). Any fetched package fails the step.
#   2. AppStateKitPostgres with traits: ["PostgreSQL"]: must resolve postgres-nio and
#      swift-service-lifecycle, and not swift-configuration. (The PostgreSQL step builds the
#      product with the trait; set APPSTATEKIT_TRAIT_BUILD=1 to also build this client, which
#      takes minutes.)
#   3. AppStateKitConfiguration with traits: ["Configuration"]: must resolve swift-configuration
#      with none of its own traits enabled (`swift package show-dependencies` lists its traits as
#      []: not even its default, JSON), so Yams (its YAML trait) and swift-metrics (its Reloading
#      trait) are not fetched; and not postgres-nio.
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
if [ -d "$WORK/trait/.build/checkouts/swift-configuration" ]; then
    echo "error: the PostgreSQL trait alone resolved swift-configuration" >&2
    exit 1
fi
echo "checkouts: $(ls "$WORK/trait/.build/checkouts" | tr '\n' ' ')"
if [ "${APPSTATEKIT_TRAIT_BUILD:-0}" = "1" ]; then
    (cd "$WORK/trait" && swift build && ./.build/debug/Client)
fi

echo "--- client with the trait: .package(path: \"$REPO\", traits: [\"Configuration\"])"
make_client "$WORK/configuration" ".package(path: \"$REPO\", traits: [\"Configuration\"])" AppStateKitConfiguration 'import AppStateKitConfiguration
print(SyncStoreConfigProvider.self)'
(cd "$WORK/configuration" && swift package resolve > /dev/null)
CONFIG_CHECKOUTS="$(ls "$WORK/configuration/.build/checkouts" | tr '\n' ' ')"
echo "checkouts: $CONFIG_CHECKOUTS"
if [ ! -d "$WORK/configuration/.build/checkouts/swift-configuration" ]; then
    echo "error: with the Configuration trait, swift-configuration was not resolved" >&2
    exit 1
fi
for unwanted in postgres-nio Yams yams swift-metrics; do
    if [ -d "$WORK/configuration/.build/checkouts/$unwanted" ]; then
        echo "error: with the Configuration trait, $unwanted was resolved" >&2
        exit 1
    fi
done
# The traits SwiftPM enables for swift-configuration: the line after its identity's "traits": [
# must close the list.
(cd "$WORK/configuration" && swift package show-dependencies --format json) > "$WORK/dependencies.json"
CONFIG_TRAITS="$(awk '
    /"identity": "swift-configuration"/ { found = 1 }
    found && /"traits": \[ *\]/ { print "[]"; exit }
    found && /"traits": \[/ { collecting = 1; next }
    collecting && /\]/ { print "[" list "]"; exit }
    collecting { gsub(/[ ,"]/, ""); if ($0 != "") list = list (list == "" ? "" : ",") $0 }
' "$WORK/dependencies.json")"
echo "swift-configuration traits enabled: $CONFIG_TRAITS"
if [ "$CONFIG_TRAITS" != "[]" ]; then
    echo "error: swift-configuration was resolved with traits $CONFIG_TRAITS; the manifest turns them all off" >&2
    exit 1
fi
if [ "${APPSTATEKIT_TRAIT_BUILD:-0}" = "1" ]; then
    (cd "$WORK/configuration" && swift build && ./.build/debug/Client)
fi
echo "trait resolution: no packages without a trait; postgres-nio with PostgreSQL; swift-configuration (no traits of its own) with Configuration"
