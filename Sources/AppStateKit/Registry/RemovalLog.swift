/// The keys a registry removed most recently, so that each thread's memo (`ThreadLookupCache`)
/// can forget just those instead of starting over.
///
/// Each record carries the registry's stamp from just before the removal. Stamps only grow, so
/// the removals a memo synchronised at stamp `s` has not seen are the records stamped `s` or
/// later — as long as the log still reaches back that far. Guarded by the registry lock.
struct RemovalLog {
    /// How many removals are kept; a memo further behind than this starts over.
    static let capacity = 256

    private var records: [(stamp: UInt64, key: EntryKey)] = []
    /// Where the next record goes once the log is full.
    private var next = 0
    /// Whether records have been overwritten, so the log no longer holds the whole history.
    private var hasWrapped = false

    /// Records that `key` was removed while the registry's stamp was `stamp`.
    mutating func record(_ key: EntryKey, removedAt stamp: UInt64) {
        if records.count < Self.capacity {
            records.append((stamp, key))
        } else {
            records[next] = (stamp, key)
            next = (next + 1) % Self.capacity
            hasWrapped = true
        }
    }

    /// The keys removed since the registry's stamp was `stamp`, or `nil` when the log no longer
    /// reaches back that far.
    func keys(removedSince stamp: UInt64) -> [EntryKey]? {
        if hasWrapped, records[next].stamp > stamp { return nil }
        var keys: [EntryKey] = []
        for record in records where record.stamp >= stamp {
            keys.append(record.key)
        }
        return keys
    }
}
