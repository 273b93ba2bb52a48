/// Book-keeping for an entry whose initial value or factory is running on some thread.
///
/// All fields are read and written with the registry lock held.
final class PendingCreation {
    /// The entry being created.
    let key: EntryKey
    /// The thread running the factory.
    let owner: ThreadID
    /// The creation the owner thread was running when it started this one (its resolution stack).
    let parent: PendingCreation?

    init(key: EntryKey, owner: ThreadID, parent: PendingCreation?) {
        self.key = key
        self.owner = owner
        self.parent = parent
    }

    /// The keys from the outermost creation on the owner's stack down to this one.
    var stack: [EntryKey] {
        var keys: [EntryKey] = []
        var current: PendingCreation? = self
        while let creation = current {
            keys.append(creation.key)
            current = creation.parent
        }
        return keys.reversed()
    }
}
