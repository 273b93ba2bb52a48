public import AppStateKit
public import Testing

/// A Swift Testing trait that overrides one dependency for a test, or for each test of a suite.
///
/// ```swift
/// @Test(.isolatedApplication, .overriding(\.api, with: MockAPI()))
/// func loadsProfile() async throws { … }
/// ```
///
/// The value is an autoclosure evaluated once per test, so parallel tests never share an
/// instance. The override is scoped to the test's task and its children.
///
/// Hidden from the documentation: tests name it only through `.overriding(_:with:)`.
@_documentation(visibility: private)
public struct OverridingTrait<Value: Sendable>: TestTrait, SuiteTrait, TestScoping {
    let keyPath: any KeyPath<Application, Application.Dependency<Value>> & Sendable
    let makeValue: @Sendable () -> Value

    /// Applies to every test in a suite.
    public var isRecursive: Bool { true }

    /// Runs the test inside `Application.withOverrides`.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil || !test.isSuite else {
            try await function()
            return
        }
        let keyPath = keyPath
        let value = makeValue()
        try await Application.withOverrides {
            $0.override(keyPath, with: value)
        } operation: {
            try await function()
        }
    }
}

extension Trait {
    /// Overrides the dependency at `keyPath` with a fresh `value` for each test.
    ///
    /// ```swift
    /// @Test(.overriding(\.clock, with: FixedClock()))
    /// ```
    public static func overriding<Value: Sendable>(
        _ keyPath: any KeyPath<Application, Application.Dependency<Value>> & Sendable,
        with value: @autoclosure @escaping @Sendable () -> Value
    ) -> Self where Self == OverridingTrait<Value> {
        TestRunRegistration.installed
        return OverridingTrait(keyPath: keyPath, makeValue: value)
    }
}
