import Synchronization

/// The application of an isolation scope; ``Application/promote(to:)`` inside the scope replaces
/// it here instead of replacing the process-wide instance.
@usableFromInline
final class IsolatedApplication: @unchecked Sendable {
    // Safe: `storedApplication` is only read or written while `lock` is held.
    private let lock = Lock()
    private var storedApplication: Application

    /// How many isolated applications exist. While none does, choosing the application for an
    /// access skips the task-local lookup, even inside override scopes. Counted per object (not
    /// per scope) because unstructured tasks created inside a scope keep it bound after the
    /// scope returns.
    @usableFromInline static let liveCount = Atomic<Int>(0)

    @inlinable
    static var isAnyLive: Bool { liveCount.load(ordering: .relaxed) > 0 }

    init(_ application: Application) {
        storedApplication = application
        Self.liveCount.wrappingAdd(1, ordering: .relaxed)
    }

    deinit {
        Self.liveCount.wrappingSubtract(1, ordering: .relaxed)
    }

    var application: Application {
        get { lock.withLock { storedApplication } }
        set { lock.withLock { storedApplication = newValue } }
    }
}
