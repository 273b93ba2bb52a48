public import AppStateKit
import Foundation

/// Checks that a ``AppStateKit/SyncStore`` keeps the contract its documentation states:
/// versions, compare-and-set, tombstones, snapshots, change feeds and limits.
///
/// Run it from a test of your store:
///
/// ```swift
/// @Test func mySyncStoreConforms() async throws {
///     try await SyncStoreConformance(store: MySyncStore()).run()
/// }
/// ```
///
/// ``run(skipping:)`` runs every ``Check`` and throws one ``ConformanceFailure`` listing each
/// failed check, so it works in Swift Testing and XCTest alike.
///
/// The suite can run against a store other processes use at the same time (a shared
/// PostgreSQL database): every key it writes starts with a prefix random to the suite
/// (`conformance.<random>.`), and it only ever looks at its own keys, in snapshots and feeds
/// too. A run leaves its records (and removals) behind, all under that prefix.
///
/// Every value it writes is valid JSON (a string or an integer) without whitespace, so stores
/// that keep values in a JSON column accept them unchanged.
///
/// What it assumes beyond the protocol's documentation: a write made after ``AppStateKit/SyncStore/changeFeed()``
/// returned is delivered to that feed (within ``timeout``).
public struct SyncStoreConformance: Sendable {
    /// One property of the contract.
    public struct Check: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// A key never written has no record; its first write has a version of at least 1, and
        /// each further write a strictly greater one.
        public static let versionsIncrease = Check("versionsIncrease")
        /// `write` returns the committed record (key, value, version), and `fetchRecord`
        /// returns the same record.
        public static let writeReturnsCommittedRecord = Check("writeReturnsCommittedRecord")
        /// `cachedRecord` returns the record this store's own last write, compare-and-set or
        /// removal committed.
        public static let cachedRecordReflectsOwnWrites = Check("cachedRecordReflectsOwnWrites")
        /// A compare-and-set with the current version commits, with a greater version.
        public static let compareAndSetCommits = Check("compareAndSetCommits")
        /// A compare-and-set with a stale or future version is a conflict that returns the
        /// current record and commits nothing.
        public static let compareAndSetConflicts = Check("compareAndSetConflicts")
        /// On a key never written, a compare-and-set expecting version 0 commits (once), and
        /// one expecting another version is a conflict with no current record.
        public static let compareAndSetOnAbsentKey = Check("compareAndSetOnAbsentKey")
        /// Writing `nil` leaves a tombstone with a new version; compare-and-set on a removed key
        /// expects the tombstone's version (not 0), and can remove a key too.
        public static let tombstones = Check("tombstones")
        /// `snapshot` holds every record of the suite's keys, tombstones included, at their
        /// newest versions.
        public static let snapshotHoldsEveryRecord = Check("snapshotHoldsEveryRecord")
        /// A feed delivers the store's own writes and removals after they were committed: each
        /// delivered record is one that was committed, and the newest one arrives.
        public static let changesDeliverOwnWrites = Check("changesDeliverOwnWrites")
        /// Two feeds each get every record; ending one leaves the other delivering.
        public static let changesFeedsAreIndependent = Check("changesFeedsAreIndependent")
        /// A feed's consumer ends once its task is cancelled.
        public static let changesEndOnCancellation = Check("changesEndOnCancellation")
        /// ``AppStateKit/SyncLimits`` hold: an empty or too-long key, or one containing NUL, throws `invalidKey`, a too-large
        /// value `valueTooLarge` (from `write` and `compareAndSet`), and nothing is committed
        /// (reading an invalid key may return `nil` or throw `invalidKey`); a key and a value of
        /// exactly the limit are accepted. Runs last: it writes a one-megabyte value (then
        /// removes it).
        public static let limits = Check("limits")
        /// 4 tasks each incrementing one counter 25 times with compare-and-set loops end at
        /// exactly 100.
        public static let concurrentCompareAndSet = Check("concurrentCompareAndSet")
        /// ``AppStateKit/SyncStore/updateExclusively(forKey:_:)``: a store that returns `nil`
        /// (it can't hold writers off) ran no transform and committed nothing; a store that
        /// supports it commits the transform's result, counts every one of 20 exclusive
        /// updates racing 20 compare-and-set increments on one key, and rethrows a transform's
        /// error unchanged with nothing committed.
        public static let exclusiveUpdates = Check("exclusiveUpdates")

        /// ``AppStateKit/SyncStore/changeFeed()`` delivers the store's own writes and removals
        /// (as changes, or inside a replacement), ending with the newest.
        public static let changeFeedDeliversOwnWrites = Check("changeFeedDeliversOwnWrites")
        /// ``AppStateKit/SyncStore/delete(forKey:)`` commits a removal with a greater version,
        /// ``AppStateKit/SyncStore/keys()`` lists written keys and not deleted ones, and a deleted
        /// key written again continues above the removal's version.
        public static let keysAndDeletion = Check("keysAndDeletion")
        /// ``AppStateKit/SyncStore/waitUntilReady(timeout:)`` returns, and
        /// ``AppStateKit/SyncStore/statusUpdates()`` starts with a ready status, for a store that
        /// serves reads and writes.
        public static let readiness = Check("readiness")
        /// After the backing store was replaced behind the store's back (``ReplaceBackingStore``:
        /// one key put back at version 1, below the versions the store saw, and another key
        /// gone), ``AppStateKit/SyncStore/changeFeed()`` delivers a
        /// ``AppStateKit/SyncChange/replaced(_:)`` holding exactly the restored record among the
        /// suite's keys, `cachedRecord` returns the restored record and nothing for the gone
        /// key, and the next write continues above the restored version. Runs only when the suite
        /// was given `replaceBackingStore`.
        public static let replacementsAreAuthoritative = Check("replacementsAreAuthoritative")

