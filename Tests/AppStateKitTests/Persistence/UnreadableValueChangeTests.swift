import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// What an earlier version of a program stored: a profile without `tags`.
private struct ProfileV1: Codable, Sendable, Equatable {
    var name: String
    var visits: Int
}

/// The same profile a version later: `tags` was added, and synthesised `Codable` ignores the
/// default, so the stored profile no longer decodes.
private struct ProfileV2: Codable, Sendable, Equatable {
    var name: String
    var visits: Int
    var tags: [String] = []
}

extension Application {
    fileprivate var unreadableProfile: StoredState<ProfileV2> {
        storedState(initial: ProfileV2(name: "initial", visits: 0), feature: "Unreadable", id: "profile")
    }
    fileprivate var unreadableProfileV1: StoredState<ProfileV1> {
        storedState(initial: ProfileV1(name: "initial", visits: 0), feature: "Unreadable", id: "profile")
    }
}

/// A change that starts from the stored value (`update`, `modify`, `value.member += 1`) never
/// replaces a stored value it couldn't read: it writes nothing and says so. Only an assignment
/// replaces it.
@Suite("Changes of a stored value that can't be read", .isolatedApplication)
struct UnreadableValueChangeTests {
    static let path = "/config/app/defaults.json"
    static let reason = #"corrupt data for key "Unreadable/profile" in /config/app/defaults.json: the stored JSON does not decode as "#

    /// A store holding what the earlier version wrote, as the application's `\.userDefaults`.
    private func storeWithEarlierProfile() throws -> FileKeyValueStore {
        let store = FileKeyValueStore(path: Self.path, fileSystem: InMemoryFileSystem())
        Application.promote(\.userDefaults, with: store)
        var earlier = Application.storedState(\.unreadableProfileV1)
        earlier.value = ProfileV1(name: "ada", visits: 41)
        return store
    }

    /// The profile the earlier version reads back: still the one it stored?
    private var earlierProfile: ProfileV1 {
        get throws { try Application.storedState(\.unreadableProfileV1).read() }
    }

    @Test("Application.update and modify run on the initial value and write nothing; the report says so")
    func updateKeepsTheStoredValue() throws {
        _ = try storeWithEarlierProfile()
        let logs = capturingLogs {
            Application.update(\.unreadableProfile) { $0.visits += 1 }
            var handle = Application.storedState(\.unreadableProfile)
            let seen = handle.modify { profile in
                profile.visits += 1
                return profile.visits
            }
            #expect(seen == 1)  // the change ran on the initial value
        }
        #expect(try earlierProfile == ProfileV1(name: "ada", visits: 41))
        #expect(logs.count == 1)  // the same message twice in a row is reported once
        let message = logs.first ?? ""
        #expect(message.hasPrefix("AppStateKit: " + Self.reason))
        #expect(message.hasSuffix("; the change was not written, so the stored value is kept (assign a value or reset() to replace it)"))
    }

    @Test("a change in place (value.member += 1) writes nothing either")
    func inPlaceKeepsTheStoredValue() throws {
        _ = try storeWithEarlierProfile()
        var profile = Application.storedState(\.unreadableProfile)
        let logs = capturingLogs {
            profile.value.visits += 1
            profile.value.tags.append("new")
        }
        #expect(try earlierProfile == ProfileV1(name: "ada", visits: 41))
        #expect(logs.count == 1)
        #expect(logs.first?.hasSuffix("the change was not written, so the stored value is kept (assign a value or reset() to replace it)") == true)
    }

    @Test("the throwing update throws the reason, with the same words, and writes nothing")
    func throwingUpdate() throws {
        _ = try storeWithEarlierProfile()
        var ran = false
        #expect {
            try Application.storedState(\.unreadableProfile).update { _ in ran = true }
        } throws: { error in
            let error = try #require(error as? PersistenceError)
            return error.kind == .corruptData && "\(error)".hasPrefix(Self.reason) && error.detail.hasSuffix("the change was not written, so the stored value is kept (assign a value or reset() to replace it)")
        }
        #expect(!ran)
        #expect(try earlierProfile == ProfileV1(name: "ada", visits: 41))
    }

    @Test("an assignment replaces it, and changes work again from there")
    func assignmentReplaces() throws {
        _ = try storeWithEarlierProfile()
        var profile = Application.storedState(\.unreadableProfile)
        profile.value = ProfileV2(name: "ada", visits: 41, tags: ["migrated"])
        Application.update(\.unreadableProfile) { $0.visits += 1 }
        profile.value.visits += 1
        #expect(try profile.read() == ProfileV2(name: "ada", visits: 43, tags: ["migrated"]))
    }
}
