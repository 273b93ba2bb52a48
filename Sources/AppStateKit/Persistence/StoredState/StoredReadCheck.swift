/// What vouches for the value a ``StoredStateEntry`` kept from its last read of a
/// ``FileKeyValueStore``: the store, its validity then, and — for an entry using its
/// application's `\.userDefaults` — the check of that resolution. Nothing kept: no store.
struct StoredReadCheck {
    var store: FileKeyValueStore?
    var validity: FileKeyValueStore.ReadValidity?
    /// `nil` for the entry's own store, which needs no resolution.
    var collaborator: CollaboratorCheck?

    /// Whether the kept value is still what a read by `owner`'s entry returns for the calling
    /// task: the store is unchanged since the read, and the same store would be resolved.
    @inline(__always)
    func holds(for owner: EntryOwner) -> Bool {
        // Optional chaining rather than binding: binding would retain.
        guard store?.isUnchanged(since: validity) == true else { return false }
        return collaborator?.holds(for: owner) ?? true
    }
}
