import AppStateKit
import Foundation
import Synchronization

/// A ``SyncStore`` test double over an ``InMemorySyncStore``: fails writes on demand, can hold
/// writes back, and logs the writes it receives in order.
final class ScriptedSyncStore: SyncStore {
    let inner = InMemorySyncStore()
    private let failing = Atomic<Bool>(false)
    private let failure = Locked<SyncStoreError.Kind>(.refused)
    private let failuresLeft = Atomic<Int>(0)
    private let failingKeys = Locked<Set<String>>([])
    private let paused = Atomic<Bool>(false)
    private let interfering = Atomic<Bool>(false)
    private let slowAcknowledgements = Atomic<Bool>(false)
    private let failingCachedReads = Atomic<Bool>(false)
    private let neverReady = Atomic<Bool>(false)
    private let log = Locked<[(key: String, value: String?)]>([])

    /// Makes every later write and compare-and-set throw an error of `kind` (or succeed again):
    /// `refused` by default, an error retrying can't fix.
    func failWrites(_ fail: Bool, kind: SyncStoreError.Kind = .refused) {
        failure.withLock { $0 = kind }
        failing.store(fail, ordering: .sequentiallyConsistent)
    }

    /// Makes every later write of `key` throw `unavailable` (or succeed again).
    func failWrites(forKey key: String, _ fail: Bool) {
        failingKeys.withLock { if fail { $0.insert(key) } else { $0.remove(key) } }
    }

    /// Makes the next `count` writes and compare-and-sets throw an error of `kind`.
    func failNextWrites(_ count: Int, kind: SyncStoreError.Kind = .unavailable) {
        failure.withLock { $0 = kind }
        failuresLeft.store(count, ordering: .sequentiallyConsistent)
    }

    /// Makes every later read of the local copy (`cachedRecord`) throw `corruptRecord`, as a
    /// local store whose file is damaged does (or read again).
    func failCachedReads(_ fail: Bool) { failingCachedReads.store(fail, ordering: .sequentiallyConsistent) }

    /// Makes another writer commit the key just before every compare-and-set (so it conflicts).
    func interfere(_ interfere: Bool) { interfering.store(interfere, ordering: .sequentiallyConsistent) }

    /// Makes each write return only some milliseconds after it was committed (so the change feed
    /// delivers the record before the writer hears of it).
    func acknowledgeSlowly(_ slow: Bool) { slowAcknowledgements.store(slow, ordering: .sequentiallyConsistent) }

    /// Makes the store report itself unavailable from now on (as one whose database is down
    /// does), so `waitUntilReady(timeout:)` waits out its timeout.
    func reportNeverReady() { neverReady.store(true, ordering: .sequentiallyConsistent) }

    /// Holds writes back until `pause(false)`.
    func pause(_ pause: Bool) { paused.store(pause, ordering: .sequentiallyConsistent) }

    /// The writes received so far (values as UTF-8 text), in order.
    var writes: [(key: String, value: String?)] { log.withLock { $0 } }

    func cachedRecord(forKey key: String) throws -> SyncRecord? {
        if failingCachedReads.load(ordering: .sequentiallyConsistent) {
            throw SyncStoreError(.corruptRecord, key: key, detail: "scripted damage of the local copy")
        }
        return try inner.cachedRecord(forKey: key)
    }

    func fetchRecord(forKey key: String) async throws -> SyncRecord? { try await inner.fetchRecord(forKey: key) }

    func write(_ value: Data?, forKey key: String) async throws -> SyncRecord {
        try await admit(value, key: key)
        let record = try await inner.write(value, forKey: key)
        if slowAcknowledgements.load(ordering: .sequentiallyConsistent) {
            try await Task.sleep(for: .milliseconds(50))
        }
        return record
    }

    func compareAndSet(_ value: Data?, forKey key: String, expectedVersion: Int64) async throws -> SyncCommit {
        try await admit(value, key: key)
        if interfering.load(ordering: .sequentiallyConsistent) {
            _ = try await inner.write(Data("100".utf8), forKey: key)
        }
        return try await inner.compareAndSet(value, forKey: key, expectedVersion: expectedVersion)
    }

    func snapshot() async throws -> [SyncRecord] { try await inner.snapshot() }

    func changeFeed() -> AsyncStream<SyncChange> { inner.changeFeed() }

    func statusUpdates() -> AsyncStream<SyncStoreStatus> {
        guard neverReady.load(ordering: .sequentiallyConsistent) else { return inner.statusUpdates() }
        return AsyncStream { $0.yield(.unavailable(since: Date(), reason: "the scripted store is never ready")) }
    }

    private func admit(_ value: Data?, key: String) async throws {
        log.withLock { $0.append((key, value.map { String(decoding: $0, as: UTF8.self) })) }
        while paused.load(ordering: .sequentiallyConsistent) {
            try await Task.sleep(for: .milliseconds(1))
        }
        if failingKeys.withLock({ $0.contains(key) }) {
            throw SyncStoreError(.unavailable, key: key, detail: "scripted failure of this key")
        }
        let failsOnce = failuresLeft.wrappingSubtract(1, ordering: .sequentiallyConsistent).oldValue > 0
        if failing.load(ordering: .sequentiallyConsistent) || failsOnce {
            throw SyncStoreError(failure.withLock { $0 }, key: key, detail: "scripted failure")
        }
    }
}

/// Installs a logger on the current application that collects error messages.
func collectErrors() -> MessageCollector {
    let collected = MessageCollector()
    Application.promote(\.logger, with: ApplicationLogger(debug: { _ in }, error: { collected.append($0) }))
    return collected
}

/// Installs a fresh in-memory store on the current application and returns it.
@discardableResult
func installStore(_ store: InMemorySyncStore = InMemorySyncStore()) -> InMemorySyncStore {
    Application.promote(\.syncStore, with: store)
    return store
}

/// `value`'s JSON.
func json<Value: Encodable>(_ value: Value) throws -> Data {
    try JSONEncoder().encode(value)
}
