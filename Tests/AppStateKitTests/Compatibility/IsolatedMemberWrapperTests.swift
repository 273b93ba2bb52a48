// AppState code reads a `@MainActor @Observable` view model, held as a dependency, through the
// slice and constant wrappers; a key path to such a model's member isn't `Sendable`. Each wrapper
// and `Application.slice`/`dependencySlice` must take it, and stay `Sendable` for the key paths
// that are. AppState's override token has an `async` `cancel()` that its code awaits.
import AppStateKitTesting
import Observation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

@MainActor @Observable
fileprivate final class CompatProfileModel {
    var username: String? = nil
    var visits = 0
    let title = "Profile"

    nonisolated init() {}
}

/// A main-actor value type: its members' key paths aren't `Sendable` either.
@MainActor
fileprivate struct CompatScreen: Sendable {
    var heading = "Welcome"
    var subtitle: String? = "first run"
    let build = 7
}

fileprivate struct CompatPlainSettings: Sendable {
    var theme = "light"
    var nickname: String? = nil
    let version = "1.0"
}

fileprivate final class CompatPlainConfig: @unchecked Sendable {
    // Safe for this test: written and read from one test at a time.
    var timeout = 30
    let region = "eu"
}

fileprivate extension Application {
    var compatProfileModel: Dependency<CompatProfileModel> { dependency(CompatProfileModel()) }
    /// Isolated like every member of AppState's main-actor `Application`: its key path isn't
    /// `Sendable`.
    @MainActor var compatIsolatedProfileModel: Dependency<CompatProfileModel> { dependency(CompatProfileModel()) }
    var compatScreen: State<CompatScreen> { state(initial: CompatScreen()) }
    var compatOptionalScreen: State<CompatScreen?> { state(initial: nil) }
    var compatPlainSettings: State<CompatPlainSettings> { state(initial: CompatPlainSettings()) }
    var compatOptionalPlainSettings: State<CompatPlainSettings?> { state(initial: CompatPlainSettings()) }
    var compatPlainConfig: Dependency<CompatPlainConfig> { dependency(CompatPlainConfig()) }
}

/// The SwiftUI shape: a main-actor struct reading the model through every wrapper.
@MainActor
fileprivate struct CompatProfileView {
    @DependencySlice(\.compatProfileModel, \.username) var username
    @DependencySlice(\.compatIsolatedProfileModel, \.visits) var visits
    @DependencyConstant(\.compatProfileModel, \.title) var title
    @DependencyConstant(\.compatProfileModel, \.visits) var visitCount
    @Slice(\.compatScreen, \.heading) var heading
    @Constant(\.compatScreen, \.build) var build
    @OptionalSlice(\.compatOptionalScreen, \.heading) var optionalHeading
    @OptionalSlice(\.compatOptionalScreen, \.subtitle) var optionalSubtitle
    @OptionalConstant(\.compatOptionalScreen, \.build) var optionalBuild
    @OptionalConstant(\.compatOptionalScreen, \.subtitle) var optionalSubtitleConstant

    /// The wrappers' types, which the compiler inferred from the key paths.
    var wrapperTypes: [Any.Type] { [type(of: _username), type(of: _title), type(of: _heading)] }
}

/// Held by a `Sendable` type, so each wrapper here must be `Sendable`: it is, because its key
/// paths are.
fileprivate struct CompatSendableHolder: Sendable {
    @Slice(\.compatPlainSettings, \.theme) var theme
    @Constant(\.compatPlainSettings, \.version) var version
    @OptionalSlice(\.compatOptionalPlainSettings, \.theme) var optionalTheme
    @OptionalSlice(\.compatOptionalPlainSettings, \.nickname) var nickname
    @OptionalConstant(\.compatOptionalPlainSettings, \.version) var optionalVersion
    @OptionalConstant(\.compatOptionalPlainSettings, \.nickname) var nicknameConstant
    @DependencySlice(\.compatPlainConfig, \.timeout) var timeout
    @DependencyConstant(\.compatPlainConfig, \.region) var region

    /// The wrappers' types, which the compiler inferred from the key paths.
    var wrapperTypes: [Any.Type] { [type(of: _theme), type(of: _timeout), type(of: _nickname)] }

    /// Compiles only while these wrappers are `Sendable`.
    func requireSendableWrappers() {
        requireSendable(_version)
        requireSendable(_optionalVersion)
        requireSendable(_region)
    }
}

@Suite("Wrappers over actor-isolated members", .isolatedApplication)
@MainActor
struct IsolatedMemberWrapperTests {
    @Test("dependency slices and constants read and write a main-actor view model's members")
    func viewModelThroughDependencyWrappers() {
        let view = CompatProfileView()
        #expect(view.username == nil)
        view.username = "leif"
        #expect(Application.dependency(\.compatProfileModel).username == "leif")
        #expect(view.title == "Profile")

        view.visits += 2
        #expect(Application.dependency(\.compatIsolatedProfileModel).visits == 2)
        Application.dependency(\.compatProfileModel).visits = 5
        #expect(view.visitCount == 5)
    }

