import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

fileprivate extension Application {
    var reflectionProbe: SecureState { secureState(id: "reflectionProbe") }
}

extension ProcessGlobalTests {
    /// Issue 42, item 6: nothing prints a secret. Sets process environment variables (a secret
    /// `.environment()` provides, and an unrelated one), so it runs serialized with the other
    /// process-global tests, and removes them afterwards.
    @Suite("Secrets in reflection")
    struct SecretReflectionTests {
        static let secret = "Env-S3cret-4d2a"
        static let unrelated = "Unrelated-Env-91b7"

        /// Every way Swift prints a value: `description`, `String(reflecting:)`, `dump` and the
        /// labels and values of `Mirror` (recursively).
        static func everything(_ value: Any) -> String {
            var text = String(describing: value) + "\n" + String(reflecting: value) + "\n"
            dump(value, to: &text, maxDepth: 12)
            func walk(_ mirror: Mirror, depth: Int) {
                guard depth < 12 else { return }
                for child in mirror.children {
                    text += "\(child.label ?? "-"): \(String(reflecting: child.value))\n"
                    walk(Mirror(reflecting: child.value), depth: depth + 1)
                }
                if let parent = mirror.superclassMirror { walk(parent, depth: depth + 1) }
            }
            walk(Mirror(reflecting: value), depth: 0)
            return text
        }

        @Test("dump, Mirror and String(reflecting:) of every SecureState type show neither a secret nor the environment")
        func reflectionShowsNoSecret() throws {
            setenv("APPSTATEKIT_REFLECTION_PROBE", Self.secret, 1)
            setenv("APPSTATEKIT_UNRELATED_PROBE", Self.unrelated, 1)
            defer {
                unsetenv("APPSTATEKIT_REFLECTION_PROBE")
                unsetenv("APPSTATEKIT_UNRELATED_PROBE")
            }
            let files = InMemoryFileSystem()
            files.createFile(atPath: "/run/secrets/fileSecret", text: Self.secret + "\n")
            let fromEnvironment = Keychain(sources: [.environment(prefix: "APPSTATEKIT_")])
            #expect(try fromEnvironment.read("reflectionProbe") == Self.secret)
            let defaultKeychain = Keychain()
            let everySource = Keychain(
                sources: [.credentialsDirectory("/creds"), .secretsDirectory(), .environment(prefix: "APPSTATEKIT_"), .fileStore(directory: "/store"), .memory],
                keys: ["reflectionProbe"], fileManager: files
            )
            try everySource.write(Self.secret, forKey: "written")
            #expect(everySource.values()["reflectionProbe"] == Self.secret)
            let inMemory = Keychain(initialValues: ["apiToken": Self.secret])
            let given = Keychain(sources: [.environment()], environment: ["API_TOKEN": Self.secret, "OTHER": Self.unrelated])
            #expect(try given.read("apiToken") == Self.secret)

            var printed: [String: String] = [:]
            for (name, keychain) in [("environment", fromEnvironment), ("default", defaultKeychain), ("every source", everySource), ("memory", inMemory), ("given", given)] {
                printed["keychain \(name)"] = Self.everything(keychain)
            }
            for source in SecretSource.defaultSources + [.memory, .environment(prefix: "APPSTATEKIT_")] {
                printed["source \(source)"] = Self.everything(source)
            }
            let error = #expect(throws: SecureStateError.self) { try fromEnvironment.write("x", forKey: "reflectionProbe") }
            printed["error"] = Self.everything(error as Any)

            Application.withIsolatedApplication {
                Application.promote(\.keychain, with: everySource)
                let handle = Application.secureState(\.testPassword)
                let probe = Application.secureState(\.reflectionProbe)
                #expect(probe.value == Self.secret)
                printed["handle"] = Self.everything(handle)
                printed["probe handle"] = Self.everything(probe)
                printed["entry"] = Self.everything(probe.entry)
                printed["keychain dependency"] = Self.everything(Application.dependency(\.keychain))
                printed["application description"] = Application.description
                printed["wrapper"] = Self.everything(SecureState(\.testPassword))
            }
            for (name, text) in printed {
                #expect(!text.contains(Self.secret), "\(name) shows the secret:\n\(text)")
                #expect(!text.contains(Self.unrelated), "\(name) shows an unrelated environment variable:\n\(text)")
                #expect(!text.contains("APPSTATEKIT_UNRELATED_PROBE"), "\(name) shows the environment's names:\n\(text)")
            }
            // The scan saw what it scans: the sources are shown.
            #expect(printed["keychain every source"]?.contains(".environment(prefix: \"APPSTATEKIT_\")") == true)
            #expect(printed["probe handle"]?.contains("<redacted>") == true)
        }
    }
}
