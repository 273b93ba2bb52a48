extension Application {
    /// Declares a dependency named by `feature` and `id`, with the instance a test gets if it
    /// reaches the dependency without overriding it under AppStateKitTesting's
    /// `.noLiveDependencies` trait.
    ///
    /// Outside such a test this is ``dependency(_:feature:id:)``: `testValue` is never evaluated.
    /// Under the trait, a read that finds no instance and no override gets `testValue` instead of
    /// running `object`, and the test fails naming the dependency; without a test value that
    /// read stops the test process.
    ///
    /// ```swift
    /// extension Application {
    ///     var payments: Dependency<any Payments> {
    ///         dependency(StripePayments(), testValue: RefusingPayments(), feature: "Billing", id: "payments")
    ///     }
    /// }
    /// ```
    public func dependency<Value: Sendable>(
        _ object: @autoclosure () -> Value,
        testValue: @autoclosure () -> Value,
        feature: String = "App",
        id: String
    ) -> Dependency<Value> {
        dependency(key: EntryKey(kind: .dependency, valueType: Value.self, feature: feature, id: id), object, testValue: testValue)
    }

    /// Declares a dependency identified by where this call is written, with the instance a test
    /// gets if it reaches the dependency without overriding it under `.noLiveDependencies` (see
    /// ``dependency(_:testValue:feature:id:)``).
    ///
    /// ```swift
    /// extension Application {
    ///     var payments: Dependency<any Payments> { dependency(StripePayments(), testValue: RefusingPayments()) }
    /// }
    /// ```
    public func dependency<Value: Sendable>(
        _ object: @autoclosure () -> Value,
        testValue: @autoclosure () -> Value,
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
            object,
            testValue: testValue
        )
    }

    /// ``dependency(key:_:)`` for a declaration with a test value: the same lookups, and the
    /// test value passed on to where an instance is created.
    private func dependency<Value: Sendable>(key: EntryKey, _ object: () -> Value, testValue: () -> Value) -> Dependency<Value> {
        if !OverrideCensus.isEmpty, let overridden = overriddenDependency(key: key, as: Value.self) {
            return Dependency(source: nil, value: overridden)
        }
        if let (value, source) = registry.withExistingView(for: key, DependencyEntry<Value>.value(through:)) {
            return Dependency(source: source, value: value)
        }
        return withoutActuallyEscaping(testValue) { testValue in
            registeredDependency(key: key, object, testValue: testValue)
        }
    }
}
