import AppStateKitCore
import AppStateKitPersistence
extension Application {
    /// A handle to a value shared by every process (and machine) using the same sync store.
    ///
    /// ```swift
    /// struct Flags: Codable, Sendable { var newCheckout = false }
    ///
    /// extension Application {
    ///     var flags: SyncState<Flags> { syncState(initial: Flags(), feature: "App", id: "flags") }
    /// }
    ///
    /// var flags = Application.syncState(\.flags)
    /// flags.value.newCheckout = true          // this process sees it now; others shortly
    /// try await Application.syncState(\.flags).update { $0.newCheckout.toggle() }   // fleet-atomic
    /// ```
    ///
    /// Reads come from a local cache and never wait on the store. The cache follows the store
    /// through its change feed, so a value another process wrote arrives shortly after it was
    /// committed, with observers and ``Application/values(of:pollInterval:)`` streams notified.
    ///
    /// Setting ``value`` (or a slice, the wrapper, ``reset()``) changes the cache at once —
    /// this process reads its own write — and queues the write to the store in the key's lane
    /// of this application's write queue. When the key's previous such write has not started
    /// yet, the new write replaces it: only the newest value is committed, so the queue holds at
    /// most one value per key. While the store takes every write, writes commit in the order
    /// they were made (a replaced value is skipped); a write that fails with a transient error
    /// (``SyncStoreError/isTransient``) is kept and retried until the store takes it, and
    /// meanwhile later writes of other keys may commit before it. A write that fails for good
    /// is reported through the logger and the value returns to what the store holds.
    /// ``Application/flushSyncWrites(timeout:)`` waits until the queued writes are committed;
    /// ``write(_:)`` and ``update(maxAttempts:_:)`` wait for the store and throw instead.
    ///
    /// The store key is ``storeKey`` (`"<feature>/<id>"`, escaped when a part contains `/` or
    /// `%`). A stored value that can't be decoded reads as the initial value, is reported once,
    /// and stays in the store until the next write replaces it (which is reported too); the
    /// throwing calls throw ``SyncStoreError`` of kind `corruptRecord` or `typeMismatch`.
    public struct SyncState<Value: Codable & Sendable>: MutableApplicationState, Sendable, CustomStringConvertible {
        /// The registry entry.
        @usableFromInline let entry: SyncStateEntry<Value>
        /// Keeps the owning application (and its registry) alive as long as the handle. The
        /// application rather than the registry: the registry is weakly referenced (by its
        /// entries' owners), which sends every retain of it down the runtime's slow path.
        @usableFromInline let application: KeepAlive

        @inlinable
        init(entry: SyncStateEntry<Value>, application: Application) {
            self.entry = entry
            self.application = KeepAlive(application)
        }

        /// The cached value: the store's, or this process's newer write, or the initial value
        /// when the key is unset or unusable. Setting it updates the cache now and writes the
        /// store in the background; for an optional, `nil` removes the key.
        ///
        /// A mutation in place (`value += 1`, `value.items.append(item)`) reads, mutates and
        /// assigns as one step within this process: concurrent mutations from this process lose
        /// nothing. Across processes, use ``update(maxAttempts:_:)``. Reading the same SyncState
        /// from inside the mutation returns the value from before it; assigning it stops the
        /// process, naming the key.
        public var value: Value {
            @inlinable get {
                entry.value
            }
            set { entry.set(newValue) }
            _modify {
                let entry = entry
                var (current, unusable) = entry.beginModification()
                // Assigned in `defer` so that a mutation that throws keeps its changes, as for
                // any `inout` access.
                defer { entry.endModification(current, unusable: unusable) }
                yield &current
            }
        }

        /// Mutates the value with `body` as one step within this process (see ``value``) and
        /// returns what `body` returns. For a step that is atomic across processes, use
        /// ``update(maxAttempts:_:)``.
        @discardableResult
        public func modify<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
            try entry.modify(body)
        }

        /// Removes the key from the store (in the background, like setting ``value``), so
        /// every process reads the initial value. To wait for the removal, use
        /// ``resetDurably()``.
        public func reset() {
            entry.remove()
        }

        /// Removes the key from the store for good (``SyncStore/delete(forKey:)``), after this
        /// application's earlier writes of it, and returns once the store committed the removal.
        /// Every process then reads the initial value; the store may forget the key entirely
        /// after its retention (the embedded store: see `LocalSyncStore`).
        ///
        /// Like ``reset()``, and like every kind's reset, it deletes what is persisted and leaves
        /// the entry in place; ``Application/remove(state:)`` drops the in-memory entry and
        /// leaves the key in the store. Unlike ``reset()``, which queues the removal and returns
        /// at once, it waits and throws.
        ///
        /// ```swift
        /// try await Application.syncState(\.flags).resetDurably()
        /// ```
        ///
        /// Cancelling the calling task ends the wait with `CancellationError`; the removal stays
        /// queued (a later failure is reported through the application's logger).
        ///
        /// - Throws: ``SyncStoreError`` from the store (the value then returns to the store's), or
        ///   `CancellationError`.
        public func resetDurably() async throws {
            _ = try await entry.delete()
        }

