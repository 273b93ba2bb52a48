/// What a persisted entry's read keeps for the next read (``KeptStoredRead``, ``KeptFileRead``):
/// the value, and what tells whether it is still the one a read would return.
///
/// Kept in a ``ReadMostlyReference`` and checked without a lock by
/// ``PersistedEntry/read(keptIn:orElse:)``.
protocol KeptRead: AnyObject {
    associatedtype Value: Sendable
    /// The value the read returned.
    var value: Value { get }
    /// Whether `value` is still what a read by `owner`'s entry returns for the calling task.
    func isCurrent(for owner: EntryOwner) -> Bool
}
