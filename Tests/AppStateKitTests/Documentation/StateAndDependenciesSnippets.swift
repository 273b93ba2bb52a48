// The snippets of Documentation/StateAndDependencies.md, verbatim, compiled and run. Keep the two
// in step. (The reader's own types are stand-ins in DocumentationStandIns.swift.)
import AppStateKit
import AppStateKitTesting
import Testing

/// The guide's `print` calls stay verbatim; in this file they print only as test diagnostics
/// (APPSTATEKIT_TEST_DIAGNOSTICS, see TestDiagnostics.swift), so a green run stays quiet.
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    diagnostic(items.map { "\($0)" }.joined(separator: separator))
}

extension Application {
    var counter: State<Int> { state(initial: 0) }
    var api: Dependency<any APIClient> { dependency(LiveAPIClient()) }
}

// Two files, one entry:
extension Application {                       // Metrics.swift
    var requests: State<Int> { state(initial: 0, feature: "Metrics", id: "requests") }
}
extension Application {                       // Dashboard.swift
    var requestCount: State<Int> { state(initial: 0, feature: "Metrics", id: "requests") }
}

struct SettingsScreen {
    @AppState(\.counter) var counter
    @AppDependency(\.api) var api
    @Slice(\.settings, \.theme) var theme
    @Constant(\.settings, \.version) var version
}

@Suite("State and dependencies guide snippets", .isolatedApplication)
struct StateAndDependenciesSnippets {
    @Test func identityAcrossDeclarations() {
        Application.update(\.requests) { $0 += 1 }
        #expect(Application.state(\.requestCount).value == 1)
    }

    @Test func state() {
        let changes = trackChanges { _ = Application.state(\.counter).value }
        var counter = Application.state(\.counter)
        counter.value += 1                         // atomic: the entry stays locked from read to write
        Application.update(\.counter) { $0 += 1 }  // the same, as a closure that can return a result
        Application.reset(\.counter)               // back to the initial value

        #expect(changes.value == 1, "the first write changed the counter")
        #expect(counter.value == 0)
        Application.update(\.counter) { $0 += 1 }
        #expect(counter.value == 1)
    }

    @Test func dependencies() {
        let api = Application.dependency(\.api)
        #expect(api.fetch() == "live")

        Application.load(dependency: \.database).load(dependency: \.cache)
        #expect(Application.description.contains("GuideDatabase"))
        #expect(Application.description.contains("GuideCache"))

        Application.promote(\.api, with: StagingAPIClient())

        let override = Application.override(\.api, with: MockAPIClient())
        override.cancel()   // or let the last reference go

        #expect(Application.dependency(\.api).fetch() == "staging")
        let again = Application.override(\.api, with: MockAPIClient())
        #expect(Application.dependency(\.api).fetch() == "mock")
        again.cancel()
    }

    @Test func slicesAndWrappers() {
        var theme = Application.slice(\.settings, \.theme)   // writable member of a State
        theme.value = .dark
        let region = Application.dependencySlice(\.config, \.region).value

        #expect(Application.state(\.settings).value.theme == .dark)
        #expect(region == "eu")
        let screen = SettingsScreen()
        #expect(screen.theme == .dark)
        #expect(screen.version == "1.0")
        #expect(screen.api.fetch() == "live")
        screen.counter = 3
        #expect(Application.state(\.counter).value == 3)
    }

    @Test func subclass() {
        final class MyApp: Application {
            static func bootstrap() { load(dependency: \.database) }
        }
        Application.promote(to: MyApp.self).bootstrap()

        #expect(Application.description.contains("GuideDatabase"))
    }

    @Test func routingMessages() {
        let log = Logger(label: "app")
        Application.promote(\.logger, with: ApplicationLogger(debug: { log.debug("\($0)") }, error: { log.error("\($0)") }))

        Application.logger.error("routed")
        #expect(log.messages == ["error: routed"])
    }
}

extension ProcessGlobalTests {
    /// Turns on the process-wide logging flag.
    @Suite("State and dependencies guide snippets: logging")
    struct StateAndDependenciesLoggingSnippets {
        @Test func loggingAndDescription() {
            defer { Application.logging(isEnabled: false) }
            Application.logging(isEnabled: true)   // debug messages (errors are always reported)
            print(Application.description)        // every live entry: kind, type, key, value

            #expect(Application.isLoggingEnabled)
        }
    }
}