        /// Every check, in the order ``run(skipping:)`` runs them.
        public static let allCases: [Check] = [
            .versionsIncrease, .writeReturnsCommittedRecord, .cachedRecordReflectsOwnWrites,
            .compareAndSetCommits, .compareAndSetConflicts, .compareAndSetOnAbsentKey, .tombstones,
            .snapshotHoldsEveryRecord, .changesDeliverOwnWrites, .changesFeedsAreIndependent,
            .changesEndOnCancellation, .changeFeedDeliversOwnWrites, .keysAndDeletion, .readiness,
            .replacementsAreAuthoritative, .concurrentCompareAndSet, .exclusiveUpdates, .limits,
        ]

        /// The check's name, as failures spell it (`"tombstones"`).
        public var description: String { name }
    }

    /// The store under test.
    public let store: any SyncStore
    /// How long a check waits for a feed to deliver a record (or to end) before it fails.
    public let timeout: Duration
    /// The prefix of every key the suite writes.
    public let keyPrefix: String
    /// Replaces the backing store's data behind the store's back, for
    /// ``Check/replacementsAreAuthoritative``; `nil` skips that check in ``run(skipping:)``.
    public let replaceBackingStore: ReplaceBackingStore?

    /// Creates the suite for `store`.
    ///
    /// - Parameters:
    ///   - store: The store under test.
    ///   - timeout: How long to wait for a change feed before failing (a bound, not a
    ///     requirement: a correct store delivers much sooner, and a passing run never waits
    ///     for it; generous by default so a loaded CI machine doesn't fail a correct store).
    ///   - replaceBackingStore: Replaces the backing store's data behind `store`'s back (see
    ///     ``ReplaceBackingStore``), so the suite can check that a store whose versions go
    ///     backwards says so (``Check/replacementsAreAuthoritative``). Without it that check is
    ///     not run by ``run(skipping:)`` (running it by name fails, saying what is missing).
    public init(store: any SyncStore, timeout: Duration = .seconds(60), replaceBackingStore: ReplaceBackingStore? = nil) {
        self.store = store
        self.timeout = timeout
        self.keyPrefix = randomKeyPrefix()
        self.replaceBackingStore = replaceBackingStore
    }

    /// Runs every check except `skipped` (and except ``Check/replacementsAreAuthoritative``
    /// when the suite has no `replaceBackingStore`); throws a ``ConformanceFailure`` naming each
    /// failed one.
    ///
    /// Skip a check your store is known to fail, and run it on its own where the failure is
    /// recorded, for example inside Swift Testing's `withKnownIssue`.
    public func run(skipping skipped: Set<Check> = []) async throws {
        var skipped = skipped
        if replaceBackingStore == nil { skipped.insert(.replacementsAreAuthoritative) }
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
        if !failures.isEmpty {
            throw ConformanceFailure(store: "\(type(of: store))", checksRun: checks.count, failures: failures)
        }
    }

    /// Runs one check; throws a ``ConformanceFailure`` if it fails.
    public func run(_ check: Check) async throws {
        try await run([check])
    }

    private func perform(_ check: Check, _ recorder: inout CheckRecorder) async throws {
        switch check {
        case .versionsIncrease: try await versionsIncrease(&recorder)
        case .writeReturnsCommittedRecord: try await writeReturnsCommittedRecord(&recorder)
        case .cachedRecordReflectsOwnWrites: try await cachedRecordReflectsOwnWrites(&recorder)
        case .compareAndSetCommits: try await compareAndSetCommits(&recorder)
        case .compareAndSetConflicts: try await compareAndSetConflicts(&recorder)
        case .compareAndSetOnAbsentKey: try await compareAndSetOnAbsentKey(&recorder)
        case .tombstones: try await tombstones(&recorder)
        case .snapshotHoldsEveryRecord: try await snapshotHoldsEveryRecord(&recorder)
        case .changesDeliverOwnWrites: try await changesDeliverOwnWrites(&recorder)
        case .changesFeedsAreIndependent: try await changesFeedsAreIndependent(&recorder)
        case .changesEndOnCancellation: await changesEndOnCancellation(&recorder)
        case .concurrentCompareAndSet: try await concurrentCompareAndSet(&recorder)
        case .exclusiveUpdates: try await exclusiveUpdates(&recorder)
        case .limits: try await limits(&recorder)
        case .changeFeedDeliversOwnWrites: try await changeFeedDeliversOwnWrites(&recorder)
        case .keysAndDeletion: try await keysAndDeletion(&recorder)
        case .readiness: try await readiness(&recorder)
        case .replacementsAreAuthoritative: try await replacementsAreAuthoritative(&recorder)
        default: recorder.fail("unknown check")
        }
    }

    // MARK: - Helpers

    /// A key of this run: `<prefix><name>`.
    func key(_ name: String) -> String {
        keyPrefix + name
    }

    /// JSON for a small value.
    static func json(_ text: String) -> Data {
        Data("\"\(text)\"".utf8)
    }

    /// A record for messages: `key@version = "value"`.
    static func describe(_ record: SyncRecord?) -> String {
        guard let record else { return "no record" }
        return "\(record.key)@\(record.version) = " + (record.value.map { String(decoding: $0.prefix(60), as: UTF8.self) } ?? "removed")
    }

    /// A commit outcome for messages.
    static func describe(_ commit: SyncCommit) -> String {
        switch commit {
        case let .committed(record): "committed \(describe(record))"
        case let .conflict(current): "conflict, current: \(describe(current))"
        }
    }
}
