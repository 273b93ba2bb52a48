import AppStateKitCore
extension Application.StoredState {
    /// Writes `newValue` like ``write(_:)``, suspending the calling task instead of blocking its
    /// thread until the value is durable.
    ///
    /// The write runs on a thread AppStateKit owns, never on Swift's cooperative pool or a NIO
    /// event loop; writes of several tasks to one ``FileKeyValueStore`` share its commits. It runs
    /// inside the calling task's scopes, as the synchronous call would, and completes even if
    /// the task is cancelled.
    ///
    /// ```swift
    /// try await Application.storedState(\.lastVisit).writeDurably(Date())
    /// ```
    ///
    /// - Throws: ``PersistenceError``, as ``write(_:)`` does; the stored value is then unchanged.
    public func writeDurably(_ newValue: Value) async throws {
        try await entry.onPool { try entry.write(newValue) }
    }

    /// Removes the stored value like ``reset()``, suspending the calling task until the removal
    /// is durable, and throwing instead of reporting a failure.
    ///
    /// - Throws: ``PersistenceError`` naming the key and the store's path.
    public func resetDurably() async throws {
        try await entry.onPool { try entry.remove() }
    }

    /// Reads, changes and writes the value as one atomic step like ``update(_:)``, suspending the
    /// calling task until the result is durable. `body` runs on one of AppStateKit's threads,
    /// perhaps more than once: let it only compute the new value.
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
        try await entry.onPool { try entry.updateThrowing(body) }
    }
}
