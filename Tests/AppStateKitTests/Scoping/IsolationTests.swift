import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

private struct Item: Codable, Equatable, Sendable { var name: String }

private extension Application {
    var isolatedCounter: State<Int> { state(initial: 0) }
    var isolatedStored: StoredState<String> { storedState(initial: "initial", feature: "IsolationTests", id: "stored") }
    var isolatedFile: FileState<[Item]> {
        fileState(initial: [], path: ProcessGlobalTests.IsolationTests.sharedDirectory, filename: "items.json", isBase64Encoded: false)
    }
    var isolatedService: Dependency<String> { dependency("live") }
    var isolatedTracked: Dependency<Tracked> { dependency(Tracked()) }
    var countsItsRelease: Dependency<CountsItsRelease> { dependency(CountsItsRelease()) }
    var releasesCounted: State<Int> { state(initial: 0) }
    var firstReadAfterScope: State<Int> { state(initial: 1) }
}

/// A dependency whose release a test can observe through a weak reference.
private final class Tracked: Sendable {}

/// A dependency whose `deinit` uses the shared application.
private final class CountsItsRelease: Sendable {
    deinit {
        Application.update(\.releasesCounted) { $0 += 1 }
    }
}

/// These compare isolated applications with the shared one, so they run with the other tests of
/// process globals, one at a time.
extension ProcessGlobalTests {
    @Suite("Isolated applications")
    struct IsolationTests {
        static let sharedDirectory = (NSTemporaryDirectory() as NSString).appendingPathComponent("AppStateKit-isolation-\(UUID().uuidString)")

        @Test("state starts fresh, writes stay inside, and nothing reaches the shared registry")
        func stateIsPrivate() {
            let sharedKey = Application.shared[keyPath: \.isolatedCounter].entry.key
            Application.withIsolatedApplication {
                #expect(Application.currentContext.isIsolated)
                Application.update(\.isolatedCounter) { $0 += 41 }
                #expect(Application.state(\.isolatedCounter).value == 41)
            }
            #expect(!Application.currentContext.isIsolated)
            #expect(Application.state(\.isolatedCounter).value == 0)
            let sharedEntry = Application.shared.registry.existingEntry(for: sharedKey) as? StateEntry<Int>
            #expect(sharedEntry?.value ?? 0 == 0)
        }

        @Test("stored states use memory and file states a temporary directory that is removed")
        func persistenceIsSandboxed() throws {
            var sandboxRoot = ""
            Application.withIsolatedApplication {
                var stored = Application.storedState(\.isolatedStored)
                stored.value = "inside"
                #expect(Application.storedState(\.isolatedStored).value == "inside")
                #expect(Application.dependency(\.userDefaults) is InMemoryDefaults)

                var file = Application.fileState(\.isolatedFile)
                file.value = [Item(name: "private")]
                #expect(Application.fileState(\.isolatedFile).value == [Item(name: "private")])
                let files = Application.dependency(\.fileManager)
                #expect(FileManager.default.fileExists(atPath: files.atomicFiles.mapped(file.path)))
                sandboxRoot = (files as? SandboxFileManager)?.root ?? ""
            }
            #expect(!sandboxRoot.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: sandboxRoot))
            #expect(!FileManager.default.fileExists(atPath: Self.sharedDirectory))
            #expect(Application.withIsolatedApplication { Application.storedState(\.isolatedStored).value } == "initial")
        }

        @Test("global override and promote inside a scope affect the scope only")
        func globalMutationsAreScoped() {
            Application.withIsolatedApplication {
                Application.promote(\.isolatedService, with: "promoted")
                let override = Application.override(\.isolatedService, with: "overridden")
                #expect(Application.dependency(\.isolatedService) == "overridden")
                override.cancel()
                #expect(Application.dependency(\.isolatedService) == "promoted")
                Application.promote(to: IsolatedSubclass.self)
                #expect(Application.current is IsolatedSubclass)
                #expect(Application.dependency(\.isolatedService) == "promoted")
            }
            #expect(Application.dependency(\.isolatedService) == "live")
            #expect(!(Application.current is IsolatedSubclass))
        }

        @Test("child tasks inherit isolation; detached tasks don't")
        func inheritance() async {
            await Application.withIsolatedApplication {
                Application.update(\.isolatedCounter) { $0 = 7 }
                let child = await Task { Application.state(\.isolatedCounter).value }.value
                let detached = await Task.detached { Application.state(\.isolatedCounter).value }.value
                #expect(child == 7)
                #expect(detached == 0)
            }
        }

        @Test("the XCTest-style helper isolates and overrides")
        func helper() {
            let result = withIsolatedApplication(overriding: { $0.override(\.isolatedService, with: "helper") }) {
                Application.update(\.isolatedCounter) { $0 += 1 }
                return (Application.dependency(\.isolatedService), Application.state(\.isolatedCounter).value)
            }
            #expect(result.0 == "helper")
            #expect(result.1 == 1)
            #expect(Application.state(\.isolatedCounter).value == 0)
        }
    }
}

private final class IsolatedSubclass: Application {}

@Suite("AppStateKitTesting traits", .isolatedApplication)
struct TraitTests {
    @Test(.overriding(\.isolatedService, with: "from trait"))
    func traitsCombine() {
        #expect(Application.currentContext.isIsolated)
        #expect(Application.dependency(\.isolatedService) == "from trait")
        Application.update(\.isolatedCounter) { $0 += 1 }
        #expect(Application.state(\.isolatedCounter).value == 1)
    }

    @Test func eachTestIsFresh() {
        #expect(Application.currentContext.isIsolated)
        #expect(Application.dependency(\.isolatedService) == "live")
        Application.update(\.isolatedCounter) { $0 += 1 }
        #expect(Application.state(\.isolatedCounter).value == 1)
    }

    @Test("a State handle taken inside an isolated application stays usable after the scope, which releases the application")
    func handlesOutliveTheirScope() {
        weak var tracked: Tracked?
        var handle: Application.State<Int>? = Application.withIsolatedApplication {
            tracked = Application.dependency(\.isolatedTracked)
            var state = Application.state(\.isolatedCounter)
            state.value = 5
            return state
        }
        // A State handle keeps its entry, not its application (persisted handles keep theirs:
        // EntryBindingTests).
        #expect(tracked == nil, "the isolated application and its dependencies go with the scope")
        #expect(Application.state(\.isolatedCounter).value == 0)
        #expect(handle?.value == 5)
        handle?.value = 6
        #expect(handle?.value == 6)
        handle = nil
    }

    @Test("a value released when the thread moves on from an isolated application may itself use the shared one")
    func releaseRunsUserCodeSafely() {
        let before = Application.state(\.releasesCounted).value
        Application.withIsolatedApplication {
            _ = Application.dependency(\.countsItsRelease)
        }
        // This thread's lookup memo still holds the isolated application. The first lookup it
        // hasn't memoised for the shared one makes it let go, which frees the isolated
        // application's dependency, whose deinit updates a shared state: lookups inside lookups.
        #expect(Application.state(\.firstReadAfterScope).value == 1)
        #expect(Application.state(\.releasesCounted).value == before + 1)
    }
}
