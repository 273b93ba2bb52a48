extension Application {
    /// A handle to a service or client created once, on first use, and shared by the process.
    ///
    /// ```swift
    /// extension Application {
    ///     var api: Dependency<any APIClient> { dependency(LiveAPIClient()) }
    /// }
    ///
    /// let api = Application.dependency(\.api)
    /// ```
    public struct Dependency<Value: Sendable>: Sendable {
        /// Which registry entry the value came from; `nil` when a scope provides the value. Plain
        /// numbers, so a resolve copies and retains nothing but the value.
        @usableFromInline let source: EntryReference?

        /// The dependency instance: the newest override if any, otherwise the created instance.
        public let value: Value

        @inlinable
        init(source: EntryReference?, value: Value) {
            self.source = source
            self.value = value
        }

        /// The registry entry in `application`, the one this handle was read from; `nil` when a
        /// scope provides the value or the entry was removed since.
        package func entry(in application: Application) -> DependencyEntry<Value>? {
            source.flatMap { application.registry.existingEntry(for: $0) as? DependencyEntry<Value> }
        }
    }

    /// Declares a dependency named by `feature` and `id`.
    ///
    /// Every declaration with the same `feature`, `id` and value type refers to the same
    /// instance. `object` is evaluated once, on first access, even when many threads ask at once.
    ///
    /// ```swift
    /// extension Application {
    ///     var database: Dependency<Database> { dependency(Database(url: dbURL), feature: "Storage", id: "db") }
    /// }
    /// ```
    @inlinable
    public func dependency<Value: Sendable>(
        _ object: @autoclosure () -> Value,
        feature: String = "App",
        id: String
    ) -> Dependency<Value> {
        dependency(key: EntryKey(kind: .dependency, valueType: Value.self, feature: feature, id: id), object)
    }

    /// Declares a dependency identified by where this call is written.
    ///
    /// `object` is evaluated once, on first access; it may itself resolve other dependencies.
    ///
    /// ```swift
    /// extension Application {
    ///     var clock: Dependency<any Clock<Duration>> { dependency(ContinuousClock()) }
    /// }
    /// ```
    @inlinable
    public func dependency<Value: Sendable>(
        _ object: @autoclosure () -> Value,
        _ fileID: StaticString = #fileID,
        _ function: StaticString = #function,
        _ line: Int = #line,
        _ column: Int = #column
    ) -> Dependency<Value> {
        dependency(
            key: EntryKey(
                kind: .dependency,
                valueType: Value.self,
                name: .site(CallSite(fileID: fileID, function: function, line: line, column: column))
            ),
            object
        )
    }

    @inlinable
    package func dependency<Value: Sendable>(key: EntryKey, _ object: () -> Value) -> Dependency<Value> {
        if !OverrideCensus.isEmpty, let overridden = overriddenDependency(key: key, as: Value.self) {
            return Dependency(source: nil, value: overridden)
        }
        if let (value, source) = registry.withExistingView(for: key, DependencyEntry<Value>.value(through:)) {
            return Dependency(source: source, value: value)
        }
        return registeredDependency(key: key, object)
    }

    /// The dependency `key` names when the table has no instance for it: created on first use
    /// (inside the calling task's scopes, see `ScopedOverride.scopedDependency`), or filled by
    /// `object` if the entry has no value.
    @usableFromInline
    func registeredDependency<Value: Sendable>(key: EntryKey, _ object: () -> Value) -> Dependency<Value> {
        registeredDependency(key: key, object, testValue: nil)
    }

    /// ``registeredDependency(key:_:)``, with every instance made through `LiveDependencyCheck`
    /// (the `.noLiveDependencies` trait's seam, which may return `testValue` instead).
    func registeredDependency<Value: Sendable>(key: EntryKey, _ live: () -> Value, testValue: (() -> Value)?) -> Dependency<Value> {
        func object() -> Value { LiveDependencyCheck.instance(of: key, live: live, testValue: testValue) }
        if let scoped = ScopedOverride.scopedDependency(
            for: key,
            in: registry,
            create: object,
            publish: { made, key, registry in
                // Made independently of the scope's overrides: the registry's instance, unless
                // another task published one first.
                registry.entry(for: key, as: DependencyEntry<Value>.self) { Application.announcingCreation(DependencyEntry(key: $0, value: made)) }
                    .filled(in: registry) { made }
            }
        ) {
            return Dependency(source: nil, value: scoped)
        }
        let entry = registry.entry(for: key, as: DependencyEntry<Value>.self) { Application.announcingCreation(DependencyEntry(key: $0, value: object())) }
        return Dependency(source: EntryReference(entry), value: entry.value(in: registry, object))
    }

    /// What the calling task's scopes put in place of `key`: a running key capture's value or
    /// the override; `nil` to read the registry's instance.
    @usableFromInline
    func overriddenDependency<Value: Sendable>(key: EntryKey, as type: Value.Type) -> Value? {
        if KeyCapture.isAnyLive, let capture = KeyCapture.current, capture.takes(key) {
            // Only the key is wanted (see `KeyCapture`): no entry, no factory.
            return capture.captured(key, as: Value.self)
        }
        guard OverrideCensus.mayOverride(fastHash: key.fastHash), let override = TaskContext.currentOverrides?.find(key) else {
            return nil
        }
        TaskContext.noteOverrideServed()
        // The key names the value type, so the override is a `TypedScopedOverride<Value>`.
        return (override as? TypedScopedOverride<Value>)?.value
    }
}

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
