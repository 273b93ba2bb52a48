extension Application.FileState {
    /// Writes `newValue` like ``write(_:)``, suspending the calling task instead of blocking its
    /// thread until the file is durable.
    ///
    /// The write — encoding, the temporary file, its `fsync`, the rename and the directory's
    /// `fsync` — runs on a thread AppStateKit owns, never on Swift's cooperative pool or a NIO
    /// event loop, so other tasks and connections keep running meanwhile. When this returns, the
    /// file is on disk: it survives the process being killed.
    ///
    /// ```swift
    /// try await Application.fileState(\.tasks).writeDurably(tasks)
    /// ```
    ///
    /// Cancelling the task neither skips nor interrupts the write: it completes, and this
    /// returns or throws its outcome. It runs inside the calling task's scopes (isolated
    /// application, `withOverrides` of `\.fileManager`), as the synchronous call would.
    ///
    /// - Throws: ``PersistenceError`` naming the file's path, as ``write(_:)`` does; the file is
    ///   then unchanged.
    public func writeDurably(_ newValue: Value) async throws {
        try await entry.writeDurably(newValue)
    }

    /// Deletes the file like ``reset()``, suspending the calling task until the deletion is
    /// durable, and throwing instead of reporting a failure.
    ///
    /// Runs on AppStateKit's own threads as ``writeDurably(_:)`` does, with the same behaviour
    /// on cancellation.
    ///
    /// - Throws: ``PersistenceError`` naming the file's path.
    public func resetDurably() async throws {
        try await entry.removeDurably()
    }

    /// Reads, changes and writes the file as one atomic step like ``update(_:)``, suspending the
    /// calling task until the result is durable.
    ///
    /// `body` runs on one of AppStateKit's own threads, perhaps more than once (see
    /// `Application.update(_:_:)`): let it only compute the new value. Behaves on cancellation
    /// as ``writeDurably(_:)`` does.
    ///
    /// ```swift
    /// try await Application.fileState(\.tasks).updateDurably { $0.append(TodoItem(title: "Ship it")) }
    /// ```
    ///
    /// - Throws: `body`'s error, or ``PersistenceError`` when the file can't be read, decoded or
    ///   written (the file is then unchanged).
    @discardableResult
    public func updateDurably<Result: Sendable>(_ body: @escaping @Sendable (inout Value) throws -> Result) async throws -> Result {
        try await entry.updateDurably(body)
    }
}
