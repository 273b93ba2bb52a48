/// Finds the key of a dependency declaration without running its factory.
///
/// Scoped overrides are keyed by the dependency's identity, which only its declaration knows.
/// `KeyCapture` evaluates the declaring property, outside every scope, while a capture is active
/// on the thread: the registry then skips its lookup and creates a transient entry, which
/// records the key and uses the override value instead of calling the factory — so a live
/// client is never constructed just to be replaced, and the registry is left unchanged.
final class KeyCapture {
    let value: any Sendable
    var key: EntryKey?

    private init(value: any Sendable) {
        self.value = value
    }

    /// The capture running on the calling thread.
    static var active: KeyCapture? {
        ThreadLookupCache.current.keyCapture
    }

    /// Keys already captured, by key path. A declaration names the same entry every time unless
    /// its id is computed at run time; such declarations can't be overridden in scopes (the key
    /// captured first is used). Each thread first looks in its own short list of recent key
    /// paths, by identity (see `ThreadLookupCache.recentCapturedKey`), without the lock.
    private static let lock = Lock()
    // Safe: only accessed while `lock` is held.
    nonisolated(unsafe) private static var captured: [AnyKeyPath: EntryKey] = [:]

    /// The key of the dependency at `keyPath`.
    static func key<Value: Sendable>(of keyPath: KeyPath<Application, Application.Dependency<Value>>, overrideValue: Value) -> EntryKey {
        let cache = ThreadLookupCache.current
        if let known = cache.recentCapturedKey(of: keyPath) { return known }
        let key = sharedKey(of: keyPath, overrideValue: overrideValue)
        cache.rememberCapturedKey(key, of: keyPath)
        return key
    }

    /// ``key(of:overrideValue:)`` through the process-wide tables.
    private static func sharedKey<Value: Sendable>(
        of keyPath: KeyPath<Application, Application.Dependency<Value>>,
        overrideValue: Value
    ) -> EntryKey {
        if let known = lock.withLock({ captured[keyPath] }) { return known }
        let key = capture(keyPath, overrideValue: overrideValue)
        lock.withLock { captured[keyPath] = key }
        return key
    }

    private static func capture<Value: Sendable>(_ keyPath: KeyPath<Application, Application.Dependency<Value>>, overrideValue: Value) -> EntryKey {
        let capture = KeyCapture(value: overrideValue)
        let cache = ThreadLookupCache.current
        let previous = cache.keyCapture
        cache.keyCapture = capture
        defer { cache.keyCapture = previous }
        _ = ScopeContext.$current.withValue(nil) { Application.shared[keyPath: keyPath] }
        guard let key = capture.key else {
            preconditionFailure("AppStateKit: \(keyPath) did not declare a dependency with dependency(_:); it cannot be overridden")
        }
        return key
    }
}
