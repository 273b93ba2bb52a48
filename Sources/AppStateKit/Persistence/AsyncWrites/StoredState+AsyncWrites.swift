extension Application.StoredState {
    /// Writes `newValue` like ``write(_:)``, suspending the calling task instead of blocking its
    /// thread until the value is durable.
    ///
    /// The write — encoding, the store's `flock`, its `fsync`s — runs on a thread AppStateKit
    /// owns, never on Swift's cooperative pool or a NIO event loop, so other tasks and
    /// connections keep running meanwhile. Writes of several tasks to one ``FileKeyValueStore``
    /// at the same time share its commits (group commit). When this returns, the value is on
    /// disk: it survives the process being killed.
    ///
    /// ```swift
    /// func recordVisit() async throws {
    ///     try await Application.storedState(\.lastVisit).writeDurably(Date())
    /// }
    /// ```
    ///
    /// Cancelling the task neither skips nor interrupts the write: it completes, and this
    /// returns or throws its outcome. It runs inside the calling task's scopes (isolated
    /// application, `withOverrides`), as the synchronous call would.
    ///
    /// - Throws: ``PersistenceError``, naming the key and the store's path, as ``write(_:)``
    ///   does; the stored value is then unchanged.
    public func writeDurably(_ newValue: Value) async throws {
        try await entry.writeDurably(newValue)
    }

    /// Removes the stored value like ``reset()``, suspending the calling task until the removal
    /// is durable, and throwing instead of reporting a failure.
    ///
    /// Runs on AppStateKit's own threads as ``writeDurably(_:)`` does, with the same behaviour
    /// on cancellation.
    ///
    /// - Throws: ``PersistenceError`` naming the key and the store's path.
    public func resetDurably() async throws {
        try await entry.removeDurably()
    }

    /// Reads, changes and writes the value as one atomic step like ``update(_:)``, suspending the
    /// calling task until the result is durable.
    ///
    /// `body` runs on one of AppStateKit's own threads, perhaps more than once (see
    /// `Application.update(_:_:)`): let it only compute the new value. Behaves on cancellation
    /// as ``writeDurably(_:)`` does.
    ///
    /// ```swift
    /// let visits = try await Application.storedState(\.visits).updateDurably { count in
    ///     count += 1
    ///     return count
    /// }
    /// ```
    ///
    /// - Throws: `body`'s error, or ``PersistenceError`` when the stored value can't be read,
    ///   decoded or written (the store is then unchanged).
    @discardableResult
    public func updateDurably<Result: Sendable>(_ body: @escaping @Sendable (inout Value) throws -> Result) async throws -> Result {
        try await entry.updateDurably(body)
    }
}