    @Test("slices and constants read and write a main-actor state value's members")
    func mainActorValueThroughSlices() {
        let view = CompatProfileView()
        #expect(view.heading == "Welcome")
        view.heading = "Hello"
        #expect(Application.state(\.compatScreen).value.heading == "Hello")
        #expect(view.build == 7)

        #expect(view.optionalHeading == nil)
        #expect(view.optionalBuild == nil)
        var screen = Application.state(\.compatOptionalScreen)
        screen.value = CompatScreen()
        #expect(view.optionalHeading == "Welcome")
        view.optionalSubtitle = nil
        #expect(Application.state(\.compatOptionalScreen).value?.subtitle == nil)
        #expect(view.optionalSubtitleConstant == nil)
        #expect(view.optionalBuild == 7)
    }

    @Test("Application.slice and dependencySlice take key paths to isolated members")
    func sliceFunctions() {
        var username = Application.dependencySlice(\.compatProfileModel, \.username)
        username.value = "ada"
        #expect(Application.dependencySlice(\.compatIsolatedProfileModel, \.title).value == "Profile")
        #expect(Application.dependency(\.compatProfileModel).username == "ada")

        var heading = Application.slice(\.compatScreen, \.heading)
        heading.value = "Hi"
        #expect(Application.slice(\.compatScreen, \.build).value == 7)
        var screen = Application.state(\.compatOptionalScreen)
        screen.value = CompatScreen()
        var subtitle = Application.slice(\.compatOptionalScreen, \.subtitle)
        subtitle.value = "second run"
        #expect(Application.slice(\.compatOptionalScreen, \.heading).value == "Welcome")
        #expect(Application.state(\.compatOptionalScreen).value?.subtitle == "second run")
    }

    @Test("a wrapper is Sendable exactly when its key paths are")
    func sendabilityFollowsKeyPaths() {
        let isolated = CompatProfileView().wrapperTypes
        #expect(ObjectIdentifier(isolated[0]) == ObjectIdentifier(DependencySlice<CompatProfileModel, String?, NonSendableKeyPaths>.self))
        #expect(ObjectIdentifier(isolated[1]) == ObjectIdentifier(DependencyConstant<CompatProfileModel, String, NonSendableKeyPaths>.self))
        #expect(ObjectIdentifier(isolated[2]) == ObjectIdentifier(Slice<Application.State<CompatScreen>, CompatScreen, String, NonSendableKeyPaths>.self))

        let holder = CompatSendableHolder()
        let sendable = holder.wrapperTypes
        #expect(ObjectIdentifier(sendable[0]) == ObjectIdentifier(Slice<Application.State<CompatPlainSettings>, CompatPlainSettings, String, SendableKeyPaths>.self))
        #expect(ObjectIdentifier(sendable[1]) == ObjectIdentifier(DependencySlice<CompatPlainConfig, Int, SendableKeyPaths>.self))
        #expect(ObjectIdentifier(sendable[2]) == ObjectIdentifier(OptionalSlice<Application.State<CompatPlainSettings?>, CompatPlainSettings, String, SendableKeyPaths>.self))
        holder.requireSendableWrappers()
    }

    @Test("a Sendable holder's wrappers work from another task")
    func sendableWrappersCrossTasks() async {
        let holder = CompatSendableHolder()
        // A child task (it inherits the isolated application) off the main actor.
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                holder.theme = "dark"
                holder.nickname = "ace"
                holder.timeout = 45
            }
        }
        #expect(holder.theme == "dark")
        #expect(holder.optionalTheme == "light")   // a different state
        #expect(holder.nicknameConstant == "ace")
        #expect(holder.timeout == 45)
        #expect(holder.region == "eu")
    }

    @Test("an override token is cancelled with await from async code and without it from sync code")
    func awaitedCancel() async {
        let override = Application.override(\.compatPlainConfig, with: CompatPlainConfig())
        Application.dependency(\.compatPlainConfig).timeout = 1
        await override.cancel()
        #expect(Application.dependency(\.compatPlainConfig).timeout == 30)

        let tokens = (0..<3).map { _ in Application.override(\.compatPlainConfig, with: CompatPlainConfig()) }
        await withTaskGroup(of: Void.self) { group in
            for token in tokens { group.addTask { await token.cancel() } }
        }
        Application.dependency(\.compatPlainConfig).timeout = 31
        #expect(Application.dependency(\.compatPlainConfig).timeout == 31)

        let deferred = Application.override(\.compatPlainConfig, with: CompatPlainConfig())
        cancelSynchronously(deferred)
        #expect(Application.dependency(\.compatPlainConfig).timeout == 31)
        do {
            let again = Application.override(\.compatPlainConfig, with: CompatPlainConfig())
            defer { again.cancel() }   // a defer block is synchronous code
            #expect(Application.dependency(\.compatPlainConfig).timeout == 30)
        }
        #expect(Application.dependency(\.compatPlainConfig).timeout == 31)
    }
}

private func requireSendable<T: Sendable>(_: T) {}

private func cancelSynchronously(_ token: Application.DependencyOverride) {
    token.cancel()
}