        /// Writes `newValue` and returns once the store has committed it. The cache shows it
        /// at once; the write is queued behind this key's earlier writes, so it never lands
        /// before them (nor, while the store takes every write, before this application's
        /// earlier writes of other keys). It is not retried: a failure is thrown. Cancelling the
        /// calling task ends the wait with `CancellationError`; the write stays queued (a later
        /// failure is reported through the application's logger).
        ///
        /// - Throws: ``SyncStoreError`` (`unavailable`, `valueTooLarge`, `typeMismatch`, …);
        ///   the value then returns to what the store holds. `CancellationError` when the task
        ///   is cancelled first.
        public func write(_ newValue: Value) async throws {
            _ = try await entry.write(newValue)
        }

        /// Applies `body` to the store's current value and commits the result only if no other
        /// writer (in any process sharing the store) committed in between. On a conflict, a
        /// store that can hold writers off (``SyncStore/updateExclusively(forKey:_:)``;
        /// `PostgresSyncStore` does, with a row lock) runs `body` once more with the key locked,
        /// so the update commits however busy the key is; other stores retry with the newer
        /// value, after a short randomised back-off. Returns the
        /// committed value.
        ///
        /// ```swift
        /// let next = try await Application.syncState(\.counter).update { $0 += 1 }
        /// ```
        ///
        /// Waits for this application's queued writes first. `body` may run several times;
        /// keep it free of side effects.
        ///
        /// - Parameters:
        ///   - maxAttempts: How many commits may be lost to other writers before giving up.
        ///   - body: Mutates the store's current value; may run more than once.
        /// - Returns: The value that was committed.
        /// - Throws: ``SyncStoreError`` of kind `contention` after `maxAttempts` conflicts,
        ///   `corruptRecord`/`typeMismatch` when the stored value can't be decoded, any store
        ///   failure, and whatever `body` throws (nothing is then committed).
        @discardableResult
        public func update(maxAttempts: Int = 100, _ body: (inout Value) throws -> Void) async throws -> Value {
            try await entry.update(maxAttempts: maxAttempts, body)
        }

        /// Fetches the value from the store (after this application's queued writes) and
        /// updates the cache with it.
        ///
        /// - Throws: Store failures, and ``SyncStoreError`` of kind `corruptRecord` or
        ///   `typeMismatch` when the stored value can't be decoded.
        public func read() async throws -> Value {
            try await entry.read()
        }

        /// Fetches the value from the store and updates the cache; an unusable stored value is
        /// reported, as for ``value``.
        ///
        /// - Throws: When the store can't be reached.
        public func refresh() async throws {
            do {
                _ = try await entry.read()
            } catch let error as SyncStoreError where error.kind == .corruptRecord || error.kind == .typeMismatch {
                return
            }
        }

        /// The key the value is stored under.
        public var storeKey: String { entry.storeKey }

        /// The entry's identity as AppState exposes it.
        public var scope: Scope { entry.key.name.scope }

        /// `SyncState<Value>(feature/id) = value`.
        public var description: String {
            "SyncState<\(Value.self)>(\(entry.storeKey)) = \(value)"
        }
    }

    /// Declares a value shared through the `\.syncStore` store, named by `feature` and `id`.
    ///
    /// ```swift
    /// extension Application {
    ///     var maintenance: SyncState<Bool> { syncState(initial: false, feature: "Ops", id: "maintenance") }
    /// }
    /// ```
    ///
    /// `initial` is what reads return while the store has no value for the key; it is never
    /// written to the store.
    @inlinable
    public func syncState<Value: Codable & Sendable>(
        initial: @escaping @autoclosure () -> Value,
        feature: String = "App",
        id: String
    ) -> SyncState<Value> {
        syncState(key: EntryKey(kind: .syncState, valueType: Value.self, name: EntryName(feature: feature, id: id)), initial: initial)
    }

    @inlinable
    func syncState<Value: Codable & Sendable>(key: EntryKey, initial: () -> Value) -> SyncState<Value> {
        let entry = registry.entry(for: key, as: SyncStateEntry<Value>.self) { Application.makeSyncStateEntry(key: $0, registry: self.registry, initial: initial()) }
        return SyncState(entry: entry, application: self)
    }

    /// Declares an optional shared value: `nil` while the store has none; assigning `nil`
    /// removes it from the store.
    @inlinable
    public func syncState<Value: Codable & Sendable>(feature: String = "App", id: String) -> SyncState<Value?> {
        syncState(initial: nil, feature: feature, id: id)
    }

    @usableFromInline
    static func makeSyncStateEntry<Value: Codable & Sendable>(
        key: EntryKey, registry: Registry, initial: Value
    ) -> any RegistryEntry {
        let coordinator = SyncCoordinator.of(registry)
        guard case let .explicit(feature, id) = key.name else {
            preconditionFailure("AppStateKit: a SyncState is always named by feature and id")
        }
        let entry = SyncStateEntry(key: key, storeKey: SyncStoreKey.make(feature: feature, id: id), initial: initial, coordinator: coordinator)
        coordinator.attach(entry)
        return entry
    }

    /// Returns the handle of a sync state.
    @inlinable @inline(__always)
    public static func syncState<Value: Codable & Sendable>(_ keyPath: KeyPath<Application, SyncState<Value>>) -> SyncState<Value> {
        withCurrent { $0[keyPath: keyPath] }
    }

    /// Removes a sync state's value from the store, so every process reads its initial value.
    public static func reset<Value: Codable & Sendable>(syncState keyPath: KeyPath<Application, SyncState<Value>>) {
        current[keyPath: keyPath].reset()
    }
}

extension Application.SyncState: EntryBacked {
    package var registryEntry: any RegistryEntry { entry }
}
