#!/usr/bin/env bash
# The engine's modules (Documentation/ModuleSplit.md) are layers the compiler enforces; inside
# each module its folders are layers: each depends only on folders below it. Derives each
# module's folder graph from the names each file uses (.ci/tools/LayerGraph.swift) and fails on
# a cycle, listing the edges that close it. Then checks that the unsafe reference tools live only
# in the registry's own layer (Registry/, Support/).
set -euo pipefail
for module in AppStateKitCore AppStateKitPersistence AppStateKitSync AppStateKitSecrets AppStateKit; do
    echo "--- Sources/$module"
    swift .ci/tools/LayerGraph.swift --root "Sources/$module"
done
# The check itself: a same-named nested type must not hide an edge. The fixture's two folders
# form a cycle only through a name declared twice (`Registry.Storage` and top-level `Storage`);
# the graph must find it.
FIXTURE=.ci/tools/LayerGraphFixtures/same-named-nested-type
if OUTPUT="$(swift .ci/tools/LayerGraph.swift --root "$FIXTURE" 2>&1)"; then
    echo "error: LayerGraph.swift missed the cycle in $FIXTURE:" >&2
    echo "$OUTPUT" >&2
    exit 1
fi
if ! grep -q 'Low -> High  (Storage)' <<<"$OUTPUT"; then
    echo "error: LayerGraph.swift failed on $FIXTURE without naming the edge Low -> High (Storage):" >&2
    echo "$OUTPUT" >&2
    exit 1
fi
echo "LayerGraph.swift finds the cycle hidden by a same-named nested type ($FIXTURE)"
# Never anywhere: switching off the exclusivity check, reinterpreting a String's bits.
if grep -rnE '@exclusivity\(unchecked\)|unsafeBitCast\([^,]*(String|first|second)' Sources --include='*.swift'; then
    echo "error: @exclusivity(unchecked) or an unsafeBitCast of a String in Sources (listed above)" >&2
    exit 1
fi
UNSAFE='Unmanaged|unsafeDowncast|_withUnsafeGuaranteedRef|unowned\(unsafe\)'
if grep -rnE "$UNSAFE" Sources --include='*.swift' | grep -vE '^Sources/AppStateKitCore/(Registry|Support)/'; then
    echo "error: unsafe reference tools outside Sources/AppStateKitCore/Registry and Support (listed above)" >&2
    exit 1
fi
echo "unsafe reference tools: only in Registry/ and Support/"
# One lock type (issue 45): Core's `Lock` over pthread_mutex_t, and what builds on it (`LockedBox`,
# the registry's `LockedCell`, Persistence's `ModificationLock`). Synchronization's `Mutex` only
# where Documentation/Internals.md ("Basic tools") gives its reason: KeyCapture, which must not
# allocate. No NIO, Foundation or OS lock anywhere in Sources.
LOCKS='NIOLock|NIOLockedValueBox|NSLock|NSRecursiveLock|NSCondition|os_unfair_lock|OSAllocatedUnfairLock|pthread_mutex_t|pthread_rwlock|\bMutex\b'
if grep -rnE "$LOCKS" Sources --include='*.swift' \
    | grep -vE '^Sources/AppStateKitCore/Support/Synchronization\.swift:|^Sources/AppStateKitCore/Dependency/KeyCapture\.swift:'; then
    echo "error: a lock other than AppStateKitCore's Lock/LockedBox in Sources (listed above)" >&2
    exit 1
fi
echo "locks: Core's Lock and LockedBox (Synchronization's Mutex only in KeyCapture)"
