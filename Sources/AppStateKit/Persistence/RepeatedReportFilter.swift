/// Lets a failure that repeats on every access of a persisted entry reach the logger once.
///
/// A damaged file or store value fails every read the same way; reporting each read would flood
/// the log. A message is reported when it differs from the one reported last, and a successful
/// read forgets the last one, so the same failure coming back after a recovery is reported again.
final class RepeatedReportFilter: @unchecked Sendable {
    // Safe: `lastReported` is only accessed while `lock` is held.
    private let lock = Lock()
    private var lastReported: String?

    /// Forgets the last report: the entry was read successfully.
    func clear() {
        lock.withLock { lastReported = nil }
    }

    /// Whether `message` should be reported: whether it differs from the last one reported.
    /// Remembers it either way.
    func isNew(_ message: String) -> Bool {
        lock.withLock {
            defer { lastReported = message }
            return lastReported != message
        }
    }
}
