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
        DependencyOverride(entry: current.registryEntry(of: keyPath), value: value)
    }

    /// The registry entry of the dependency at `keyPath` in this application, resolved outside
    /// scoped overrides (a global override, a removal, belongs to the registry's entry even when
    /// the calling task's scope overrides the key).
    func registryEntry<Value: Sendable>(of keyPath: KeyPath<Application, Dependency<Value>>) -> DependencyEntry<Value> {
        if let entry = self[keyPath: keyPath].entry { return entry }
        // Without overrides, the declaration always resolves through the registry.
        let handle = TaskContext.withoutOverrides { self[keyPath: keyPath] }
        guard let entry = handle.entry else {
            preconditionFailure(KeyCapture.notADeclarationMessage(keyPath))
        }
        return entry
    }
}
