// Dependencies used the way AppState 3.0 code uses them: a bare protocol type, a main-actor
// class as a dependency that itself uses @AppDependency, promote in setUp, `await cancel()`.
import XCTest
import AppStateKit

fileprivate protocol CompatFetching: Sendable {
    func fetch() -> String
}

fileprivate final class CompatNetworkService: CompatFetching {
    func fetch() -> String { "network" }
}

fileprivate final class CompatMockFetching: CompatFetching {
    func fetch() -> String { "mock" }
}

@MainActor
fileprivate class CompatComposableService {
    @AppDependency(\.compatFetching) var networking: CompatFetching
}

fileprivate extension Application {
    var compatFetching: Dependency<CompatFetching> {
        dependency(CompatNetworkService())
    }

    @MainActor
    var compatComposableService: Dependency<CompatComposableService> {
        dependency(CompatComposableService())
    }
}

fileprivate struct CompatDependencyWrapper {
    @AppDependency(\.compatFetching) private var networking

    @MainActor
    func fetch() -> String {
        networking.fetch()
    }
}

@MainActor
final class AppStateDependencyStyleTests: XCTestCase {
    override func setUp() async throws {
        Application
            .logging(isEnabled: false)
            .promote(\.compatFetching, with: CompatMockFetching())
    }

    func testComposableDependencies() {
        let composableService = Application.dependency(\.compatComposableService)
        XCTAssertEqual(composableService.networking.fetch(), "mock")
    }

    func testDependency() async {
        Application.promote(\.compatFetching, with: CompatNetworkService())
        let networkingOverride = Application.override(\.compatFetching, with: CompatMockFetching())
        let mockNetworking = Application.dependency(\.compatFetching)
        XCTAssertNotNil(mockNetworking as? CompatMockFetching)
        XCTAssertEqual(CompatDependencyWrapper().fetch(), "mock")
        await networkingOverride.cancel()
        XCTAssertNotNil(Application.dependency(\.compatFetching) as? CompatNetworkService)
    }
}
