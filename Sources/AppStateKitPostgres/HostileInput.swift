#if PostgreSQL
import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSync
import Foundation

/// The bounds every number from outside the process must meet before the store uses it: rows
/// and notifications other roles can write, and the last-known-good file. Any record outside
/// them is damaged: skipped and reported with its key, never a trap.
package enum SyncInputBounds {
    /// The highest version the store accepts (2⁶²: at a million writes a second, 146,000 years
    /// of writes). A write to a row at or above it starts the key again at version 1.
    package static let maxVersion: Int64 = 1 << 62
    /// How far from now a row's `updated_at` may be: 100 years, in microseconds.
    package static let timeWindowMicroseconds: Int64 = 36_525 * 24 * 3600 * 1_000_000
    /// The longest notification payload the parser looks at (PostgreSQL's own limit is 8,000).
    package static let maxPayloadBytes = 8000
    /// The most a notification's lag metric records: one hour, in microseconds.
    package static let maxLagMicroseconds: Int64 = 3600 * 1_000_000

    /// Whether `version` is one the store can use.
    package static func isValid(version: Int64) -> Bool {
        version >= 1 && version <= maxVersion
    }

    /// Whether `stamp` (microseconds since 1970) is within ``timeWindowMicroseconds`` of `now`,
    /// computed without overflow for any pair.
    package static func isSane(stamp: Int64, now: Int64) -> Bool {
        let (distance, overflow) = now.subtractingReportingOverflow(stamp)
        return !overflow && distance.magnitude <= UInt64(timeWindowMicroseconds)
    }

    /// Microseconds since 1970, now.
    package static func nowMicroseconds() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1_000_000)
    }

    /// A short, escaped prefix of text someone else chose, for a log line: control characters,
    /// quotes, backslashes and everything outside printable ASCII are escaped, and at most
    /// `limit` characters of the input are shown (the total length is said when cut).
    package static func escapedPrefix(_ text: some StringProtocol, limit: Int = 80) -> String {
        var shown = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                return shown + "… (\(text.utf8.count) bytes in all)"
            }
            count += 1
            switch scalar {
            case "\\": shown += "\\\\"
            case "\"": shown += "\\\""
            case "\n": shown += "\\n"
            case "\r": shown += "\\r"
            case "\t": shown += "\\t"
            case " "..."~": shown.unicodeScalars.append(scalar)
            default: shown += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return shown
    }
}

/// One notification of a commit: `"<version> <stamp> <key>"`, as the store's write statements
/// send it. Anyone who can log in can send anything on the channel (PostgreSQL checks no
/// privilege on `NOTIFY`), so a notification is only a hint: at worst it costs one read of a key.
package struct SyncNotification: Sendable, Equatable {
    package var version: Int64
    package var stamp: Int64
    package var key: String

    package init(version: Int64, stamp: Int64, key: String) {
        self.version = version
        self.stamp = stamp
        self.key = key
    }

    /// Why a payload was not a usable notification.
    package enum Malformed: Error, Equatable, CustomStringConvertible {
        case tooLong(bytes: Int)
        case notThreeFields
        case badVersion
        case badStamp
        case badKey(String)

        package var description: String {
            switch self {
            case .tooLong(let bytes): "it has \(bytes) bytes, more than \(SyncInputBounds.maxPayloadBytes)"
            case .notThreeFields: "it is not \"<version> <stamp> <key>\""
            case .badVersion: "its version is not a number from 1 to \(SyncInputBounds.maxVersion)"
            case .badStamp: "its stamp is not a time within 100 years of now (microseconds since 1970)"
            case .badKey(let reason): "its key is not usable: \(reason)"
            }
        }
    }

    /// Parses `payload`; a pure function of its arguments that never traps.
    package static func parse(_ payload: String, now: Int64) -> Result<SyncNotification, Malformed> {
        let bytes = payload.utf8.count
        guard bytes <= SyncInputBounds.maxPayloadBytes else { return .failure(.tooLong(bytes: bytes)) }
        let parts = payload.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return .failure(.notThreeFields) }
        guard let version = Int64(parts[0]), SyncInputBounds.isValid(version: version) else { return .failure(.badVersion) }
        guard let stamp = Int64(parts[1]), SyncInputBounds.isSane(stamp: stamp, now: now) else { return .failure(.badStamp) }
        let key = String(parts[2])
        do {
            try SyncLimits.check(key: key, value: nil)
        } catch let error as SyncStoreError {
            return .failure(.badKey(error.detail))
        } catch {
            return .failure(.badKey("\(error)"))
        }
        return .success(SyncNotification(version: version, stamp: stamp, key: key))
    }

    /// The notification's delivery lag for the metric: now minus its stamp, clamped to
    /// 0…``SyncInputBounds/maxLagMicroseconds`` (a sender chooses the stamp).
    package func lagMicroseconds(now: Int64) -> Int64 {
        let (lag, overflow) = now.subtractingReportingOverflow(stamp)
        if overflow { return stamp < 0 ? SyncInputBounds.maxLagMicroseconds : 0 }
        return min(max(0, lag), SyncInputBounds.maxLagMicroseconds)
    }
}

