#if Configuration
import AppStateKit
import AppStateKitConfiguration
import AppStateKitTesting
import Configuration
import Foundation
import Testing

/// A namespace is often read at run time (an environment variable, a command-line flag), so an
/// unusable one is an error the throwing initialisers throw, not a programmer error that stops
/// the process. `ConfigStoreError`'s description names its kind, as every AppStateKit error's does.
@Suite("ConfigStoreError", .isolatedApplication, .reportsQuietly, .timeLimit(.minutes(1)))
struct ConfigStoreErrorTests {
    @Test("both providers throw invalidNamespace for a namespace that can't start a store key", arguments: [
        ("", "it is empty"),
        ("a/b", #"it contains "/""#),
        ("50%", #"it contains "%""#),
    ])
    func invalidNamespaceThrows(namespace: String, problem: String) async throws {
        let expected = ConfigStoreError(
            .invalidNamespace, key: namespace,
            detail: #"\#(problem); a namespace is the first part of every store key: use a non-empty name without "/" or "%", such as "Configuration""#
        )
        let local = try #require(throws: ConfigStoreError.self) {
            _ = try KeyValueStoreConfigProvider(store: InMemoryDefaults(), namespace: namespace)
        }
        #expect(local == expected)
        let fleet = try await #require(throws: ConfigStoreError.self) {
            _ = try await SyncStoreConfigProvider(store: InMemorySyncStore(), namespace: namespace)
        }
        #expect(fleet == expected)
        #expect(fleet.kind == .invalidNamespace)
        #expect(fleet.description == #"invalid namespace for configuration namespace "\#(namespace)": \#(expected.detail)"#)
    }

    @Test("each kind's description starts with the kind in words and names the key, never the value")
    func descriptions() throws {
        let store = InMemoryDefaults(["Configuration/port": "secret-looking-value"])
        let provider = try KeyValueStoreConfigProvider(store: store)
        let error = try #require(throws: ConfigStoreError.self) { try provider.value(forKey: ["port"], type: .int) }
        #expect(error.kind == .typeMismatch)
        #expect(error.key == "Configuration/port")
        #expect(error.description == #"type mismatch for configuration key "Configuration/port": the stored value is a string, which does not read as int"#)
        #expect(!error.description.contains("secret-looking-value"))
        #expect("\(ConfigStoreError.Kind.unreadable)" == "unreadable")
        #expect("\(ConfigStoreError.Kind.unencodable)" == "unencodable")
        #expect(ConfigStoreError(.unencodable, key: "Configuration/ratio", detail: "no JSON form").description
            == #"unencodable for configuration key "Configuration/ratio": no JSON form"#)
    }
}
#endif
