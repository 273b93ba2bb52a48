import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSecrets
import AppStateKitSync
extension Application {
    /// Runs `operation` against a fresh, private application: every state, stored state, file
    /// state and dependency starts from its initial value or factory, and nothing written inside
    /// is visible outside or survives the scope.
    ///
    /// ```swift
    /// Application.withIsolatedApplication {
    ///     Application.update(\.counter) { $0 += 1 }   // this scope's counter only
    /// }
    /// ```
    ///
    /// Stored states use an ``InMemoryDefaults`` store and file states a temporary directory
    /// that is removed when the scope ends; sandbox writes skip `fsync`. A handle acts on the
    /// application it was taken from: one taken inside keeps using this isolated application
    /// after the scope (a file state written then lands in the same directory, removed again when
    /// the application is released), and one taken outside keeps using its own application
    /// inside the scope. Global ``override(_:with:)``, ``promote(_:with:)``
    /// and ``promote(to:)`` inside the scope affect the scope only. Child tasks inherit the
    /// scope; `Task.detached`, `DispatchQueue` and `Thread` don't (see ``currentContext``, whose
    /// `isIsolated` says whether the calling task runs inside one).
    public static func withIsolatedApplication<R>(_ operation: () throws -> R) rethrows -> R {
        let sandbox = IsolationSandbox()
        defer { sandbox.remove() }
        let binding = TaskContext.current.with(isolatedApplication: sandbox.isolatedApplication)
        return try TaskContext.bind(binding, operation: operation)
    }

    /// The `async` form of ``withIsolatedApplication(_:)-(()->R)``.
    public static func withIsolatedApplication<R>(
        isolation: isolated (any Actor)? = #isolation,
        _ operation: () async throws -> R
    ) async rethrows -> R {
        let sandbox = IsolationSandbox()
        defer { sandbox.remove() }
        let binding = TaskContext.current.with(isolatedApplication: sandbox.isolatedApplication)
        return try await TaskContext.bind(binding, isolation: isolation, operation: operation)
    }
}
