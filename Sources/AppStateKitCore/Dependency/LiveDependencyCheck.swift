/// The seam behind AppStateKitTesting's `.noLiveDependencies` trait: a task-local handler that,
/// while set, stands between a dependency and its live factory.
///
/// A dependency the task overrides never needs its factory, so inside an isolated application a
/// creation means the code under test reached the live dependency. While the handler is set, the
/// live factory of such a dependency never runs (AppStateKit's own dependencies, which an
/// isolated application already keeps private, excepted): the handler is told, and the read gets
/// the declaration's test value (`dependency(_:testValue:)`), or, without one, the process stops
/// with a message naming the dependency. The check runs only where an instance is created, never
/// on a read that finds one.
package enum LiveDependencyCheck {
    /// Receives a sentence naming the dependency (`Dependency<any APIClient> App.api …`).
    @TaskLocal package static var handler: (@Sendable (String) -> Void)?

    /// The instance for the dependency `key` names, which has none yet: `live()`, unless the
    /// calling task has a handler (see the type's documentation).
    static func instance<Value>(of key: EntryKey, live: () -> Value, testValue: (() -> Value)?) -> Value {
        guard let handler, key.name.scope.name != "AppStateKit" else { return live() }
        let subject = "Dependency<\(reflectedTypeName(Value.self))> \(key.readable)"
        let advice = "override it (.overriding(_:with:) or Application.withOverrides), with a live value if the live one is wanted"
        if let testValue {
            handler("\(subject) was read in a test under .noLiveDependencies without an override, so it got its test value; its live factory did not run. To fix, \(advice)")
            return testValue()
        }
        let message = """
            \(subject) was read in a test under .noLiveDependencies without an override; its live factory did not \
            run, and with no test value to return instead the test process stops here. To fix, \(advice), or give \
            the declaration a test value: dependency(LiveValue(), testValue: TestValue())
            """
        handler(message)
        fatalError("AppStateKit: \(message)")
    }
}
