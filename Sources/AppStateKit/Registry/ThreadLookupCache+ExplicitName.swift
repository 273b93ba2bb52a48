import Synchronization

/// Lookups by an explicit name's parts (`feature`, `id`) instead of an ``EntryKey``: the read
/// path of ``Application/StoredState`` and ``Application/FileState`` handles and of named
/// dependencies, which build their name on every access. Comparing the parts in place spares
/// the hit the key's copy of the two strings (a retain and a release each, and an outlined
/// destroy of the key).
extension ThreadLookupCache {
    /// ``slot(for:registryStamp:)`` for the explicitly named key of `kind`, `valueType`,
    /// `feature` and `id` whose ``EntryKey/fastHash`` is `hash`, compared in place: the caller
    /// builds no key unless the memo misses.
    @inlinable @inline(__always)
    func slot(
        kind: ObjectIdentifier, valueType: ObjectIdentifier, feature: borrowing String, id: borrowing String, hash: Int,
        registryStamp stamp: UInt64
    ) -> Unmanaged<Slot>? {
        guard registryStamp == stamp, !isCapturingKeys else { return nil }
        let found = slots.find(fastHash: hash) { slot in
            slot.unmanagedEntry._withUnsafeGuaranteedRef { $0.key.matches(kind: kind, valueType: valueType, feature: feature, id: id) }
        }
        #if DEBUG
        // The parts hash as the key does: otherwise a key built on a miss would be filed under
        // another bucket than the one this probe searches.
        found?._withUnsafeGuaranteedRef { $0.checkHash(hash) }
        #endif
        return found
    }

    /// `registry.retainedSlot(for:create:)` for a key named by `feature` and `id`, given as its
    /// parts: a hit (the common case, a declaration read again on this thread) builds no
    /// ``EntryKey``; a miss builds it and looks it up as usual.
    @usableFromInline @inline(never)
    static func retainedSlot(
        in registry: Registry, kind: EntryKind, valueType: Any.Type, feature: String, id: String,
        create: (EntryKey) -> RegistryEntry
    ) -> Slot {
        let kindIdentifier = kind.identifier
        let typeIdentifier = ObjectIdentifier(valueType)
        let hash = EntryKey.fastHash(kind: kindIdentifier, valueType: typeIdentifier, feature: feature, id: id)
        if let slot = remembered(in: registry, kind: kindIdentifier, valueType: typeIdentifier, feature: feature, id: id, hash: hash) {
            return slot.takeUnretainedValue()
        }
        let key = EntryKey(kind: kindIdentifier, valueType: typeIdentifier, feature: feature, id: id, fastHash: hash)
        return registry.slotOnMiss(for: key, create: create).takeUnretainedValue()
    }

    /// The calling thread's memo slot for the key named by `feature` and `id` whose
    /// ``EntryKey/fastHash`` is `hash`, if this thread looked it up before; `nil` otherwise
    /// (creates nothing). For lookups that must decide something between hashing the name and
    /// creating the entry: a named dependency asks the override census in between.
    @usableFromInline @inline(never)
    static func rememberedSlot(
        in registry: Registry, kind: ObjectIdentifier, valueType: ObjectIdentifier, feature: String, id: String, hash: Int
    ) -> Slot? {
        remembered(in: registry, kind: kind, valueType: valueType, feature: feature, id: id, hash: hash)?.takeUnretainedValue()
    }

    /// The probe ``retainedSlot(in:kind:valueType:feature:id:create:)`` and
    /// ``rememberedSlot(in:kind:valueType:feature:id:hash:)`` share.
    @inline(__always)
    private static func remembered(
        in registry: Registry, kind: ObjectIdentifier, valueType: ObjectIdentifier, feature: String, id: String, hash: Int
    ) -> Unmanaged<Slot>? {
        guard let cache = existing(key: registry.threadKey) else { return nil }
        return cache._withUnsafeGuaranteedRef {
            $0.slot(
                kind: kind, valueType: valueType, feature: feature, id: id, hash: hash,
                registryStamp: registry.stamp.load(ordering: .relaxed)
            )
        }
    }
}

#if DEBUG
extension ThreadLookupCache.Slot {
    /// Stops if the entry's key doesn't hash to `hash`, the hash a lookup by the key's parts
    /// computed (``ThreadLookupCache/slot(kind:valueType:feature:id:hash:registryStamp:)``).
    @usableFromInline
    func checkHash(_ hash: Int) {
        let key = retainedEntry.key
        precondition(key.fastHash == hash, "AppStateKit: internal error: the parts of \(key.readable) hash to \(hash), its key to \(key.fastHash)")
    }
}
#endif
