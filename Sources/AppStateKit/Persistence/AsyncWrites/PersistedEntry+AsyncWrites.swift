extension PersistedEntry {
    /// Runs `work` on a thread of ``BlockingIOPool`` while the calling task is suspended: the
    /// `async` operations of ``Application/StoredState`` and ``Application/FileState``
    /// (`writeDurably(_:)`, `resetDurably()`, `updateDurably(_:)`) are the synchronous ones run
    /// through this.
    ///
    /// The work runs inside the calling task's scopes (its isolated application and
    /// `withOverrides` layers, carried over to the pool's thread), so it resolves the store or file
    /// manager exactly as the synchronous call made by that task would.
    func onPool<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        let scopes = TaskContext.current
        return try await BlockingIOPool.shared.run {
            try TaskContext.bind(scopes) { try work() }
        }
    }
}
