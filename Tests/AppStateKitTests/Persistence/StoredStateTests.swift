import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private enum Plan: String, Codable, Sendable { case free, pro }
private enum Level: Int, Codable, Sendable { case low = 1, high = 2 }
private struct Profile: Codable, Equatable, Sendable {
    var name: String
    var tags: [String]
}

/// Each test file's entries use their own in-memory store, and each test its own keys, so
/// parallel tests never collide.
private let store = InMemoryDefaults()

private extension Application {
    var storedBool: StoredState<Bool> { storedState(initial: false, feature: "S", id: "bool", store: store) }
    var storedInt: StoredState<Int> { storedState(initial: 1, feature: "S", id: "int", store: store) }
    var storedDouble: StoredState<Double> { storedState(initial: 1.5, feature: "S", id: "double", store: store) }
    var storedFloat: StoredState<Float> { storedState(initial: 2.5, feature: "S", id: "float", store: store) }
    var storedString: StoredState<String> { storedState(initial: "a", feature: "S", id: "string", store: store) }
    var storedData: StoredState<Data> { storedState(initial: Data([1]), feature: "S", id: "data", store: store) }
    var storedDate: StoredState<Date> { storedState(initial: Date(timeIntervalSince1970: 0), feature: "S", id: "date", store: store) }
    var storedURL: StoredState<URL> { storedState(initial: URL(string: "https://a.example")!, feature: "S", id: "url", store: store) }
    var storedArray: StoredState<[Int]> { storedState(initial: [], feature: "S", id: "array", store: store) }
    var storedDictionary: StoredState<[String: [String]]> { storedState(initial: [:], feature: "S", id: "dictionary", store: store) }
    var storedPlan: StoredState<Plan> { storedState(initial: .free, feature: "S", id: "plan", store: store) }
    var storedLevel: StoredState<Level> { storedState(initial: .low, feature: "S", id: "level", store: store) }
    var storedProfile: StoredState<Profile> { storedState(initial: Profile(name: "guest", tags: []), feature: "S", id: "profile", store: store) }
    var storedOptional: StoredState<String?> { storedState(feature: "S", id: "optional", store: store) }
    var storedOptionalPlan: StoredState<Plan?> { storedState(feature: "S", id: "optionalPlan", store: store) }
    var plainInt: StoredState<Int> { storedState(initial: 1, feature: "S", id: "plainInt", store: store) }
    var plainDouble: StoredState<Double> { storedState(initial: 1.5, feature: "S", id: "plainDouble", store: store) }
    var storedNotWritten: StoredState<Int> { storedState(initial: 42, feature: "S", id: "untouched", store: store) }
    var storedMismatch: StoredState<Int> { storedState(initial: 7, feature: "S", id: "mismatch", store: store) }
    var storedBadJSON: StoredState<Profile> { storedState(initial: Profile(name: "fallback", tags: []), feature: "S", id: "badJSON", store: store) }
    var storedWrapped: StoredState<Int> { storedState(initial: 0, feature: "S", id: "wrapped", store: store) }
    var storedReset: StoredState<Int> { storedState(initial: 5, feature: "S", id: "reset", store: store) }
    var storedOptionalLimit: StoredState<Int?> { storedState(initial: 5, feature: "S", id: "optionalLimit", store: store) }
    var legacyInt: StoredState<Int> { storedState(initial: 0, feature: "Legacy", id: "int", store: store) }
    var legacyString: StoredState<String> { storedState(initial: "", feature: "Legacy", id: "string", store: store) }
    var legacyDate: StoredState<Date> { storedState(initial: Date(timeIntervalSince1970: 0), feature: "Legacy", id: "date", store: store) }
    var legacyArray: StoredState<[Int]> { storedState(initial: [], feature: "Legacy", id: "array", store: store) }
    var legacyPlan: StoredState<Plan> { storedState(initial: .free, feature: "Legacy", id: "plan", store: store) }
    var legacyOptional: StoredState<Bool?> { storedState(feature: "Legacy", id: "optional", store: store) }
}

private struct Settings {
    @StoredState(\.storedWrapped) var wrapped
}

