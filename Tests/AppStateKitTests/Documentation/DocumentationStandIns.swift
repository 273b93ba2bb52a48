// The reader's own types and functions that the guides' snippets use, as small stand-ins.
// The snippets themselves are in the other files of this folder, verbatim; .ci/steps/25-doc-snippets.sh
// fails when a ```swift block of README.md, Documentation/ or the DocC catalog is not.
import AppStateKit
import AppStateKitTesting
import Foundation

// MARK: StateAndDependencies.md and Testing.md

protocol APIClient: Sendable { func fetch() -> String }
struct LiveAPIClient: APIClient { func fetch() -> String { "live" } }
struct StagingAPIClient: APIClient { func fetch() -> String { "staging" } }
struct MockAPIClient: APIClient { func fetch() -> String { "mock" } }

enum GuideTheme: Sendable { case light, dark }
struct GuideSettings: Sendable {
    var theme = GuideTheme.light
    let version = "1.0"
}
struct GuideConfig: Sendable { let region = "eu" }
final class GuideDatabase: Sendable {}
struct GuideCache: Sendable {}

extension Application {
    var settings: State<GuideSettings> { state(initial: GuideSettings()) }
    var config: Dependency<GuideConfig> { dependency(GuideConfig()) }
    var database: Dependency<GuideDatabase> { dependency(GuideDatabase()) }
    var cache: Dependency<GuideCache> { dependency(GuideCache()) }
}

/// swift-log's `Logger`, as far as the guide uses it; keeps what it is given.
final class Logger: Sendable {
    let label: String
    private let logged = Locked<[String]>([])

    init(label: String) { self.label = label }

    func debug(_ message: String) { logged.withLock { $0.append("debug: \(message)") } }
    func error(_ message: String) { logged.withLock { $0.append("error: \(message)") } }
    var messages: [String] { logged.withLock { $0 } }
}

// MARK: Testing.md

protocol Payments: Sendable { func charge() -> Bool }
struct LivePayments: Payments { func charge() -> Bool { false } }
struct MockPayments: Payments { func charge() -> Bool { true } }
struct RefusingPayments: Payments { func charge() -> Bool { false } }

// Testing.md's declaration with a test value, verbatim.
extension Application {
    var payments: Dependency<any Payments> { dependency(LivePayments(), testValue: RefusingPayments()) }
}

extension Application {
    var orders: State<[Int]> { state(initial: []) }
}

/// Charges, and records an order when the charge went through.
func checkout() async throws {
    if Application.dependency(\.payments).charge() { Application.update(\.orders) { $0.append(1) } }
}

/// Builds a report from the clock and the API client in use.
func makeReport() -> String {
    "\(Application.dependency(\.clock) is TestClock ? "test clock" : "real clock"), \(Application.dependency(\.api).fetch())"
}

/// The work a snippet hands to another thread: records whether it ran isolated.
let handledIsolated = Locked<[Bool]>([])
func handle() { handledIsolated.withLock { $0.append(Application.currentContext.isIsolated) } }

// MARK: Persistence.md and ErrorHandling.md

struct TodoItem: Codable, Equatable, Sendable { var title: String }
