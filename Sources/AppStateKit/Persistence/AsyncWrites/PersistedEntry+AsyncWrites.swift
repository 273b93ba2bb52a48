/// The `async` operations of ``Application/StoredState`` and ``Application/FileState``
/// (`writeDurably(_:)`, `resetDurably()`, `updateDurably(_:)`): the synchronous ones, run on a
/// thread of ``BlockingIOPool`` while the calling task is suspended.
///
/// The work runs inside the calling task's scopes (its isolated application and
/// `withOverrides` layers, carried over to the pool's thread), so it resolves the store or file
/// manager exactly as the synchronous call made by that task would.
extension PersistedEntry {
    /// ``write(_:)``, on the pool.
    func writeDurably(_ newValue: Value) async throws {
        try await onPool { try self.write(newValue) }
    }

    /// ``remove()``, on the pool.
    func removeDurably() async throws {
        try await onPool { try self.remove() }
    }

    /// ``updateThrowing(_:)``, on the pool: `body` runs there, perhaps more than once.
    func updateDurably<Result: Sendable>(_ body: @escaping @Sendable (inout Value) throws -> Result) async throws -> Result {
        try await onPool { try self.updateThrowing(body) }
    }

    /// Runs `work` on the pool inside the calling task's scopes.
    private func onPool<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        let scopes = TaskContext.current
        return try await BlockingIOPool.shared.run {
            try TaskContext.bind(scopes) { try work() }
        }
    }
}
