#!/usr/bin/env bash
# Every Package.swift snippet of the guides (a ```swift block whose first line is
# `// swift-tools-version…`) resolves and builds, as written, in a scratch package next to a
# directory `AppStateKit` that is this checkout (what `.package(path: "../AppStateKit")` names),
# with a stub source file per target; its test targets' stubs run.
set -euo pipefail
root="$(pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
ln -s "$root" "$scratch/AppStateKit"
swift .ci/tools/DocSnippets.swift manifests "$scratch/manifests"
count=0
for package in "$scratch"/manifests/*/; do
    [ -e "$package/Package.swift" ] || continue
    count=$((count + 1))
    origin="$(cat "$package/origin")"
    echo "--- $origin"
    # Resolve and build next to the clone, as a reader would: ../AppStateKit.
    target="$scratch/$(basename "$package")"
    mv "$package" "$target"
    if ! swift build --package-path "$target" --build-tests || ! swift test --package-path "$target" --skip-build; then
        echo "$origin: error: this Package.swift snippet does not build (above)" >&2
        exit 1
    fi
done
if [ "$count" -eq 0 ]; then
    echo "error: no Package.swift snippet found (a \`\`\`swift block starting with // swift-tools-version)" >&2
    exit 1
fi
echo "doc manifests: $count Package.swift snippets resolve, build and run"