@Suite("StoredState", .isolatedApplication, .reportsAsDiagnostics)
struct StoredStateTests {
    @Test("property-list values are stored natively and read back with their types")
    func nativeTypes() throws {
        var bool = Application.storedState(\.storedBool); bool.value = true
        var int = Application.storedState(\.storedInt); int.value = 3
        var double = Application.storedState(\.storedDouble); double.value = 2.25
        var float = Application.storedState(\.storedFloat); float.value = 0.5
        var string = Application.storedState(\.storedString); string.value = "z"
        var data = Application.storedState(\.storedData); data.value = Data([9, 8])
        var date = Application.storedState(\.storedDate); date.value = Date(timeIntervalSince1970: 1_000)
        var url = Application.storedState(\.storedURL); url.value = URL(string: "https://b.example/x")!
        var array = Application.storedState(\.storedArray); array.value = [1, 2]
        var dictionary = Application.storedState(\.storedDictionary); dictionary.value = ["k": ["v"]]

        #expect(store.object(forKey: "S/bool") as? Bool == true)
        #expect(store.object(forKey: "S/int") as? Int == 3)
        #expect(store.object(forKey: "S/double") as? Double == 2.25)
        #expect(store.object(forKey: "S/float") as? Float == 0.5)
        #expect(store.object(forKey: "S/string") as? String == "z")
        #expect(store.object(forKey: "S/data") as? Data == Data([9, 8]))
        #expect(store.object(forKey: "S/date") as? Date == Date(timeIntervalSince1970: 1_000))
        #expect(store.object(forKey: "S/url") as? URL == URL(string: "https://b.example/x"))
        #expect(store.object(forKey: "S/array") as? [Int] == [1, 2])
        #expect(store.object(forKey: "S/dictionary") as? [String: [String]] == ["k": ["v"]])

        #expect(Application.storedState(\.storedBool).value == true)
        #expect(Application.storedState(\.storedFloat).value == 0.5)
        #expect(Application.storedState(\.storedDictionary).value == ["k": ["v"]])
    }

    @Test("assigning nil to an optional with a non-nil initial value removes the key, so reads return the initial value")
    func nilReadsInitial() {
        var limit = Application.storedState(\.storedOptionalLimit)
        limit.value = 9
        #expect(store.object(forKey: "S/optionalLimit") as? Int == 9)
        limit.value = nil
        #expect(store.object(forKey: "S/optionalLimit") == nil)
        #expect(limit.value == 5)
    }

    @Test("values written by plain store code are what the state reads")
    func plainStoreWritesAreSeen() {
        store.set(99, forKey: "S/plainInt")
        #expect(Application.storedState(\.plainInt).value == 99)
        store.set(7, forKey: "S/plainDouble")  // an Int where a Double is declared converts losslessly
        #expect(Application.storedState(\.plainDouble).value == 7.0)
    }

    @Test("values AppState wrote (JSON data for every type) are read")
    func appStateJSON() throws {
        let date = Date(timeIntervalSinceReferenceDate: 700_000_000.25)
        store.set(try JSONEncoder().encode(41), forKey: "Legacy/int")
        store.set(try JSONEncoder().encode("hello"), forKey: "Legacy/string")
        store.set(try JSONEncoder().encode(date), forKey: "Legacy/date")
        store.set(try JSONEncoder().encode([3, 4]), forKey: "Legacy/array")
        store.set(try JSONEncoder().encode(Plan.pro), forKey: "Legacy/plan")
        store.set(try JSONEncoder().encode(Optional(true)), forKey: "Legacy/optional")

        #expect(try Application.storedState(\.legacyInt).read() == 41)
        #expect(try Application.storedState(\.legacyString).read() == "hello")
        #expect(try Application.storedState(\.legacyDate).read() == date)
        #expect(try Application.storedState(\.legacyArray).read() == [3, 4])
        #expect(try Application.storedState(\.legacyPlan).read() == .pro)
        #expect(try Application.storedState(\.legacyOptional).read() == true)

        // The next assignment rewrites the value in the native form.
        var int = Application.storedState(\.legacyInt)
        int.value = 42
        #expect(store.object(forKey: "Legacy/int") as? Int == 42)
    }

