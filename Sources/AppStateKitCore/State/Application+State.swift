extension Application {
    /// A handle to an in-memory entry shared across the process.
    ///
    /// Declare one as a computed property; the handle is a value, but reads and writes go to the
    /// shared entry:
    ///
    /// ```swift
    /// extension Application {
    ///     var username: State<String> { state(initial: "guest") }
    /// }
    ///
    /// var username = Application.state(\.username)
    /// username.value = "leif"            // visible everywhere
    /// Application.state(\.username).value // "leif"
    /// ```
    public struct State<Value: Sendable>: MutableApplicationState, Sendable {
        /// The view of the registry entry made for the thread that looked it up (see
        /// `ThreadViews`); it holds the entry.
        @usableFromInline let view: EntryView

        @inlinable
        init(view: EntryView) {
            self.view = view
        }

        /// The registry entry.
        @inlinable
        var entry: StateEntry<Value> {
            Registry.entry(of: view, as: StateEntry<Value>.self)
        }

        /// The current value. Setting it replaces the shared value atomically.
        ///
        /// A mutation in place (`counter.value += 1`, `list.value.append(item)`, and
        /// ``MutableApplicationState/modify(_:)``) is one atomic step too: the entry stays locked
        /// from the read to the write, so concurrent mutations never lose each other's updates.
        /// The mutation must not touch this same entry (that stops the process, naming the
        /// entry), and the value must not be passed `inout` to an `async` function, which would
        /// hold the lock across the suspension.
        @inlinable
        public var value: Value {
            get { StateEntry<Value>.value(through: view) }
            set { entry.value = newValue }
            _modify {
                let entry = self.entry
                entry.willChange()
                entry.beginModification()
                defer {
                    entry.endModification()
                    entry.didChange()
                }
                yield &entry.lockedValue
            }
        }

        /// Restores the value the entry was created with. The entry stays in the application;
        /// ``Application/remove(state:)`` drops it.
        @inlinable
        public func reset() {
            entry.reset()
        }

        /// The entry's identity, internal as AppState's is (tests read it via `@testable import`).
        var scope: Scope { entry.key.name.scope }
    }

    /// Declares an in-memory state named by `feature` and `id`.
    ///
    /// Every declaration with the same `feature`, `id` and value type, in any file, refers to the
    /// same entry. `initial` is evaluated once, on first access.
    ///
    /// ```swift
    /// extension Application {
    ///     var requestCount: State<Int> { state(initial: 0, feature: "Metrics", id: "requests") }
    /// }
    /// ```
    ///
    /// - Note: An id made fresh on every evaluation (`UUID().uuidString`) names a new entry each
    ///   time the property is read, so nothing ever sees the same value twice.
    @inlinable
    public func state<Value: Sendable>(
        initial: @autoclosure () -> Value,
        feature: String = "App",
        id: String
    ) -> State<Value> {
        state(key: EntryKey(kind: .state, valueType: Value.self, feature: feature, id: id), initial: initial)
    }

    /// Declares an in-memory state identified by where this call is written.
    ///
    /// The identity is the file, function, line and column of the call, so keep one declaration
    /// per property. `initial` is evaluated once, on first access.
    ///
    /// ```swift
    /// extension Application {
    ///     var counter: State<Int> { state(initial: 0) }
    /// }
    /// ```
    @inlinable
    public func state<Value: Sendable>(
        initial: @autoclosure () -> Value,
        _ fileID: StaticString = #fileID,
        _ function: StaticString = #function,
        _ line: Int = #line,
        _ column: Int = #column
    ) -> State<Value> {
        state(
            key: EntryKey(
                kind: .state,
                valueType: Value.self,
                name: .site(CallSite(fileID: fileID, function: function, line: line, column: column))
            ),
            initial: initial
        )
    }

    @inlinable
    func state<Value: Sendable>(key: EntryKey, initial: () -> Value) -> State<Value> {
        State(view: registry.view(for: key) { Application.announcingCreation(StateEntry(key: $0, initial: initial())) })
    }
}

extension Application {
    /// Returns the handle of a state, stored state or file state.
    ///
    /// ```swift
    /// var counter = Application.state(\.counter)
    /// counter.value += 1
    /// ```
    @inlinable @inline(__always)
    public static func state<Value, S: MutableApplicationState>(
        _ keyPath: KeyPath<Application, S>
    ) -> S where S.Value == Value {
        withCurrent { $0[keyPath: keyPath] }
    }

    /// Restores the initial value of any entry — state, stored state, file state, sync state or
    /// secure state — through its handle's `reset()`: the persisted value is deleted (the
    /// stored key, the file, the sync store's key, the stored secret) and the entry stays in the
    /// application, as in AppState. Failures are reported through the logger.
    ///
    /// Resetting is the other half of ``remove(state:)``, which drops the in-memory entry and
    /// keeps what it persisted.
    @inlinable
    public static func reset<S: MutableApplicationState>(_ keyPath: KeyPath<Application, S>) {
        var handle = current[keyPath: keyPath]
        handle.reset()
    }

    /// Atomically reads, changes and writes a state, stored state or file state, and returns
    /// what `body` returns.
    ///
    /// ```swift
    /// Application.update(\.requestCount) { $0 += 1 }
    /// let next = Application.update(\.sequence) { value -> Int in value += 1; return value }
    /// ```
    ///
    /// It runs the handle's ``MutableApplicationState/modify(_:)``:
    /// - A ``State`` runs `body` with the entry locked: keep it short, and don't read or write
    ///   the same entry inside it (that is detected and stops the process with the entry's key).
    ///   Other entries are unaffected.
    /// - A ``StoredState`` or ``FileState`` runs a compare-and-set loop: `body` runs on the
    ///   current value with no lock held and may run more than once, so let it only compute the
    ///   new value. No other `update` of the same key can interleave — in this process, and in
    ///   any process sharing a ``FileKeyValueStore``'s file or (with the default file manager) a
    ///   file state's file, which serialise on an `flock` of `<file>.lock`. Store failures are
    ///   reported through the logger; the handles' `update(_:)` throws them instead.
    /// - Any other handle runs its own `modify` (a ``SyncState``'s is one step within this
    ///   process; its `update(maxAttempts:_:)` is the step atomic across processes).
    @inlinable @inline(__always) @discardableResult
    public static func update<S: MutableApplicationState, Result>(
        _ keyPath: KeyPath<Application, S>,
        _ body: (inout S.Value) throws -> Result
    ) rethrows -> Result {
        var handle = withCurrent { $0[keyPath: keyPath] }
        return try handle.modify(body)
    }
}
