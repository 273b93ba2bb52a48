#!/usr/bin/env bash
# Builds the library's symbol graph and converts it with the toolchain's docc; any warning fails.
set -euo pipefail
GRAPHS=".build-docc/symbol-graphs"
OUTPUT=".build-docc/AppStateKit.doccarchive"
rm -rf .build-docc && mkdir -p "$GRAPHS"
swift build --target AppStateKit --scratch-path .build-docc/build \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$GRAPHS" > /dev/null
# Keep only AppStateKit's own graphs (extensions of Foundation types included). Its graph
# carries every symbol of the engine modules it re-exports, as users see them through
# `import AppStateKit`; the engine modules' own graphs would add the same symbols again under
# other module names, and links would resolve to either.
find "$GRAPHS" -name '*.symbols.json' ! -name 'AppStateKit.symbols.json' ! -name 'AppStateKit@*.symbols.json' -delete
docc convert Sources/AppStateKit/AppStateKit.docc \
    --additional-symbol-graph-dir "$GRAPHS" \
    --fallback-display-name AppStateKit --fallback-bundle-identifier dev.appstatekit.AppStateKit \
    --output-path "$OUTPUT" 2>&1 | tee .build-docc/docc.log
if grep -E "warning:|error:" .build-docc/docc.log > /dev/null; then
    echo "error: docc reported warnings (above)" >&2
    exit 1
fi
echo "docc: no warnings"
