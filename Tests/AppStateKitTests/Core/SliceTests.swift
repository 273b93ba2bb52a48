import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private struct Settings: Equatable, Sendable {
    var theme = "light"
    var fontSize = 12
    var nickname: String? = nil
    let version = "1.0"
}

private final class Config: @unchecked Sendable {
    // Safe for this test: written and read from one test at a time.
    var timeout = 30
    let region = "eu"
}

private struct Limits: Sendable {
    var maximum = 10
    let minimum = 1
    /// A member whose setter reads every entry of the registry, this dependency's included (as a
    /// setter that logs the application's description would).
    var describedMaximum: Int {
        get { maximum }
        set {
            maximum = newValue
            _ = Application.description
        }
    }
}

private extension Application {
    var sliceSettings: State<Settings> { state(initial: Settings()) }
    var sliceOptionalSettings: State<Settings?> { state(initial: nil) }
    var sliceConfig: Dependency<Config> { dependency(Config()) }
    var sliceLimits: Dependency<Limits> { dependency(Limits()) }
    var sliceAtomic: State<Settings> { state(initial: Settings()) }
}

@Suite("Slices", .isolatedApplication)
struct SliceTests {
    @Test("a read-only slice reads a member; a writable one writes it to the shared value")
    func stateSlices() {
        let version = Application.slice(\.sliceSettings, \.version)
        #expect(version.value == "1.0")

        var theme = Application.slice(\.sliceSettings, \.theme)
        theme.value = "dark"
        #expect(Application.state(\.sliceSettings).value.theme == "dark")
        #expect(Application.state(\.sliceSettings).value.fontSize == 12)
    }

    @Test("an optional slice is nil while the parent is nil and follows it once set")
    func optionalSlices() {
        var fontSize = Application.slice(\.sliceOptionalSettings, \.fontSize)
        #expect(fontSize.value == nil)
        fontSize.value = 20  // parent is nil: nothing to write into
        #expect(Application.state(\.sliceOptionalSettings).value == nil)

        var parent = Application.state(\.sliceOptionalSettings)
        parent.value = Settings()
        #expect(fontSize.value == 12)
        fontSize.value = 20
        #expect(Application.state(\.sliceOptionalSettings).value?.fontSize == 20)
        fontSize.value = nil  // not optional: left unchanged
        #expect(Application.state(\.sliceOptionalSettings).value?.fontSize == 20)

        var nickname = Application.slice(\.sliceOptionalSettings, \.nickname)
        #expect(nickname.value == nil)
        nickname.value = "leif"
        #expect(Application.state(\.sliceOptionalSettings).value?.nickname == "leif")
        nickname.value = nil  // optional: cleared
        #expect(Application.state(\.sliceOptionalSettings).value?.nickname == nil)

        let version = Application.slice(\.sliceOptionalSettings, \.version)
        #expect(version.value == "1.0")
        parent.value = nil
        #expect(version.value == nil)
    }

    @Test("dependency slices read members and write through to the current instance")
    func dependencySlices() {
        let region = Application.dependencySlice(\.sliceConfig, \.region)
        #expect(region.value == "eu")
        var timeout = Application.dependencySlice(\.sliceConfig, \.timeout)
        timeout.value = 60
        #expect(Application.dependency(\.sliceConfig).timeout == 60)

        var maximum = Application.dependencySlice(\.sliceLimits, \.maximum)
        maximum.value = 99  // a value-type dependency is updated in place
        #expect(Application.dependency(\.sliceLimits).maximum == 99)
        #expect(Application.dependencySlice(\.sliceLimits, \.minimum).value == 1)
    }

    @Test("a dependency slice's setter runs with no lock held, so it may read the registry, its own dependency included")
    func dependencySliceSetterRunsOutsideLocks() {
        var maximum = Application.dependencySlice(\.sliceLimits, \.describedMaximum)
        maximum.value = 42
        #expect(Application.dependency(\.sliceLimits).maximum == 42)
        #expect(Application.dependencySlice(\.sliceLimits, \.describedMaximum).value == 42)
    }

    @Test("under a scoped override of a value type, a dependency-slice write is reported naming the dependency, not dropped silently")
    func dependencySliceWriteUnderValueOverrideIsReported() {
        let messages = capturingLogs {
            Application.withOverrides { $0.override(\.sliceLimits, with: Limits(maximum: 5)) } operation: {
                var maximum = Application.dependencySlice(\.sliceLimits, \.maximum)
                maximum.value = 7
                #expect(Application.dependency(\.sliceLimits).maximum == 5, "the scope's value can't change")
            }
        }
        #expect(messages.count == 1)
        #expect(messages.first?.contains("a write through a dependency slice of ") == true)
        #expect(messages.first?.contains("sliceLimits") == true || messages.first?.contains("SliceTests.swift") == true)
        #expect(messages.first?.contains("a Limits, a value the scope can't change") == true)
        #expect(Application.dependency(\.sliceLimits).maximum == 10, "nor did the write reach the registry's instance")
    }

    @Test("a dependency-slice write that races the cancellation of the only override it could change is reported with the key, not dropped silently")
    func dependencySliceWriteRacingCancellationIsReported() {
        let key = EntryKey(kind: .dependency, valueType: Limits.self, feature: "SliceTests", id: "raced")
        let entry = DependencyEntry(key: key, firstOverride: Limits(maximum: 5))
        entry.removeOverride(DependencyEntry<Limits>.firstOverrideToken)
        #expect(entry.currentValue() == nil, "the cancelled override left the entry without an instance")
        let messages = capturingLogs {
            entry.modifyCurrent { $0.maximum = 7 }
        }
        #expect(messages.count == 1)
        #expect(messages.first?.contains("a write through a dependency slice of SliceTests.raced was dropped") == true)
        #expect(entry.currentValue() == nil, "nothing was made up to take the write")
    }

    @Test("under a scoped override of a class instance, a dependency-slice write lands in that instance")
    func dependencySliceWriteUnderClassOverrideLands() {
        let mock = Config()
        let messages = capturingLogs {
            Application.withOverrides { $0.override(\.sliceConfig, with: mock) } operation: {
                var timeout = Application.dependencySlice(\.sliceConfig, \.timeout)
                timeout.value = 5
                #expect(Application.dependency(\.sliceConfig).timeout == 5)
            }
        }
        #expect(messages.isEmpty)
        #expect(mock.timeout == 5)
        #expect(Application.dependency(\.sliceConfig).timeout == 30)
    }

    @Test("slice writes are atomic member updates: concurrent writers to different members lose nothing")
    func sliceWritesAreAtomic() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for index in 0..<2_000 {
                    var size = Application.slice(\.sliceAtomic, \.fontSize)
                    size.value = index
                }
            }
            group.addTask {
                for index in 0..<2_000 {
                    var theme = Application.slice(\.sliceAtomic, \.theme)
                    theme.value = "theme \(index)"
                }
            }
        }
        #expect(Application.state(\.sliceAtomic).value.fontSize == 1_999)
        #expect(Application.state(\.sliceAtomic).value.theme == "theme 1999")
    }
}
