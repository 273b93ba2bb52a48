/// The mailboxes of live change streams, by entry.
///
/// One process-wide table rather than a list in each entry, so entries nobody streams carry no
/// list. Each entry's ``RegistryEntry/streamCount`` mirrors its row: a write to an entry with no
/// stream costs one relaxed atomic load and never touches this table's lock, however many
/// streams watch other entries.
///
/// No change is lost to that relaxed load: a stream stores the count *before* it reads the value
/// for the first time, and that read takes the entry's lock, as the write did. Either the read
/// comes after the write (and sees its value) or the write's later load sees the count (and
/// wakes the stream).
///
/// Writers only raise a flag in each mailbox, with no lock held; no user code runs here.
enum ChangeSubscriptions {
    private static let table = LockedBox<[ObjectIdentifier: Subscribers<ChangeMailbox>]>([:])

    static func count(of entry: any RegistryEntry) -> Int {
        Int(entry.core.streamCount.loadRelaxed())
    }

    /// How many of the streams watching `entry` have a change recorded they haven't taken yet.
    static func pendingCount(of entry: any RegistryEntry) -> Int {
        let subscribed = table.withLock { $0[ObjectIdentifier(entry)].map { Array($0.all) } ?? [] }
        return subscribed.count(where: \.hasPendingChange)
    }

    /// Registers `mailbox` to be signalled after each change of `entry`; returns the token that
    /// removes it.
    static func subscribe(_ entry: any RegistryEntry, _ mailbox: ChangeMailbox) -> UInt64 {
        // Before any stream count is raised, so every write that sees one reaches `notify`.
        EntryChangeHook.install { notify($0) }
        return table.withLock { table in
            let id = ObjectIdentifier(entry)
            let token = table[id, default: Subscribers()].add(mailbox)
            entry.core.streamCount.storeRelaxed(UInt64(table[id]?.count ?? 0))
            return token
        }
    }

    /// Removes the subscription `token` of `entry`; does nothing if it is already gone.
    static func unsubscribe(_ entry: any RegistryEntry, token: UInt64) {
        table.withLock { table in
            let id = ObjectIdentifier(entry)
            guard table[id]?.remove(token) == true else { return }
            let remaining = table[id]?.count ?? 0
            if remaining == 0 { table[id] = nil }
            entry.core.streamCount.storeRelaxed(UInt64(remaining))
        }
    }

    /// Signals every mailbox subscribed to `entry`, after releasing the table's lock.
    static func notify(_ entry: any RegistryEntry) {
        let subscribed = table.withLock { $0[ObjectIdentifier(entry)].map { Array($0.all) } ?? [] }
        for mailbox in subscribed {
            mailbox.signalChange()
        }
    }
}
