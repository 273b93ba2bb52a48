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
    /// captured first is used).
    ///
    /// Looked up by the key path object's identity first (a key path literal is one object per
    /// place it is written, so this needs no key-path hashing), then by key-path equality. Each
    /// remembered key path is retained, so its identity can't be reused by another object.
    private static let lock = Lock()
    // Safe: both tables are only accessed while `lock` is held.
    nonisolated(unsafe) private static var capturedByIdentity: [ObjectIdentifier: CapturedKey] = [:]
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
        if let known = lock.withLock({ knownKey(of: keyPath) }) { return known }
        let key = capture(keyPath, overrideValue: overrideValue)
        lock.withLock {
            captured[keyPath] = key
            rememberIdentity(of: keyPath, key: key)
        }
        return key
    }

    /// Called with `lock` held. Bounded, because key paths built at run time are new objects
    /// each time (they are still found by equality).
    private static func rememberIdentity(of keyPath: AnyKeyPath, key: EntryKey) {
        if capturedByIdentity.count < 4_096 {
            capturedByIdentity[ObjectIdentifier(keyPath)] = CapturedKey(keyPath: keyPath, key: key)
        }
    }

    /// Called with `lock` held.
    private static func knownKey(of keyPath: AnyKeyPath) -> EntryKey? {
        if let known = capturedByIdentity[ObjectIdentifier(keyPath)], known.keyPath === keyPath { return known.key }
        guard let key = captured[keyPath] else { return nil }
        rememberIdentity(of: keyPath, key: key)
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

/// A key path and the key it declares, held by reference so table lookups copy one pointer.
private final class CapturedKey {
    let keyPath: AnyKeyPath
    let key: EntryKey

    init(keyPath: AnyKeyPath, key: EntryKey) {
        self.keyPath = keyPath
        self.key = key
    }
}
