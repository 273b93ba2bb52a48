import Synchronization

/// The application of an isolation scope; ``Application/promote(to:)`` inside the scope replaces
/// it here instead of replacing the process-wide instance.
@usableFromInline
final class IsolatedApplication: @unchecked Sendable {
    // Safe: the application is only reached through its locked box.
    private let storedApplication: LockedBox<Application>

    /// How many isolated applications exist. While none does, choosing the application for an
    /// access skips the task-local lookup, even inside override scopes. Counted per object (not
    /// per scope) because unstructured tasks created inside a scope keep it bound after the
    /// scope returns.
    @usableFromInline static let liveCount = Atomic<Int>(0)

    @inlinable
    static var isAnyLive: Bool { liveCount.load(ordering: .relaxed) > 0 }

    init(_ application: Application) {
        storedApplication = LockedBox(application)
        Self.liveCount.wrappingAdd(1, ordering: .relaxed)
    }

    deinit {
        Self.liveCount.wrappingSubtract(1, ordering: .relaxed)
    }

    var application: Application {
        get { storedApplication.withLock { $0 } }
        set { storedApplication.withLock { $0 = newValue } }
    }
}
