/// The error a conformance suite (``KeyValueStoreConformance``, ``SyncStoreConformance``) throws
/// when a store breaks its protocol's contract: every failed check, each with what was done and
/// what came back.
///
/// Its description lists one failure per line, so a failing test shows everything at once:
///
/// ```
/// FlakyStore failed 2 of 17 conformance checks:
/// - floatRoundTrip: key "conformance.3f9a1c.float" written as Float 1.1, read back Double 1.100000023841858
/// - concurrentWriters: 3 of 64 keys written by 4 concurrent tasks are missing: …
/// ```
public struct ConformanceFailure: Error, Sendable, CustomStringConvertible {
    /// One failed check.
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        /// The check's name, as its `description` spells it.
        public let check: String
        /// What was done and what came back.
        public let message: String

        /// `"<check>: <message>"`.
        public var description: String { "\(check): \(message)" }
    }

    /// The type of the store under test.
    public let store: String
    /// How many checks ran.
    public let checksRun: Int
    /// Every failure, in the order the checks ran; a check can fail in several ways at once.
    public let failures: [Failure]

    /// The names of the failed checks, in the order they ran.
    public var failedChecks: [String] {
        var seen = Set<String>()
        return failures.map(\.check).filter { seen.insert($0).inserted }
    }

    /// The store, the number of failed checks, then one line per failure.
    public var description: String {
        (["\(store) failed \(failedChecks.count) of \(checksRun) conformance checks:"] + failures.map { "- \($0)" })
            .joined(separator: "\n")
    }
}
