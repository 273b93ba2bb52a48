extension Application {
    /// A handle to a service or client created once, on first use, and shared by the process.
    ///
    /// ```swift
    /// extension Application {
    ///     var api: Dependency<any APIClient> { dependency(LiveAPIClient()) }
    /// }
    ///
    /// let api = Application.dependency(\.api)
    /// ```
    public struct Dependency<Value: Sendable>: Sendable, CustomStringConvertible {
        /// The calling thread's memo slot for the registry entry (it keeps the entry's registry
        /// alive); `nil` when a scope provides the value.
        @usableFromInline let slot: ThreadLookupCache.Slot?

        /// The dependency instance: the newest override if any, otherwise the created instance.
        public let value: Value

        @inlinable
        init(slot: ThreadLookupCache.Slot?, value: Value) {
            self.slot = slot
            self.value = value
        }

        /// The registry entry; `nil` when a scope provides the value.
        @usableFromInline
        var entry: DependencyEntry<Value>? {
            slot?.entry(as: DependencyEntry<Value>.self)
        }

        /// The entry's identity as AppState exposes it.
        public var scope: Scope {
            entry?.key.name.scope ?? Scope(name: "App", id: "scoped")
        }

        /// `Dependency<Value>(App.id) = value`.
        public var description: String {
            "Dependency<\(Value.self)>(\(entry?.key.readable ?? "scoped")) = \(value)"
        }
    }

    /// Declares a dependency named by `feature` and `id`.
    ///
    /// Every declaration with the same `feature`, `id` and value type refers to the same
    /// instance. `object` is evaluated once, on first access, even when many threads ask at once.
    ///
    /// ```swift
    /// extension Application {
    ///     var database: Dependency<Database> { dependency(Database(url: dbURL), feature: "Storage", id: "db") }
    /// }
    /// ```
    @inlinable
    public func dependency<Value: Sendable>(
        _ object: @autoclosure () -> Value,
        feature: String = "App",
        id: String
    ) -> Dependency<Value> {
        let kind = EntryKind.dependency.identifier
        let valueType = ObjectIdentifier(Value.self)
        let hash = EntryKey.fastHash(kind: kind, valueType: valueType, feature: feature, id: id)
        // No live scope may override the key (see `OverrideCensus`) and this thread read it
        // before: the registry's instance, found by the name's parts in place, so the common
        // case builds no key (whose copy of the two strings costs a retain and release each).
        if OverrideCensus.isEmpty || !OverrideCensus.mayOverride(fastHash: hash),
            let slot = ThreadLookupCache.rememberedSlot(in: registry, kind: kind, valueType: valueType, feature: feature, id: id, hash: hash) {
            return Application.registeredDependency(in: slot, as: Value.self, object)
        }
        return dependency(key: EntryKey(kind: kind, valueType: valueType, feature: feature, id: id, fastHash: hash), object)
    }

    /// Declares a dependency identified by where this call is written.
    ///
    /// `object` is evaluated once, on first access; it may itself resolve other dependencies.
    ///
    /// ```swift
    /// extension Application {
    ///     var clock: Dependency<any Clock<Duration>> { dependency(ContinuousClock()) }
    /// }
    /// ```
    @inlinable
    public func dependency<Value: Sendable>(
        _ object: @autoclosure () -> Value,
        _ fileID: StaticString = #fileID,
        _ function: StaticString = #function,
        _ line: Int = #line,
        _ column: Int = #column
    ) -> Dependency<Value> {
        dependency(
            key: EntryKey(
                kind: .dependency,
                valueType: Value.self,
                name: EntryName(fileID: fileID, function: function, line: line, column: column)
            ),
            object
        )
    }

    @inlinable
    func dependency<Value: Sendable>(key: EntryKey, _ object: () -> Value) -> Dependency<Value> {
        if !OverrideCensus.isEmpty {
            // Only a key in a census bucket some live node counts can be overridden (see
            // `OverrideCensus`): any other skips the calling task's scopes.
            if OverrideCensus.mayOverride(fastHash: key.fastHash), let override = TaskContext.currentOverrides?.find(key) {
                TaskContext.noteOverrideServed()
                // The key names the value type, so the override is a `TypedScopedOverride<Value>`
                // (cast here, where `Value` is concrete, so the cast is a cheap class check).
                if let typed = override as? TypedScopedOverride<Value> {
                    return Dependency(slot: nil, value: typed.value)
                }
            }
            // Not overridden. Read before by this thread: the registry has it, so share it, as
            // `scopedDependency` would after asking the registry.
            if let shared = registry.withRememberedSlot(for: key, { Application.registeredDependency(in: $0, as: Value.self, object) }) {
                return shared
            }
            if let overrides = TaskContext.currentOverrides,
                let scoped = overrides.scopedDependency(
                    for: key,
                    in: registry,
                    create: object,
                    publish: { made, key, registry in Application.publishedDependency(made, key: key, in: registry) }
                ) {
                return Dependency(slot: nil, value: scoped)
            }
        }
        return Application.registeredDependency(key: key, in: registry, object)
    }

    /// The dependency `key` of `registry` itself, created with `object` on first access, read
    /// through the calling thread's memo: the read path of every dependency that no scope
    /// provides, shared by ``dependency(key:_:)`` and a task context publishing a dependency it
    /// created.
    @inlinable @inline(__always)
    static func registeredDependency<Value: Sendable>(key: EntryKey, in registry: Registry, _ object: () -> Value) -> Dependency<Value> {
        registry.withSlot(for: key, create: { Application.makeDependencyEntry(key: $0, object) }) { slot in
            registeredDependency(in: slot, as: Value.self, object)
        }
    }

    /// The dependency whose registry entry `slot` memoises; `object` creates its instance if
    /// the entry has no value (see `DependencyEntry`).
    @inlinable @inline(__always)
    static func registeredDependency<Value: Sendable>(
        in slot: ThreadLookupCache.Slot,
        as type: Value.Type,
        _ object: () -> Value
    ) -> Dependency<Value> {
        slot.withEntry(as: DependencyEntry<Value>.self) { entry in
            Dependency(slot: slot, value: entry.value(memoizedIn: slot, object))
        }
    }

    /// The dependency `key` of `registry`, which a scope created as `made` and found independent
    /// of its overrides: `made` becomes the registry's instance unless another task's instance
    /// got there first, which is then returned.
    @usableFromInline
    static func publishedDependency<Value: Sendable>(_ made: Value, key: EntryKey, in registry: Registry) -> Value {
        registry.withSlot(for: key, create: { Application.makeDependencyEntry(key: $0) { made } }) { slot in
            slot.withEntry(as: DependencyEntry<Value>.self) { $0.published(made, in: registry) }
        }
    }

    @usableFromInline
    static func makeDependencyEntry<Value: Sendable>(key: EntryKey, _ object: () -> Value) -> RegistryEntry {
        if let capture = KeyCapture.active {
            // Only the key is wanted (see `KeyCapture`): don't run the factory. The registry only
            // lets a capture take keys of the override's value type.
            return DependencyEntry(key: key, value: capture.captured(key, as: Value.self))
        }
        let entry = DependencyEntry(key: key, value: object())
        announceCreation(of: entry)
        return entry
    }
}
