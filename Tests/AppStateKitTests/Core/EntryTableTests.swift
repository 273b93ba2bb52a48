import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

/// The registry's table: colliding hashes, removals in any order (the backward shift that keeps
/// probe sequences unbroken) and growth keep every remaining entry findable.
@Suite("The registry's entry table", .isolatedApplication)
struct EntryTableTests {
    /// A key whose hash is chosen, so keys can be made to collide.
    private static func key(_ id: Int, hash: Int) -> EntryKey {
        EntryKey(kind: EntryKind.state.identifier, valueType: ObjectIdentifier(Int.self), feature: "Table", id: "\(id)", fastHash: hash)
    }

    @Test("colliding and neighbouring keys stay findable through removals in random order and growth")
    func removalsKeepProbesIntact() {
        var generator = SystemRandomNumberGenerator()
        for round in 0..<20 {
            EntryTable.unshared { table, held in
                // Hashes in a few clusters, so probe sequences overlap and wrap around the table end.
                let entries = (0..<60).map { id in
                    StateEntry(key: Self.key(id, hash: [3, 4, 15, 31, -1][id % 5] &+ (id % 3) * 16 * round), initial: id)
                }
                for entry in entries { table.insert(entry, holding: held) }
                #expect(table.count == entries.count)
                var remaining = entries
                for removed in entries.shuffled(using: &generator).prefix(40) {
                    let removedOnce = table.remove(removed, holding: held)
                    let removedTwice = table.remove(removed, holding: held)
                    #expect(removedOnce)
                    #expect(!removedTwice, "a second removal of the same entry finds nothing")
                    remaining.removeAll { $0 === removed }
                    for entry in remaining {
                        #expect(table.find(entry.key) === entry, "round \(round): \(entry.key.readable) is lost after removing \(removed.key.readable)")
                    }
                    #expect(table.find(removed.key) == nil)
                }
                #expect(table.count == remaining.count)
                #expect(Set(table.all.map(ObjectIdentifier.init)) == Set(remaining.map(ObjectIdentifier.init)))
            }
        }
    }

    @Test("an entry reference finds its entry, and nothing once it is removed")
    func referencesFollowTheTable() {
        EntryTable.unshared { table, held in
            let first = StateEntry(key: Self.key(1, hash: 7), initial: 1)
            let second = StateEntry(key: Self.key(2, hash: 7), initial: 2)
            table.insert(first, holding: held)
            table.insert(second, holding: held)
            #expect(table.find(EntryReference(second)) === second)
            let removed = table.remove(first, holding: held)
            #expect(removed)
            #expect(table.find(EntryReference(second)) === second)
            #expect(table.find(EntryReference(first)) == nil)
        }
    }
}
