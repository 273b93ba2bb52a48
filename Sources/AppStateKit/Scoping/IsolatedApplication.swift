/// The application of an isolation scope; ``Application/promote(to:)`` inside the scope replaces
/// it here instead of replacing the process-wide instance.
final class IsolatedApplication: @unchecked Sendable {
    // Safe: `storedApplication` is only read or written while `lock` is held.
    private let lock = Lock()
    private var storedApplication: Application

    init(_ application: Application) {
        storedApplication = application
    }

    var application: Application {
        get { lock.withLock { storedApplication } }
        set { lock.withLock { storedApplication = newValue } }
    }
}
