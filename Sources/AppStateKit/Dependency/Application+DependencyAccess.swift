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
    /// The dependency's factory is not run: if the dependency doesn't exist yet, `value` becomes
    /// its instance. Overrides in place stay on top of it. Inside a scope that overrides the
    /// dependency (``withOverrides(_:operation:)-(_,()->R)``) this does nothing.
    ///
    /// ```swift
    /// Application.promote(\.api, with: StagingAPIClient())
    /// ```
    @discardableResult
    public static func promote<Value: Sendable>(
        _ keyPath: KeyPath<Application, Dependency<Value>>,
        with value: Value
    ) -> Application.Type {
        let application = current
        let entry: DependencyEntry<Value>?
        if let key = KeyCapture.declaredKey(of: keyPath, replacement: value) {
            // A scope's override hides the registry's entry from the caller, who promotes nothing.
            let hiddenByScope = TaskContext.currentOverrides?.find(key) != nil
            entry = hiddenByScope ? nil : DependencyEntry<Value>.promoting(key, in: application.registry, to: value)
        } else {
            // The property returns a handle obtained elsewhere: promote the entry it refers to.
            entry = application[keyPath: keyPath].entry(in: application)
            entry?.promote(to: value)
        }
        if let entry { logDebug("promoted \(DependencyOverride.subject(entry)) to a new instance") }
        return Application.self
    }

    /// Overrides a dependency until the returned ``DependencyOverride`` is cancelled or released.
    ///
    /// The override is global: every task sees it. For an override that only the current task
    /// and its children see, use a scoped override instead.
    ///
    /// The dependency's factory is not run. If the dependency doesn't exist yet, it is created
    /// lazily, with its factory, by the first read after the last override of it goes.
    ///
    /// ```swift
    /// let override = Application.override(\.api, with: MockAPIClient())
    /// defer { override.cancel() }
    /// ```
    public static func override<Value: Sendable>(
        _ keyPath: KeyPath<Application, Dependency<Value>>,
        with value: Value
    ) -> DependencyOverride {
        let application = current
        guard let key = KeyCapture.declaredKey(of: keyPath, replacement: value) else {
            // The property returns a handle obtained elsewhere: override the entry it refers to.
            let entry = application.registryEntry(of: keyPath)
            return DependencyOverride(entry: entry, token: entry.pushOverride(value))
        }
        let (entry, token) = DependencyEntry<Value>.overriding(key, in: application.registry, with: value)
        return DependencyOverride(entry: entry, token: token)
    }

    /// The registry entry of the dependency at `keyPath` in this application, resolved outside
    /// scoped overrides (a global override, a removal, belongs to the registry's entry even when
    /// the calling task's scope overrides the key).
    func registryEntry<Value: Sendable>(of keyPath: KeyPath<Application, Dependency<Value>>) -> DependencyEntry<Value> {
        if let entry = self[keyPath: keyPath].entry(in: self) { return entry }
        // Without overrides, the declaration always resolves through the registry.
        let handle = TaskContext.withoutOverrides { self[keyPath: keyPath] }
        guard let entry = handle.entry(in: self) else {
            preconditionFailure(KeyCapture.notADeclarationMessage(keyPath))
        }
        return entry
    }
}
