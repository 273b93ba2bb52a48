// The snippets of Documentation/StateAndDependencies.md and Concurrency.md, compiled and run.
import Foundation
import Testing
import AppStateKit

protocol SnippetAPIClient: Sendable { func fetch() -> String }
struct SnippetLiveAPIClient: SnippetAPIClient { func fetch() -> String { "live" } }
struct SnippetStagingAPIClient: SnippetAPIClient { func fetch() -> String { "staging" } }
struct SnippetMockAPIClient: SnippetAPIClient { func fetch() -> String { "mock" } }
enum SnippetTheme: Sendable { case light, dark }
struct SnippetSettings: Sendable { var theme = SnippetTheme.light; let version = "1.0" }
struct SnippetConfig: Sendable { let region = "eu" }
final class SnippetDatabase: Sendable {}

extension Application {
    var snippetCounter: State<Int> { state(initial: 0) }
    var snippetAPI: Dependency<any SnippetAPIClient> { dependency(SnippetLiveAPIClient()) }
    var snippetRequests: State<Int> { state(initial: 0, feature: "SnippetMetrics", id: "requests") }
    var snippetRequestCount: State<Int> { state(initial: 0, feature: "SnippetMetrics", id: "requests") }
    var snippetSettings: State<SnippetSettings> { state(initial: SnippetSettings()) }
    var snippetConfig: Dependency<SnippetConfig> { dependency(SnippetConfig()) }
    var snippetDatabase: Dependency<SnippetDatabase> { dependency(SnippetDatabase()) }
    var snippetCache: Dependency<[String: String]> { dependency([:]) }
}

private actor SnippetRecorder {
    func record() -> Int {
        Application.update(\.snippetRequestCount) { $0 += 1; return $0 }
    }
}

private struct SnippetSettingsScreen {
    @AppState(\.snippetCounter) var counter
    @AppDependency(\.snippetAPI) var api
    @Slice(\.snippetSettings, \.theme) var theme
    @Constant(\.snippetSettings, \.version) var version
}

private final class SnippetApp: Application {
    static func bootstrap() { load(dependency: \.snippetDatabase) }
}

@Suite("Documentation snippets: state and dependencies", .serialized)
struct StateAndDependenciesSnippets {
    @Test func identityAcrossDeclarations() {
        Application.update(\.snippetRequests) { $0 += 1 }
        #expect(Application.state(\.snippetRequestCount).value == Application.state(\.snippetRequests).value)
    }

    @Test func stateSnippet() async {
        var counter = Application.state(\.snippetCounter)
        counter.value += 1
        Application.update(\.snippetCounter) { $0 += 1 }
        #expect(Application.state(\.snippetCounter).value == 2)
        Application.reset(\.snippetCounter)
        #expect(Application.state(\.snippetCounter).value == 0)
        #expect(await SnippetRecorder().record() >= 1)
    }

    @Test func dependencySnippets() {
        #expect(Application.dependency(\.snippetAPI).fetch() == "live")
        Application.load(dependency: \.snippetDatabase).load(dependency: \.snippetCache)
        let override = Application.override(\.snippetAPI, with: SnippetMockAPIClient())
        #expect(Application.dependency(\.snippetAPI).fetch() == "mock")
        override.cancel()
        Application.promote(\.snippetAPI, with: SnippetStagingAPIClient())
        #expect(Application.dependency(\.snippetAPI).fetch() == "staging")
        Application.promote(\.snippetAPI, with: SnippetLiveAPIClient())
    }

    @Test func sliceAndWrapperSnippets() {
        var theme = Application.slice(\.snippetSettings, \.theme)
        theme.value = .dark
        #expect(Application.dependencySlice(\.snippetConfig, \.region).value == "eu")
        let screen = SnippetSettingsScreen()
        #expect(screen.theme == .dark)
        #expect(screen.version == "1.0")
        #expect(screen.api.fetch() == "live")
        _ = screen.counter
    }

    @Test func subclassAndDescriptionSnippets() {
        Application.promote(to: SnippetApp.self).bootstrap()
        Application.promote(to: Application.self)
        Application.logging(isEnabled: true)
        #expect(Application.description.contains("SnippetDatabase"))
        Application.logging(isEnabled: false)
        Application.promote(\.logger, with: ApplicationLogger(debug: { _ in }, error: { _ in }))
        Application.promote(\.logger, with: ApplicationLogger())
    }
}
