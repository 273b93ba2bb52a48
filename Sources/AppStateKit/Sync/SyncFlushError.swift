/// Why ``Application/flushSyncWrites(timeout:)`` returned before every SyncState write made
/// before it was committed. It names the keys, never the values.
public struct SyncFlushError: Error, Sendable, Hashable, CustomStringConvertible {
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

    /// `"SyncState writes of "App/a", "App/b" were not committed within 5 seconds"`.
    public var description: String {
        let names = keys.map { "\"\($0)\"" }.joined(separator: ", ")
        return timedOut
            ? "SyncState writes of \(names) were not committed within the timeout; they are kept and retried"
            : "SyncState writes of \(names) failed and were not committed (see the logged errors)"
    }
}
