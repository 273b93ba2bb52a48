import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private extension Application {
    var applicationDescribed: State<Int> { state(initial: 7, feature: "Describe", id: "seven") }
}

@Suite("Application", .isolatedApplication)
struct ApplicationTests {
    @Test("description lists every live entry, sorted, with kind, type, key and value")
    func description() {
        _ = Application.state(\.applicationDescribed).value
        Application.load(dependency: \.logger)
        let lines = Application.description.split(separator: "\n").map(String.init)
        #expect(lines.contains("State<Swift.Int> Describe.seven = 7"))
        #expect(lines == lines.sorted())
        #expect(lines.contains { $0.hasPrefix("Dependency<AppStateKit.ApplicationLogger> AppStateKit.logger = ") })
    }

    @Test("the logger dependency can be replaced to route messages anywhere")
    func replaceLogger() {
        let collected = MessageCollector()
        let override = Application.override(\.logger, with: ApplicationLogger(debug: { collected.append($0) }, error: { collected.append($0) }))
        defer { override.cancel() }
        Application.logger.error("routed")
        #expect(collected.messages == ["routed"])
    }
}