/// One row as the store's reads select it: the value only when its size (`octet_length`,
/// measured by PostgreSQL) is within the limit, and `updated_at` as text, so no row can fail
/// the query that reads it.
package struct SyncRow: Sendable, Equatable {
    package var key: String
    /// The value's JSON text; `nil` for a tombstone, or when it is over the size limit.
    package var value: String?
    /// The value's size in bytes, measured in SQL; `nil` for a tombstone.
    package var valueBytes: Int64?
    package var version: Int64?
    /// `updated_at` in whole microseconds since 1970, as text (`Infinity`, `-Infinity` or
    /// `nil` for a non-finite or missing time).
    package var stamp: String?

    package init(key: String, value: String?, valueBytes: Int64?, version: Int64?, stamp: String?) {
        self.key = key
        self.value = value
        self.valueBytes = valueBytes
        self.version = version
        self.stamp = stamp
    }

    /// Why a row is damaged.
    package enum Damage: Error, Equatable, CustomStringConvertible {
        case badKey(String)
        case badVersion(Int64?)
        case badTime(String?)
        case tooLarge(Int64)
        case valueMissing

        package var description: String {
            switch self {
            case .badKey(let reason): "its key is not usable (\(reason))"
            case .badVersion(let version): "its version is \(version.map(String.init) ?? "NULL"), outside 1…\(SyncInputBounds.maxVersion)"
            case .badTime(let stamp): "its updated_at is \(stamp.map { SyncInputBounds.escapedPrefix($0, limit: 30) } ?? "NULL"), not a time within 100 years of now"
            case .tooLarge(let bytes): "its value has \(bytes) bytes, more than the limit of \(SyncLimits.maxValueBytes) (it was not transferred)"
            case .valueMissing: "its value size and value disagree"
            }
        }
    }

    /// The record the row holds, or why it is damaged; a pure function of its arguments that
    /// never traps.
    package func decode(now: Int64) -> Result<StampedRecord, Damage> {
        do {
            try SyncLimits.check(key: key, value: nil)
        } catch let error as SyncStoreError {
            return .failure(.badKey(error.detail))
        } catch {
            return .failure(.badKey("\(error)"))
        }
        guard let version, SyncInputBounds.isValid(version: version) else { return .failure(.badVersion(version)) }
        guard let text = stamp, let micros = Int64(text), SyncInputBounds.isSane(stamp: micros, now: now) else {
            return .failure(.badTime(stamp))
        }
        if let valueBytes, valueBytes > Int64(SyncLimits.maxValueBytes) || valueBytes < 0 {
            return .failure(.tooLarge(valueBytes))
        }
        guard (value == nil) == (valueBytes == nil) else { return .failure(.valueMissing) }
        let data = value.map { Data($0.utf8) }
        if let data, data.count > SyncLimits.maxValueBytes { return .failure(.tooLarge(Int64(data.count))) }
        return .success(StampedRecord(SyncRecord(key: key, value: data, version: version), stamp: micros))
    }
}

