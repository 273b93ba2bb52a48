import AppStateKitCore
extension PersistedEntry {
    /// Runs `work` on a thread of ``BlockingIOPool`` while the calling task is suspended, inside
    /// the task's scopes (its isolated application and `withOverrides` layers), so it resolves
    /// the store or file manager exactly as the synchronous call made by that task would.
    func onPool<Result: Sendable>(_ work: @escaping @Sendable () throws -> Result) async throws -> Result {
        let scopes = TaskContext.current
        return try await BlockingIOPool.shared.run {
            try TaskContext.bind(scopes) { try work() }
        }
    }
}
