/// The operations of ``Application/StoredState`` and ``Application/FileState`` beyond `value`,
/// written once: each handle's public method calls one of these on its entry.
extension PersistedEntry {
    /// The handles' `reset()`: removes the value, reporting a failure through the logger.
    func resetReportingFailure() {
        do {
            try remove()
        } catch {
            report(error)
        }
    }

    /// The handles' `update(_:)`: ``update(_:storeFailure:)`` rethrowing every failure.
    func updateThrowing<Result>(_ body: (inout Value) throws -> Result) throws -> Result {
        try update(body, storeFailure: { throw $0 })
    }

    /// The handles' `modify(_:)`: ``update(_:storeFailure:)`` reporting store failures through
    /// the logger; only `body`'s own errors are thrown.
    func updateReportingFailure<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try update(body, storeFailure: { report($0) })
    }
}
