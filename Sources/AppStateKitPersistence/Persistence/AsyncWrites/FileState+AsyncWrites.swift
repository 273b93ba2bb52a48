import AppStateKitCore
extension Application.FileState {
    /// Writes `newValue` like ``write(_:)``, suspending the calling task instead of blocking its
    /// thread until the file is durable; where the write runs is as for
    /// ``Application/StoredState/writeDurably(_:)``.
    ///
    /// ```swift
    /// try await Application.fileState(\.tasks).writeDurably(tasks)
    /// ```
    ///
    /// - Throws: ``PersistenceError`` naming the file's path, as ``write(_:)`` does; the file is
    ///   then unchanged.
    public func writeDurably(_ newValue: Value) async throws {
        try await entry.onPool { try entry.write(newValue) }
    }

    /// Deletes the file like ``reset()``, suspending the calling task until the deletion is
    /// durable, and throwing instead of reporting a failure.
    ///
    /// - Throws: ``PersistenceError`` naming the file's path.
    public func resetDurably() async throws {
        try await entry.onPool { try entry.remove() }
    }

    /// Reads, changes and writes the file as one atomic step like ``update(_:)``, suspending the
    /// calling task until the result is durable. `body` runs on one of AppStateKit's threads,
    /// perhaps more than once: let it only compute the new value.
    ///
    /// ```swift
    /// try await Application.fileState(\.tasks).updateDurably { $0.append(TodoItem(title: "Ship it")) }
    /// ```
    ///
    /// - Throws: `body`'s error, or ``PersistenceError`` when the file can't be read, decoded or
    ///   written (the file is then unchanged).
    @discardableResult
    public func updateDurably<Result: Sendable>(_ body: @escaping @Sendable (inout Value) throws -> Result) async throws -> Result {
        try await entry.onPool { try entry.updateThrowing(body) }
    }
}
