import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// Why a ``SyncStore`` operation failed. Messages name the key (and, where there is one, the
/// store's location).
public struct SyncStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it was. New kinds may be added; switch with a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let code: String
        private init(_ code: String) { self.code = code }

        /// The key is empty, longer than ``SyncLimits/maxKeyBytes``, or contains a NUL character.
        public static let invalidKey = Kind("invalid key")
        /// The value's JSON is larger than ``SyncLimits/maxValueBytes``.
        public static let valueTooLarge = Kind("value too large")
        /// The backing store cannot be reached (connection lost, server down). The write was
        /// not acknowledged; if the connection failed after it was sent, it may still have been
        /// committed (the outcome is unknown), so check with `fetchRecord(forKey:)` before
        /// repeating a non-idempotent change. `SyncState.update` never retries after it.
        public static let unavailable = Kind("store unavailable")
        /// The store holds bytes for the key that are not a valid record or value.
        public static let corruptRecord = Kind("corrupt record")
        /// The value cannot be encoded, or the stored JSON doesn't decode as the declared type.
        public static let typeMismatch = Kind("type mismatch")
        /// A local I/O failure (the embedded store's file).
        public static let ioFailure = Kind("I/O failure")
        /// A compare-and-set update kept losing to other writers and gave up.
        public static let contention = Kind("too much contention")
        /// The store was shut down.
        public static let shutDown = Kind("store shut down")
        /// The backing store refused the operation for a reason that retrying won't fix (a
        /// missing permission, a missing table, a value it can't hold); the detail says what to
        /// do. Nothing was committed.
        public static let refused = Kind("refused by the store")

        /// The kind's name, as used in messages.
        public var description: String { code }
    }

    /// What kind of failure it was.
    public let kind: Kind
    /// The key involved (empty when the failure concerns the whole store).
    public let key: String
    /// Details: the store's location, the underlying error, what to do.
    public let detail: String

    /// Creates an error.
    public init(_ kind: Kind, key: String, detail: String) {
        self.kind = kind
        self.key = key
        self.detail = detail
    }

    /// Whether retrying the same operation later may succeed: kinds `unavailable` (the store
    /// can't be reached) and `ioFailure` (a local I/O failure, such as a full disk). A setter's
    /// write that fails with such an error is kept and retried (see ``Application/SyncState``);
    /// one that fails with any other kind is dropped and reported.
    public var isTransient: Bool {
        kind == .unavailable || kind == .ioFailure
    }

    /// `"<kind> for sync key <key>: <detail>"`; a NUL character in the key is shown as `\0`.
    public var description: String {
        let shownKey = key.replacingOccurrences(of: "\u{0}", with: "\\0")
        return key.isEmpty ? "\(kind): \(detail)" : "\(kind) for sync key \"\(shownKey)\": \(detail)"
    }
}

/// The limits every ``SyncStore`` enforces, so a value that fits one store fits all of them.
public enum SyncLimits {
    /// The longest key, in UTF-8 bytes.
    public static let maxKeyBytes = 255
    /// The largest value, in bytes of JSON.
    public static let maxValueBytes = 1 << 20

    /// Throws ``SyncStoreError`` of kind `invalidKey` when `key` is empty, longer than
    /// ``maxKeyBytes`` or contains a NUL character (U+0000, which neither PostgreSQL text nor
    /// every file format can hold), or `valueTooLarge` when `value` exceeds ``maxValueBytes``.
    public static func check(key: String, value: Data?) throws {
        let keyBytes = key.utf8.count
        if keyBytes == 0 || keyBytes > maxKeyBytes {
            throw SyncStoreError(.invalidKey, key: key, detail: "a key must have 1 to \(maxKeyBytes) UTF-8 bytes, this one has \(keyBytes)")
        }
        if key.utf8.contains(0) {
            throw SyncStoreError(.invalidKey, key: key, detail: "a key must not contain a NUL character (U+0000); remove it from the SyncState's feature or id")
        }
        if let value, value.count > maxValueBytes {
            throw SyncStoreError(.valueTooLarge, key: key, detail: "the value's JSON has \(value.count) bytes; the limit is \(maxValueBytes)")
        }
    }
}