/// Reports each damaged record once per key and reason (until the key reads well again), so a
/// bad row that every reconciliation meets is one log line, not one a round. Remembers at most
/// ``capacity`` keys; beyond that it counts and reports the count at most once a minute.
package final class DamageReporter: Sendable {
    package static let capacity = 1024

    private struct State {
        var reported: [String: String] = [:]
        var unreported = 0
        var lastSummary: WaitClock.Instant?
    }

    private let state = LockedBox(State())
    private let clock: WaitClock
    private let log: @Sendable (String) -> Void

    /// A reporter that passes each line to `log`, its summaries a minute apart on `clock`.
    package init(clock: WaitClock = .current, log: @escaping @Sendable (String) -> Void) {
        self.clock = clock
        self.log = log
    }

    /// Reports that `key`'s record is damaged for `reason` (once); `message` builds the line.
    /// Returns whether it was reported now.
    @discardableResult
    package func report(key: String, reason: String, message: () -> String) -> Bool {
        enum Outcome { case report, summarize(Int), none }
        let outcome = state.withLock { state -> Outcome in
            if state.reported[key] == reason { return .none }
            if state.reported[key] == nil && state.reported.count >= Self.capacity {
                state.unreported += 1
                let now = clock.now
                if let last = state.lastSummary, last.duration(to: now) < .seconds(60) { return .none }
                state.lastSummary = now
                return .summarize(state.unreported)
            }
            state.reported[key] = reason
            return .report
        }
        switch outcome {
        case .report:
            log(message())
            return true
        case .summarize(let count):
            log("AppStateKit: PostgresSyncStore met \(count) more damaged records than it reports one by one (\(Self.capacity)); the latest: \(message())")
            return true
        case .none:
            return false
        }
    }

    /// `key` reads well again: its next damage is reported anew.
    package func forget(key: String) {
        state.withLock { state in
            if !state.reported.isEmpty { state.reported[key] = nil }
        }
    }

    /// After an authoritative read of every row: forgets every key not in `damaged`.
    package func keepOnly(_ damaged: Set<String>) {
        state.withLock { state in
            guard !state.reported.isEmpty else { return }
            state.reported = state.reported.filter { damaged.contains($0.key) }
        }
    }

    /// The keys reported and not forgotten.
    package var reportedKeys: Set<String> {
        state.withLock { Set($0.reported.keys) }
    }
}

/// The notifications heard and not yet handled: at most ``capacity`` keys, the latest
/// notification per key (a burst for one key costs one read). When a notification for a new
/// key finds it full, it is dropped and the buffer asks for a reconciliation instead
/// ("reconcile soon"), which covers every dropped key at once. Malformed notifications are
/// counted here and reported at most once per ``reportInterval``.
package final class NotificationBuffer: Sendable {
    package static let defaultCapacity = 256
    package static let reportInterval: Duration = .seconds(10)

    private struct State {
        var pending: [String: SyncNotification] = [:]
        var order: [String] = []
        var reconcileSoon = false
        var malformed = 0
        var malformedSinceReport = 0
        var lastReport: WaitClock.Instant?
        var dropped = 0
    }

    package let capacity: Int
    private let state = LockedBox(State())
    /// The clock of ``reportInterval``.
    private let clock: WaitClock

    package init(capacity: Int = NotificationBuffer.defaultCapacity, clock: WaitClock = .current) {
        self.capacity = capacity
        self.clock = clock
    }

    /// Adds `notification`, coalescing it with one pending for the same key.
    package func offer(_ notification: SyncNotification) {
        state.withLock { state in
            if state.pending[notification.key] != nil {
                state.pending[notification.key] = notification
            } else if state.reconcileSoon || state.pending.count >= capacity {
                state.reconcileSoon = true
                state.dropped += 1
            } else {
                state.pending[notification.key] = notification
                state.order.append(notification.key)
            }
        }
    }

    /// Counts one malformed payload; returns the count to report (malformed payloads since the
    /// last report, this one included) when a report is due, `nil` otherwise.
    package func noteMalformed() -> Int? {
        let now = clock.now
        return state.withLock { state in
            state.malformed += 1
            state.malformedSinceReport += 1
            if let last = state.lastReport, last.duration(to: now) < Self.reportInterval { return nil }
            state.lastReport = now
            defer { state.malformedSinceReport = 0 }
            return state.malformedSinceReport
        }
    }

    /// Takes what is pending: the notifications in arrival order, and whether some were dropped
    /// (then a reconciliation must follow).
    package func take() -> (notifications: [SyncNotification], reconcileSoon: Bool) {
        state.withLock { state in
            let taken = state.order.compactMap { state.pending[$0] }
            let reconcile = state.reconcileSoon
            state.pending.removeAll(keepingCapacity: true)
            state.order.removeAll(keepingCapacity: true)
            state.reconcileSoon = false
            return (taken, reconcile)
        }
    }

    /// The number of keys pending.
    package var count: Int { state.withLock { $0.pending.count } }
    /// Malformed payloads counted since the buffer was made.
    package var malformedCount: Int { state.withLock { $0.malformed } }
    /// Notifications dropped because the buffer was full.
    package var droppedCount: Int { state.withLock { $0.dropped } }
}
#endif
