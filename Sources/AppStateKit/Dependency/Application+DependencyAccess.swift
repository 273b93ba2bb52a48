extension Application {
    /// Returns a dependency's instance, creating it on first use.
    ///
    /// ```swift
    /// let api = Application.dependency(\.api)
    /// ```
    @inlinable @inline(__always)
    public static func dependency<Value: Sendable>(_ keyPath: KeyPath<Application, Dependency<Value>>) -> Value {
        withCurrent { $0[keyPath: keyPath].value }
    }

    /// Creates a dependency now instead of on first use, e.g. at launch.
    ///
    /// ```swift
    /// Application.load(dependency: \.database).load(dependency: \.cache)
    /// ```
    @discardableResult
    public static func load<Value: Sendable>(dependency keyPath: KeyPath<Application, Dependency<Value>>) -> Application.Type {
        _ = current[keyPath: keyPath].value
        return Application.self
    }

    /// Replaces a dependency's instance for the rest of the process (or of the isolation scope).
    ///
    /// ```swift
    /// Application.promote(\.api, with: StagingAPIClient())
    /// ```
    @discardableResult
    public static func promote<Value: Sendable>(
        _ keyPath: KeyPath<Application, Dependency<Value>>,
        with value: Value
    ) -> Application.Type {
        let entry = current[keyPath: keyPath].entry
        entry?.promote(to: value)
        if let entry { logDebug("promoted \(DependencyOverride.subject(entry)) to a new instance") }
        return Application.self
    }

    /// Overrides a dependency until the returned ``DependencyOverride`` is cancelled or released.
    ///
    /// The override is global: every task sees it. For an override that only the current task
    /// and its children see, use a scoped override instead.
    ///
    /// ```swift
    /// let override = Application.override(\.api, with: MockAPIClient())
    /// defer { override.cancel() }
    /// ```
    public static func override<Value: Sendable>(
        _ keyPath: KeyPath<Application, Dependency<Value>>,
        with value: Value
    ) -> DependencyOverride {
        guard let entry = current[keyPath: keyPath].entry else {
            // The key is overridden by the calling task's scope; a global override underneath it
            // still belongs in the registry, so resolve the entry outside the scope.
            let entry = ScopeContext.$current.withValue(nil) { current[keyPath: keyPath].entry! }
            return DependencyOverride(entry: entry, value: value)
        }
        return DependencyOverride(entry: entry, value: value)
    }
}
