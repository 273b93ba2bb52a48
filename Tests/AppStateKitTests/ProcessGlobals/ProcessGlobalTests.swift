import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private final class CustomApplication: Application {
    static func marker() -> String { "custom" }
}

fileprivate extension Application {
    var globalCarried: State<String> { state(initial: "before") }
    var sharedObservedA: State<Int> { state(initial: 0) }
    var sharedObservedB: State<Int> { state(initial: 0) }
    var sharedObservedC: State<Int> { state(initial: 0) }
}

/// The tests of what the whole process shares: the logging flag, `FileManager.defaultFileStatePath`
/// and the shared application (promotion to a subclass, its observers, its registry seen from
/// isolated scopes, real files another process writes). They run one at a time; every other
/// suite runs in its own isolated application (`.isolatedApplication`) and never touches these.
///
/// Suites nested in this one (in extensions, next to their helpers) are serialized with it.
@Suite("Process globals", .serialized)
struct ProcessGlobalTests {
    // MARK: The shared application

    @Test("promote(to:) swaps in a subclass instance, carries entries over, and back")
    func promoteToSubclass() {
        var carried = Application.state(\.globalCarried)
        carried.value = "kept"
        let type = Application.promote(to: CustomApplication.self)
        #expect(type.marker() == "custom")
        #expect(Application.shared is CustomApplication)
        #expect(Application.state(\.globalCarried).value == "kept")

        var again = Application.state(\.globalCarried)
        again.value = "changed in subclass"
        Application.promote(to: Application.self)
        #expect(!(Application.shared is CustomApplication))
        #expect(Application.state(\.globalCarried).value == "changed in subclass")
        Application.reset(\.globalCarried)
    }

    @Test("calls chain like AppState's")
    func chaining() {
        Application.promote(\.logger, with: diagnosticLogger)   // its debug messages are diagnostics
        let type = Application.logging(isEnabled: true)
            .load(dependency: \.logger)
            .promote(to: CustomApplication.self)
        #expect(type.marker() == "custom")
        #expect(Application.isLoggingEnabled)
        #expect(Application.shared is CustomApplication)
        Application.logging(isEnabled: false).promote(to: Application.self)
        #expect(!Application.isLoggingEnabled)
        #expect(!(Application.shared is CustomApplication))
    }

    @Test("observer of A is not fired by writes to B")
    func perEntry() {
        let changes = trackChanges { _ = Application.state(\.sharedObservedA).value }
        _ = Application.state(\.sharedObservedA).value
        Application.update(\.sharedObservedB) { $0 += 1 }
        #expect(changes.value == 0)
        Application.update(\.sharedObservedA) { $0 += 1 }
        #expect(changes.value == 1)
    }

    @Test("notifyChange on an isolated application leaves the shared application's observers alone")
    func notifyChangeIsPerApplication() {
        let shared = trackChanges { _ = Application.state(\.sharedObservedC).value }
        Application.withIsolatedApplication {
            let isolated = trackChanges { _ = Application.state(\.sharedObservedC).value }
            Application.notifyChange()
            #expect(isolated.value == 1)
        }
        #expect(shared.value == 0)
        Application.notifyChange()
        #expect(shared.value == 1)
    }

    // MARK: The logging flag

    @Test("debug messages are not even built while logging is disabled")
    func loggingCostsNothingWhenDisabled() {
        let built = CallCounter()
        let collected = MessageCollector()
        let logger = ApplicationLogger(debug: { collected.append($0) }, error: { collected.append("error: \($0)") })

        Application.logging(isEnabled: false)
        #expect(!Application.isLoggingEnabled)
        logger.debug { built.increment(); return "expensive" }
        #expect(built.value == 0)

        Application.logging(isEnabled: true)
        logger.debug { built.increment(); return "expensive" }
        logger.debug("plain")
        #expect(built.value == 1)
        Application.logging(isEnabled: false)

        logger.error("always")
        #expect(collected.messages == ["expensive", "plain", "error: always"])
    }

    // MARK: FileManager.defaultFileStatePath

    @Test("defaultFileStatePath follows XDG and can be set")
    func defaultFileStatePath() {
        let original = FileManager.defaultFileStatePath
        defer { FileManager.defaultFileStatePath = original }
        #expect(original.hasPrefix("/"))
        if let dataHome = ProcessInfo.processInfo.environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            #expect(original.hasPrefix(dataHome))
        } else {
            #expect(original.contains("/.local/share/"))
        }
        FileManager.defaultFileStatePath = "/tmp/custom"
        #expect(FileManager.defaultFileStatePath == "/tmp/custom")
    }
}
