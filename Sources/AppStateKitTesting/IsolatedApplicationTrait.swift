import AppStateKit
public import Testing

/// A Swift Testing trait that runs each test against a fresh, private application.
///
/// Apply it to a test or a whole suite (it is recursive: every test inside gets its own
/// isolated application):
///
/// ```swift
/// @Suite(.isolatedApplication)
/// struct CounterTests {
///     @Test func increments() {
///         Application.update(\.counter) { $0 += 1 }
///         #expect(Application.state(\.counter).value == 1)   // whatever other tests do
///     }
/// }
/// ```
///
/// See ``AppStateKit/Application/withIsolatedApplication(_:)-(()->R)`` for what is isolated.
///
/// Hidden from the documentation: tests name it only through `.isolatedApplication`.
@_documentation(visibility: private)
public struct IsolatedApplicationTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test in a suite.
    public var isRecursive: Bool { true }

    /// Runs the test inside `Application.withIsolatedApplication`.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        // The suite itself gets no scope of its own: each test case gets a fresh one.
        guard testCase != nil || !test.isSuite else {
            try await function()
            return
        }
        try await Application.withIsolatedApplication {
            try await function()
        }
    }
}

extension Trait where Self == IsolatedApplicationTrait {
    /// Runs each test against a fresh, private application (see
    /// ``AppStateKit/Application/withIsolatedApplication(_:)-(()->R)`` for what is isolated).
    public static var isolatedApplication: Self {
        TestRunRegistration.installed
        return IsolatedApplicationTrait()
    }
}
