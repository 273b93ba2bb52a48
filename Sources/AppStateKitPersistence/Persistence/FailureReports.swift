import AppStateKitCore
/// The last failure an entry reported (a persisted state's, a secure state's), so that one
/// repeated on every read is reported once.
package final class FailureReports: Sendable {
    /// The last failure reported, so that one repeated on every read is reported once.
    private let lastReported = LockedBox<String?>(nil)
    /// Whether ``lastReported`` is set (1), written with its lock held: a successful read takes
    /// no lock when there is nothing to forget.
    private let hasReported = AtomicWord(0)

    package init() {}

    /// Forgets the last failure after a read succeeded, so the same failure is reported again
    /// if it comes back.
    package func readSucceeded() {
        if hasReported.loadRelaxed() != 0 {
            lastReported.withLock {
                $0 = nil
                hasReported.storeRelaxed(0)
            }
        }
    }

    /// Reports `error` through `owner`'s logger, once per distinct message in a row.
    package func report(_ error: any Error, to owner: EntryOwner) {
        report(message: "AppStateKit: \(error)", to: owner)
    }

    /// Reports `message` through `owner`'s logger unless it is the last one reported.
    package func report(message: String, to owner: EntryOwner) {
        let isNew = lastReported.withLock { last in
            defer {
                last = message
                hasReported.storeRelaxed(1)
            }
            return last != message
        }
        if isNew { owner.reportError(message) }
    }
}
