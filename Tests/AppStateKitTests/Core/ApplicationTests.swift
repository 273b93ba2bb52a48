import Testing
@testable import AppStateKit

private final class CustomApplication: Application {
    static func marker() -> String { "custom" }
}

private extension Application {
    var applicationCarried: State<String> { state(initial: "before") }
    var applicationDescribed: State<Int> { state(initial: 7, feature: "Describe", id: "seven") }
}

@Suite("Application", .serialized)
struct ApplicationTests {
    @Test("promote(to:) swaps in a subclass instance, carries entries over, and back")
    func promoteToSubclass() {
        var carried = Application.state(\.applicationCarried)
        carried.value = "kept"
        let type = Application.promote(to: CustomApplication.self)
        #expect(type.marker() == "custom")
        #expect(Application.shared is CustomApplication)
        #expect(Application.state(\.applicationCarried).value == "kept")

        var again = Application.state(\.applicationCarried)
        again.value = "changed in subclass"
        Application.promote(to: Application.self)
        #expect(!(Application.shared is CustomApplication))
        #expect(Application.state(\.applicationCarried).value == "changed in subclass")
        Application.reset(\.applicationCarried)
    }

    @Test("calls chain like AppState's")
    func chaining() {
        let type = Application.logging(isEnabled: false)
            .load(dependency: \.logger)
            .promote(to: CustomApplication.self)
        #expect(type.marker() == "custom")
        Application.promote(to: Application.self)
    }

    @Test("description lists every live entry, sorted, with kind, type, key and value")
    func description() {
        _ = Application.state(\.applicationDescribed).value
        let lines = Application.description.split(separator: "\n").map(String.init)
        #expect(lines.contains("State<Swift.Int> Describe.seven = 7"))
        #expect(lines == lines.sorted())
        #expect(lines.contains { $0.hasPrefix("Dependency<AppStateKit.ApplicationLogger> AppStateKit.logger = ") })
    }

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

    @Test("the logger dependency can be replaced to route messages anywhere")
    func replaceLogger() {
        let collected = MessageCollector()
        let override = Application.override(\.logger, with: ApplicationLogger(debug: { collected.append($0) }, error: { collected.append($0) }))
        defer { override.cancel() }
        Application.logger.error("routed")
        #expect(collected.messages == ["routed"])
    }
}
