import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

// `logging(isEnabled:)` is process-wide, so each test runs in a child process (an exit test)
// with the default logger, which writes to standard error, and reads what it wrote. The parent
// touches no process global, so the suite needs no place in ProcessGlobalTests.

final class DebugLoggingApp: Application {}

private extension Application {
    var debugCounter: State<Int> { state(initial: 0, feature: "Logging", id: "counter") }
    var debugService: Dependency<String> { dependency("live", feature: "Logging", id: "service") }
    var debugStored: StoredState<Int> { storedState(initial: 0, feature: "Logging", id: "stored") }
    var debugFile: FileState<Int> { fileState(initial: 0, filename: "logging.json") }
}

/// Creates, overrides and promotes entries, in an isolated application.
private func exerciseEntries() {
    Application.withIsolatedApplication {
        _ = Application.state(\.debugCounter).value
        _ = Application.state(\.debugCounter).value
        _ = Application.dependency(\.debugService)
        let override = Application.override(\.debugService, with: "mock")
        override.cancel()
        Application.promote(\.debugService, with: "promoted")
        Application.promote(to: DebugLoggingApp.self)
        _ = Application.storedState(\.debugStored).value
        _ = Application.fileState(\.debugFile).value
    }
}

@Suite("Debug messages", .isolatedApplication)
struct DebugMessageTests {
    @Test("with logging enabled, AppStateKit reports creations, overrides and promotions")
    func messagesWhenEnabled() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            Application.logging(isEnabled: true)
            exerciseEntries()
        }
        let lines = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            .split(separator: "\n").map(String.init)
        #expect(lines.filter { $0 == "AppStateKit: created State<Swift.Int> Logging.counter" }.count == 1)
        #expect(lines.contains("AppStateKit: created Dependency<Swift.String> Logging.service"))
        #expect(lines.contains("AppStateKit: installed an override of Dependency<Swift.String> Logging.service"))
        #expect(lines.contains("AppStateKit: cancelled an override of Dependency<Swift.String> Logging.service"))
        #expect(lines.contains("AppStateKit: promoted Dependency<Swift.String> Logging.service to a new instance"))
        #expect(lines.contains { $0.hasPrefix("AppStateKit: promoted the application to AppStateKitTests.DebugLoggingApp") })
        #expect(lines.contains("AppStateKit: created StoredState<Swift.Int> Logging.stored"))
        // The file the isolated application uses, in its sandbox, not the declared path.
        let fileLine = lines.first { $0.hasPrefix("AppStateKit: created FileState<Swift.Int> ") }
        #expect(fileLine?.hasSuffix("/logging.json") == true)
        #expect(fileLine?.contains("/AppStateKit-isolated-") == true)
    }

    @Test("with logging disabled (the default), AppStateKit writes no debug message")
    func silentWhenDisabled() async throws {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            exerciseEntries()
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(result != nil)
        #expect(!output.contains("AppStateKit:"))
    }
}
