// Written the way AppState 3.0 users write their code (XCTest, @MainActor, fileprivate
// extensions, handles as `var`, overrides kept in arrays): it must compile and pass unchanged
// against AppStateKit apart from the import.
import Foundation
import XCTest
import AppStateKit

fileprivate extension Application {
    var compatUsername: State<String> { state(initial: "Leif") }
    var compatIsLoading: State<Bool> { state(initial: false) }
    var compatColors: State<[String: String]> { state(initial: ["primary": "#A020F0"]) }
    var compatDate: State<Date> { state(initial: Date()) }
    var compatOptionalUser: State<CompatUser?> { state(initial: nil) }
    var compatUser: State<CompatUser> { state(initial: CompatUser(name: "Leif", age: 1, nickname: nil)) }
    var compatNetworking: Dependency<CompatNetworking> { dependency(CompatLiveNetworking()) }
    var compatConfig: Dependency<CompatConfig> { dependency(CompatConfig(), feature: "Compat", id: "config") }
}

fileprivate struct CompatUser: Equatable, Sendable {
    var name: String
    var age: Int
    var nickname: String?
}

fileprivate protocol CompatNetworking: Sendable {
    func fetch() -> String
}

fileprivate struct CompatLiveNetworking: CompatNetworking {
    func fetch() -> String { "live" }
}

fileprivate struct CompatMockNetworking: CompatNetworking {
    let name: String
    func fetch() -> String { name }
}

fileprivate final class CompatConfig: @unchecked Sendable {
    // Safe for this test: XCTest runs these tests one at a time.
    var retries = 1
    let region = "eu"
}

fileprivate class CompatApplication: Application {
    static func someFunction() -> String { "custom" }
}

@MainActor
fileprivate class CompatViewModel {
    @AppState(\.compatUsername) var username
    @AppState(\.compatIsLoading) var isLoading: Bool
    @AppDependency(\.compatNetworking) var networking
    @Slice(\.compatUser, \.name) var name
    @Constant(\.compatUser, \.age) var age
    @OptionalSlice(\.compatOptionalUser, \.name) var optionalName
    @OptionalSlice(\.compatOptionalUser, \.nickname) var optionalNickname
    @OptionalConstant(\.compatOptionalUser, \.age) var optionalAge
    @DependencySlice(\.compatConfig, \.retries) var retries
    @DependencyConstant(\.compatConfig, \.region) var region
}

final class AppStateStyleTests: XCTestCase {
    override func setUp() async throws {
        try await super.setUp()
        await MainActor.run {
            Application.reset(\.compatUsername)
            Application.reset(\.compatIsLoading)
            Application.reset(\.compatColors)
            Application.reset(\.compatOptionalUser)
            Application.reset(\.compatUser)
            Application.promote(\.logger, with: diagnosticLogger)   // not AppState's: keeps a green run quiet
            Application.logging(isEnabled: true)
        }
    }

    override func tearDown() async throws {
        await MainActor.run { _ = Application.logging(isEnabled: false) }
        try await super.tearDown()
    }

    @MainActor
    func testStateHandles() async {
        var appState: Application.State = Application.state(\.compatUsername)
        XCTAssertEqual(appState.value, "Leif")
        appState.value = "0xL"
        XCTAssertEqual(appState.value, "0xL")
        XCTAssertEqual(Application.state(\.compatUsername).value, "0xL")

        var colors: Application.State<[String: String]> = Application.state(\.compatColors)
        colors.value["secondary"] = "#FFFFFF"
        XCTAssertEqual(Application.state(\.compatColors).value["secondary"], "#FFFFFF")

        let date: Application.State = Application.state(\.compatDate)
        let sameDate: Application.State = Application.state(\.compatDate)
        XCTAssertEqual(date.value, sameDate.value)
    }

    @MainActor
    func testPropertyWrappers() async {
        let viewModel = CompatViewModel()
        XCTAssertEqual(viewModel.username, "Leif")
        viewModel.username = "Hello, ViewModel"
        XCTAssertEqual(Application.state(\.compatUsername).value, "Hello, ViewModel")
        viewModel.isLoading = true
        XCTAssertTrue(Application.state(\.compatIsLoading).value)
        XCTAssertEqual(viewModel.networking.fetch(), "live")

        viewModel.name = "0xL"
        XCTAssertEqual(Application.state(\.compatUser).value.name, "0xL")
        XCTAssertEqual(viewModel.age, 1)

        XCTAssertNil(viewModel.optionalName)
        var optionalUser = Application.state(\.compatOptionalUser)
        optionalUser.value = CompatUser(name: "A", age: 2, nickname: "a")
        XCTAssertEqual(viewModel.optionalName, "A")
        XCTAssertEqual(viewModel.optionalAge, 2)
        viewModel.optionalNickname = nil
        XCTAssertNil(Application.state(\.compatOptionalUser).value?.nickname)

        viewModel.retries = 5
        XCTAssertEqual(Application.dependency(\.compatConfig).retries, 5)
        XCTAssertEqual(viewModel.region, "eu")
    }

    @MainActor
    func testDependencyOverridesInArrays() async {
        XCTAssertEqual(Application.dependency(\.compatNetworking).fetch(), "live")
        var overrides: [Application.DependencyOverride] = []
        overrides.append(Application.override(\.compatNetworking, with: CompatMockNetworking(name: "first")))
        overrides.append(Application.override(\.compatNetworking, with: CompatMockNetworking(name: "second")))
        XCTAssertEqual(Application.dependency(\.compatNetworking).fetch(), "second")

        await withTaskGroup(of: Void.self) { group in
            for override in overrides {
                group.addTask { await override.cancel() }
            }
        }
        XCTAssertEqual(Application.dependency(\.compatNetworking).fetch(), "live")
    }

    @MainActor
    func testSlicesThroughApplication() async {
        var name = Application.slice(\.compatUser, \.name)
        name.value = "sliced"
        XCTAssertEqual(Application.state(\.compatUser).value.name, "sliced")
        XCTAssertEqual(Application.slice(\.compatUser, \.age).value, 1)
        XCTAssertNil(Application.slice(\.compatOptionalUser, \.name).value)
        XCTAssertEqual(Application.dependencySlice(\.compatConfig, \.region).value, "eu")
    }

    @MainActor
    func testCustomApplicationChain() {
        let applicationType = Application.logging(isEnabled: true)
            .load(dependency: \.compatNetworking)
            .promote(to: CompatApplication.self)
        XCTAssertEqual(applicationType.someFunction(), "custom")
        Application.promote(to: Application.self)
    }

    @MainActor
    func testLoggingToggle() {
        XCTAssertTrue(Application.isLoggingEnabled)
        Application.logger.debug("logged from testLoggingToggle")
        Application.logging(isEnabled: false)
        XCTAssertFalse(Application.isLoggingEnabled)
        Application.logging(isEnabled: true)
        XCTAssertFalse(Application.description.isEmpty)
    }
}
