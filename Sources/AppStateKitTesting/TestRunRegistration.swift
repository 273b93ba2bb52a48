import AppStateKit
import Testing

/// Tells AppStateKit how to name the running test (Swift Testing's `Test.current`), so it can
/// warn a test that uses persisted state outside an isolated application. Runs when a test names
/// one of this library's traits: Swift Testing builds the traits while it discovers the tests,
/// before any test runs.
enum TestRunRegistration {
    static let installed: Void = {
        UnisolatedPersistenceNotice.install(runningTest: { Test.current.map { "\"\($0.displayName ?? $0.name)\"" } })
    }()
}
