import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private struct Profile: Equatable, Sendable {
    var name = "guest"
    var age = 0
    var email: String? = nil
    let id = 7
}

private final class Client: @unchecked Sendable {
    // Safe for this test: one test uses it at a time.
    var retries = 3
    let host = "localhost"
}

private extension Application {
    var wrapperCount: State<Int> { state(initial: 0) }
    var wrapperProfile: State<Profile> { state(initial: Profile()) }
    var wrapperOptionalProfile: State<Profile?> { state(initial: nil) }
    var wrapperClient: Dependency<Client> { dependency(Client()) }
    var wrapperStored: StoredState<String> { storedState(initial: "none", feature: "Wrappers", id: "stored", store: wrapperStore) }
}

private struct ViewModel {
    @AppState(\.wrapperCount) var count
    @AppState(\.wrapperCount) var typedCount: Int
    @AppDependency(\.wrapperClient) var client
    @Slice(\.wrapperProfile, \.name) var name
    @Constant(\.wrapperProfile, \.id) var id
    @Constant(\.wrapperProfile, \.age) var ageConstant
    @OptionalSlice(\.wrapperOptionalProfile, \.age) var optionalAge
    @OptionalSlice(\.wrapperOptionalProfile, \.email) var optionalEmail
    @OptionalConstant(\.wrapperOptionalProfile, \.id) var optionalID
    @OptionalConstant(\.wrapperOptionalProfile, \.email) var optionalEmailConstant
    @DependencySlice(\.wrapperClient, \.retries) var retries
    @DependencyConstant(\.wrapperClient, \.host) var host
}

/// The same wrappers made from key paths held in variables: these select the key-path
/// initializers (literals select the function ones).
private struct VariableKeyPathModel {
    static let countPath: KeyPath<Application, Application.State<Int>> & Sendable = \.wrapperCount
    static let clientPath: KeyPath<Application, Application.Dependency<Client>> & Sendable = \.wrapperClient
    static let storedPath: KeyPath<Application, Application.StoredState<String>> & Sendable = \.wrapperStored

    @AppState(countPath) var count
    @AppDependency(clientPath) var client
    @StoredState(storedPath) var stored
}

private let wrapperStore = InMemoryDefaults()

private final class WrapperApplication: Application {}

private final class Controller {
    @AppState(\.wrapperCount) var count
}

private actor Worker {
    @AppState(\.wrapperCount) var count
    @AppDependency(\.wrapperClient) var client

    func bump() -> Int {
        count += 1
        return count
    }
}

@Suite("Property wrappers", .isolatedApplication)
struct PropertyWrapperTests {
    @Test("@AppState reads and writes in structs, classes and actors")
    func appState() async {
        let model = ViewModel()
        model.count = 5
        #expect(Controller().count == 5)
        #expect(model.typedCount == 5)
        #expect(await Worker().bump() == 6)
        #expect(Application.state(\.wrapperCount).value == 6)
        Application.reset(\.wrapperCount)
        #expect(model.count == 0)
    }

    @Test("@AppDependency, @DependencySlice and @DependencyConstant")
    func dependencies() async {
        let model = ViewModel()
        #expect(model.client === Application.dependency(\.wrapperClient))
        #expect(await Worker().client === model.client)
        model.retries = 9
        #expect(Application.dependency(\.wrapperClient).retries == 9)
        #expect(model.host == "localhost")
    }

    @Test("@Slice and @Constant")
    func slices() {
        let model = ViewModel()
        model.name = "leif"
        #expect(Application.state(\.wrapperProfile).value.name == "leif")
        #expect(model.id == 7)
        var profile = Application.state(\.wrapperProfile)
        profile.value.age = 30
        #expect(model.ageConstant == 30)
    }

    @Test("@OptionalSlice and @OptionalConstant follow an optional parent")
    func optionalSlices() {
        let model = ViewModel()
        #expect(model.optionalAge == nil)
        #expect(model.optionalID == nil)
        model.optionalAge = 3
        #expect(Application.state(\.wrapperOptionalProfile).value == nil)

        var parent = Application.state(\.wrapperOptionalProfile)
        parent.value = Profile()
        model.optionalAge = 3
        model.optionalEmail = "a@b.c"
        #expect(model.optionalAge == 3)
        #expect(model.optionalID == 7)
        #expect(model.optionalEmailConstant == "a@b.c")
        model.optionalAge = nil
        #expect(model.optionalAge == 3)
        model.optionalEmail = nil
        #expect(Application.state(\.wrapperOptionalProfile).value?.email == nil)
        parent.value = nil
    }

    @Test("wrappers made from key paths in variables reach the same entries as literals, in and out of scopes")
    func keyPathVariables() async {
        let literal = ViewModel()
        let variable = VariableKeyPathModel()
        variable.count = 41
        #expect(literal.count == 41)
        literal.count += 1
        #expect(variable.count == 42)
        #expect(variable.client === literal.client)
        variable.stored = "kept"
        #expect(Application.storedState(\.wrapperStored).value == "kept")

        let mock = Client()
        Application.withOverrides { $0.override(\.wrapperClient, with: mock) } operation: {
            #expect(variable.client === mock)
            #expect(literal.client === mock)
        }
        #expect(variable.client !== mock)
        Application.withIsolatedApplication {
            #expect(variable.count == 0)
            variable.count = 7
            #expect(literal.count == 7)
        }
        #expect(literal.count == 42)
        Application.reset(\.wrapperCount)
        Application.reset(\.wrapperStored)
    }

    /// The wrappers keep a closure made from the key path (issue 44): one wrapper value, made
    /// first, must still evaluate its declaration on every read, wherever and whenever it runs.
    @Test("one wrapper follows removals, promotions, isolation scopes, overrides and other threads")
    func wrapperFollowsLaterChanges() async {
        let model = ViewModel()
        model.count = 3
        let firstClient = model.client

        #expect(Application.remove(state: Application.state(\.wrapperCount)))
        #expect(model.count == 0)
        model.count = 4
        #expect(Application.state(\.wrapperCount).value == 4)
        #expect(Application.remove(dependency: \.wrapperClient))
        #expect(model.client !== firstClient)
        #expect(model.client === Application.dependency(\.wrapperClient))

        let promoted = Client()
        Application.promote(\.wrapperClient, with: promoted)
        #expect(model.client === promoted)

        Application.promote(to: WrapperApplication.self)
        #expect(Application.current is WrapperApplication)
        #expect(model.count == 4)
        model.count = 5
        #expect(Application.state(\.wrapperCount).value == 5)
        #expect(model.client === promoted)
        Application.promote(to: Application.self)
        #expect(model.count == 5)

        Application.withIsolatedApplication {
            #expect(model.count == 0)
            #expect(model.client !== promoted)
            model.count = 9
        }
        let mock = Client()
        Application.withOverrides { $0.override(\.wrapperClient, with: mock) } operation: {
            #expect(model.client === mock)
            #expect(model.count == 5)
        }
        #expect(model.client === promoted)

        // Read on the pool's threads at once, inside and outside a scope of the task's own.
        let reads = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<16 {
                group.addTask {
                    guard index.isMultiple(of: 2) else { return model.client === promoted && model.count == 5 }
                    return Application.withOverrides { $0.override(\.wrapperClient, with: mock) } operation: {
                        model.client === mock && model.count == 5
                    }
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(reads == Array(repeating: true, count: 16))
        #expect(model.client === promoted)
        Application.reset(\.wrapperCount)
    }
}