    @Test("RawRepresentable values are stored as their raw value")
    func rawValues() {
        var plan = Application.storedState(\.storedPlan)
        plan.value = .pro
        #expect(store.object(forKey: "S/plan") as? String == "pro")
        var level = Application.storedState(\.storedLevel)
        level.value = .high
        #expect(store.object(forKey: "S/level") as? Int == 2)
        store.set("free", forKey: "S/plan")
        #expect(Application.storedState(\.storedPlan).value == .free)
        var optionalPlan = Application.storedState(\.storedOptionalPlan)
        optionalPlan.value = .pro
        #expect(store.object(forKey: "S/optionalPlan") as? String == "pro")
        #expect(Application.storedState(\.storedOptionalPlan).value == .pro)
    }

    @Test("other Codable values are stored as JSON data")
    func codableAsJSON() throws {
        var profile = Application.storedState(\.storedProfile)
        profile.value = Profile(name: "leif", tags: ["a"])
        let data = try #require(store.object(forKey: "S/profile") as? Data)
        #expect(try JSONDecoder().decode(Profile.self, from: data) == Profile(name: "leif", tags: ["a"]))
        #expect(Application.storedState(\.storedProfile).value == Profile(name: "leif", tags: ["a"]))
    }

    @Test("reading never writes the initial value; assigning nil removes the key")
    func initialNotWrittenAndNilRemoves() {
        #expect(Application.storedState(\.storedNotWritten).value == 42)
        #expect(store.object(forKey: "S/untouched") == nil)

        var optional = Application.storedState(\.storedOptional)
        #expect(optional.value == nil)
        optional.value = "set"
        #expect(store.object(forKey: "S/optional") as? String == "set")
        optional.value = nil
        #expect(store.object(forKey: "S/optional") == nil)
    }

    @Test("a value of the wrong type reads as the initial value, throws from read(), and stays untouched")
    func wrongType() {
        store.set("not a number", forKey: "S/mismatch")
        #expect(Application.storedState(\.storedMismatch).value == 7)
        #expect(throws: PersistenceError.self) { try Application.storedState(\.storedMismatch).read() }
        do {
            _ = try Application.storedState(\.storedMismatch).read()
        } catch let error as PersistenceError {
            #expect(error.kind == .typeMismatch)
            #expect(error.description.contains("key \"S/mismatch\" in an in-memory store"))
        } catch {
            Issue.record("unexpected \(error)")
        }
        #expect(store.object(forKey: "S/mismatch") as? String == "not a number")

        store.set(Data("{".utf8), forKey: "S/badJSON")
        #expect(Application.storedState(\.storedBadJSON).value.name == "fallback")
        #expect(store.object(forKey: "S/badJSON") as? Data == Data("{".utf8))
        var replaced = Application.storedState(\.storedMismatch)
        replaced.value = 8
        #expect(Application.storedState(\.storedMismatch).value == 8)
    }

    @Test("reset removes the stored value; the generic reset takes stored states too")
    func reset() {
        var state = Application.storedState(\.storedReset)
        state.value = 6
        Application.reset(storedState: \.storedReset)
        #expect(store.object(forKey: "S/reset") == nil)
        state.value = 6
        Application.reset(\.storedReset)
        #expect(Application.storedState(\.storedReset).value == 5)
    }

    @Test("the @StoredState wrapper reads and writes")
    func wrapper() {
        let settings = Settings()
        settings.wrapped = 12
        #expect(store.object(forKey: "S/wrapped") as? Int == 12)
        #expect(settings.wrapped == 12)
    }

    @Test("any UserDefaults instance is usable as a store")
    func userDefaultsSuite() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let suiteName = directory.userDefaultsSuiteName
        let defaults = try #require(UserDefaults(suiteName: suiteName))
        defer { defaults.removePersistentDomain(forName: suiteName) }
        let suite = UserDefaultsStore(defaults)
        suite.set(3, forKey: "S/suite")
        #expect(suite.object(forKey: "S/suite") as? Int == 3)
        let application = Application()
        var state = application.storedState(initial: 0, feature: "S", id: "suite", store: suite)
        #expect(state.value == 3)
        state.value = 4
        #expect(defaults.integer(forKey: "S/suite") == 4)
    }
}
