import AppStateKitCore
import AppStateKitPersistence
/// Why ``Application/flushSyncWrites(timeout:)`` returned before every SyncState write made
/// before it was committed. It names the keys, never the values.
///
/// The ``description`` has the format every AppStateKit error shares, `<kind> for <subject>:
/// <detail>`, and the fields the shared names ``kind`` and ``detail`` (``keys`` names every key
/// involved).
public struct SyncFlushError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure it was. New kinds may be added; switch with a `default`.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The writes were still pending (being retried) when the timeout passed.
        public static let timedOut = Kind("timed out")
        /// The writes failed with an error retrying can't fix, and were dropped.
        public static let failed = Kind("failed")

        /// The kind in a few words, as messages show it.
        public var description: String { name }
    }

    /// The store keys whose writes were not committed, sorted.
    public let keys: [String]
    /// `true`: the writes were still pending (being retried) when the timeout passed; `false`:
    /// they failed with an error retrying can't fix (reported through the logger, naming the
    /// key), and their values were dropped.
    public let timedOut: Bool

    /// Creates an error.
    public init(keys: [String], timedOut: Bool) {
        self.keys = keys
        self.timedOut = timedOut
    }

    /// ``Kind/timedOut`` or ``Kind/failed``, as ``timedOut`` says.
    public var kind: Kind { timedOut ? .timedOut : .failed }

    /// What happened to the writes, in a few words.
    public var detail: String {
        timedOut
            ? "not committed within the timeout; they are kept and retried"
            : "not committed, and dropped (see the logged errors)"
    }

    /// `timed out for SyncState writes of "App/a", "App/b": not committed within the timeout;
    /// they are kept and retried`.
    public var description: String {
        let names = keys.map { "\"\($0)\"" }.joined(separator: ", ")
        return "\(kind) for SyncState writes of \(names): \(detail)"
    }
}
