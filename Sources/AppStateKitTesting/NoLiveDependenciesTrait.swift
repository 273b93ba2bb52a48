import AppStateKit
public import Testing

/// A Swift Testing trait under which a dependency the test did not override, created by its
/// live factory, is a recorded test failure naming it.
///
/// A test that forgets to override a dependency otherwise silently uses the live one (a fetch
/// goes to the network). Under `.noLiveDependencies` it fails instead:
///
/// ```swift
/// @Test(.isolatedApplication, .noLiveDependencies, .overriding(\.api, with: MockAPIClient()))
/// func loadsProfile() async throws {
///     try await ProfileLoader().load()   // any other dependency it reaches is a failure
/// }
/// ```
///
/// The failure names the dependency and where it is declared:
/// `Dependency<Payments> App.payments was created by its live factory in a test under
/// .noLiveDependencies; override it …`. To use a live dependency on purpose, override it with a
/// live value (`.overriding(\.clock, with: ContinuousClock())`).
///
/// Use it with ``AppStateKit/Application/withIsolatedApplication(_:)-(()->R)`` (`.isolatedApplication`):
/// there every dependency starts without an instance, so every dependency the test reaches and
/// did not override is caught. In the shared application, a dependency that already exists is
/// not created again and so not reported. AppStateKit's own dependencies (`\.logger`,
/// `\.fileManager`, `\.userDefaults`, `\.syncStore`) are never reported: an isolated
/// application keeps them private already. A factory that runs in a task the test starts is
/// caught too; one that runs in a detached task or on another thread is not.
///
/// Hidden from the documentation: tests name it only through `.noLiveDependencies`.
@_documentation(visibility: private)
public struct NoLiveDependenciesTrait: TestTrait, SuiteTrait, TestScoping {
    /// Applies to every test in a suite.
    public var isRecursive: Bool { true }

    /// Runs the test with live dependency creations recorded as issues.
    public func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        guard testCase != nil || !test.isSuite else {
            try await function()
            return
        }
        let location = test.sourceLocation
        try await LiveDependencyCheck.$handler.withValue({ dependency in
            Issue.record(
                "\(dependency) was created by its live factory in a test under .noLiveDependencies; override it (.overriding(_:with:) or Application.withOverrides), with a live value if the live one is wanted",
                sourceLocation: location
            )
        }) {
            try await function()
        }
    }
}

extension Trait where Self == NoLiveDependenciesTrait {
    /// Records a test failure naming each dependency the test did not override that its live
    /// factory creates (see ``NoLiveDependenciesTrait``).
    public static var noLiveDependencies: Self {
        TestRunRegistration.installed
        return NoLiveDependenciesTrait()
    }
}
