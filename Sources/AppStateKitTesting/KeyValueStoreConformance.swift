public import AppStateKit
import Foundation

/// Checks that a ``AppStateKit/UserDefaultsManaging`` store behaves as
/// ``AppStateKit/Application/StoredState`` expects: what you write is what you read, for every
/// property-list type, from any number of tasks.
///
/// Run it from a test of your own store:
///
/// ```swift
/// @Test func myStoreConforms() async throws {
///     try await KeyValueStoreConformance(store: InMemoryDefaults()).run()
/// }
/// ```
///
/// ``run(skipping:)`` runs every ``Check`` and throws one ``ConformanceFailure`` listing each
/// failed check, so it works in Swift Testing and XCTest alike. Every key it writes starts with
/// a prefix random to the run (`conformance.<random>.`), and it removes its keys at the end, so
/// it can run against a store other code uses too.
///
/// A value read back matches when it casts (`as?`) to the written type and compares equal —
/// the same test ``AppStateKit/Application/StoredState`` applies when it reads.
public struct KeyValueStoreConformance: Sendable {
    /// One property of the contract.
    public struct Check: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// `Bool` values (`true`, `false`) read back as written.
        public static let boolRoundTrip = Check("boolRoundTrip")
        /// `Int` values (0, -1, `Int.min`, `Int.max`) read back as written.
        public static let intRoundTrip = Check("intRoundTrip")
        /// `Double` values (0.1 + 0.2, -0.0 … 1e300) read back bit for bit.
        public static let doubleRoundTrip = Check("doubleRoundTrip")
        /// `Float` values read back bit for bit.
        public static let floatRoundTrip = Check("floatRoundTrip")
        /// `String` values (empty, Unicode, quotes and newlines) read back as written.
        public static let stringRoundTrip = Check("stringRoundTrip")
        /// `Data` values (empty, every byte value) read back as written.
        public static let dataRoundTrip = Check("dataRoundTrip")
        /// `Date` values (with a fractional second) read back as written.
        public static let dateRoundTrip = Check("dateRoundTrip")
        /// `URL` values (web and file URLs) read back as written.
        public static let urlRoundTrip = Check("urlRoundTrip")
        /// Arrays (of strings, of integers, mixed, nested, empty) read back as written.
        public static let arrayRoundTrip = Check("arrayRoundTrip")
        /// Dictionaries (typed, mixed, nested, empty) read back as written.
        public static let dictionaryRoundTrip = Check("dictionaryRoundTrip")
        /// `set(nil, forKey:)` and `removeObject(forKey:)` remove the key; a key never written
        /// reads as `nil`.
        public static let removal = Check("removal")
        /// A second write replaces the first, also with a value of another type.
        public static let overwrite = Check("overwrite")
        /// `readObject`/`writeObject` agree with `object`/`set`, in both directions, and
        /// `writeObject(nil, …)` removes.
        public static let throwingAccessors = Check("throwingAccessors")
        /// Writing or removing one key leaves others alone, also keys that share a prefix or
        /// differ only in case.
        public static let independentKeys = Check("independentKeys")
        /// Every round-trip value still reads back as written after later writes of other keys
        /// (a store that re-reads its storage after a write must not lose what the first read
        /// returned).
        public static let valuesSurviveLaterWrites = Check("valuesSurviveLaterWrites")
        /// 4 tasks writing 16 keys each at the same time lose none of the 64 values.
        public static let concurrentWriters = Check("concurrentWriters")
        /// A new instance over the same storage (from `reopen`) reads every value written
        /// through the first. Passes without checking when the suite has no `reopen`.
        public static let persistence = Check("persistence")

        /// Every check, in the order ``run(skipping:)`` runs them.
        public static let allCases: [Check] = [
            .boolRoundTrip, .intRoundTrip, .doubleRoundTrip, .floatRoundTrip, .stringRoundTrip,
            .dataRoundTrip, .dateRoundTrip, .urlRoundTrip, .arrayRoundTrip, .dictionaryRoundTrip,
            .removal, .overwrite, .throwingAccessors, .independentKeys, .valuesSurviveLaterWrites, .concurrentWriters,
            .persistence,
        ]

        /// The check's name, as failures spell it (`"floatRoundTrip"`).
        public var description: String { name }
    }

    /// The store under test.
    public let store: any UserDefaultsManaging
    /// Makes a new instance over the same storage as ``store``, for ``Check/persistence``.
    public let reopen: (@Sendable () throws -> any UserDefaultsManaging)?
    /// The prefix of every key the suite writes.
    public let keyPrefix: String

    /// Creates the suite for `store`.
    ///
    /// - Parameters:
    ///   - store: The store under test.
    ///   - reopen: For a persistent store, makes a second instance over the same storage (the
    ///     same file, the same suite name); ``Check/persistence`` then reads through it what
    ///     the suite wrote through `store`. `nil` for a store that lives in memory only.
    ///
    /// ```swift
    /// let path = directory.path + "/defaults.json"
    /// let suite = KeyValueStoreConformance(store: FileKeyValueStore(path: path)) {
    ///     FileKeyValueStore(path: path)
    /// }
    /// ```
    public init(store: any UserDefaultsManaging, reopen: (@Sendable () throws -> any UserDefaultsManaging)? = nil) {
        self.store = store
        self.reopen = reopen
        self.keyPrefix = randomKeyPrefix()
    }

    /// Runs every check except `skipped`; throws a ``ConformanceFailure`` naming each failed one.
    ///
    /// Skip a check your store is known to fail, and run it on its own where the failure is
    /// recorded, for example inside Swift Testing's `withKnownIssue`.
    public func run(skipping skipped: Set<Check> = []) async throws {
        try await run(Check.allCases.filter { !skipped.contains($0) })
    }

    /// Runs `checks`, in order; throws a ``ConformanceFailure`` naming each failed one.
    public func run(_ checks: [Check]) async throws {
        var failures: [ConformanceFailure.Failure] = []
        for check in checks {
            var recorder = CheckRecorder()
            do {
                try await perform(check, &recorder)
            } catch {
                recorder.fail("threw \(error)")
            }
            failures += recorder.messages.map { ConformanceFailure.Failure(check: check.description, message: $0) }
        }
        removeKeys()
        if !failures.isEmpty {
            throw ConformanceFailure(store: "\(type(of: store))", checksRun: checks.count, failures: failures)
        }
    }

    /// Runs one check; throws a ``ConformanceFailure`` if it fails.
    public func run(_ check: Check) async throws {
        try await run([check])
    }

    /// A key of this run: `<prefix><name>`.
    func key(_ name: String) -> String {
        keyPrefix + name
    }

    /// Removes every key the checks write (they all start with ``keyPrefix``).
    func removeKeys() {
        var names = ["never-written", "set-nil", "remove", "overwrite", "writeObject", "set", "k", "k.sub", "K", "k ", "kk", "persisted-removed", "later-other"]
        for check in Check.allCases {
            for index in (KeyValueSample.samples[check] ?? []).indices {
                names += ["\(check)-\(index)", "persisted-\(check)-\(index)", "later-\(check)-\(index)"]
            }
        }
        names += (0..<4).flatMap { task in (0..<16).map { "concurrent-\(task)-\($0)" } }
        for name in names where store.object(forKey: key(name)) != nil {
            store.removeObject(forKey: key(name))
        }
    }
}
