extension Application {
    /// The values of a state, stored state or file state over time: the current value first,
    /// then the value after each change.
    ///
    /// ```swift
    /// for await config in Application.values(of: \.config) {
    ///     reload(config)
    /// }
    /// ```
    ///
    /// - Delivery: after every write through AppStateKit (setter, wrapper, `update`, `reset`,
    ///   slices) the stream receives the value read *after* that write. A slow consumer gets the
    ///   newest value, not a backlog: at most one value waits, and a newer one replaces it. So a
    ///   consumer always ends on the final value, but may skip intermediate ones.
    /// - Many streams may watch one entry; each is independent.
    /// - The stream finishes when the consuming task is cancelled (or the loop ends), and its
    ///   subscription is released.
    /// - Changes made to a stored or file state by *another process* are not pushed (they are
    ///   seen by the next read); call ``notifyChange()-swift.type.method`` to re-deliver current values.
    public static func values<S: MutableApplicationState & Sendable>(
        of keyPath: KeyPath<Application, S>
    ) -> AsyncStream<S.Value> where S.Value: Sendable {
        let handle = current[keyPath: keyPath]
        guard let entry = (handle as? any EntryBacked)?.registryEntry else {
            // A custom handle without an entry: deliver its current value once.
            return AsyncStream { continuation in
                continuation.yield(handle.value)
                continuation.finish()
            }
        }
        return AsyncStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let token = ChangeSubscriptions.subscribe(entry) {
                continuation.yield(handle.value)
            }
            continuation.onTermination = { _ in
                ChangeSubscriptions.unsubscribe(entry, token: token)
            }
            continuation.yield(handle.value)
        }
    }

    /// The values of one member of a state over time; see ``values(of:)``.
    ///
    /// ```swift
    /// for await theme in Application.values(of: \.settings, \.theme) { apply(theme) }
    /// ```
    public static func values<S: MutableApplicationState & Sendable, Member: Sendable>(
        of keyPath: KeyPath<Application, S>,
        _ member: KeyPath<S.Value, Member> & Sendable
    ) -> AsyncMapSequence<AsyncStream<S.Value>, Member> where S.Value: Sendable {
        values(of: keyPath).map { $0[keyPath: member] }
    }

    /// Tells every observer and change stream of this application's entries that they changed,
    /// e.g. after another process wrote persisted state. Callable from any thread.
    public func notifyChange() {
        for entry in registry.allEntries {
            entry.notifyingObservers {}
        }
    }

    /// Calls ``notifyChange()`` on the current application (the isolated one inside an
    /// isolation scope). Callable from any thread.
    public static func notifyChange() {
        current.notifyChange()
    }

    /// The number of live change streams in the process (for tests and diagnostics).
    public static var changeStreamCount: Int {
        ChangeSubscriptions.subscriberCount
    }
}
