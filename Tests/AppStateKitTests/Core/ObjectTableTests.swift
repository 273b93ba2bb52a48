import AppStateKitTesting
import Testing
@testable import AppStateKit

/// The registry's use of the table: entries stored under their keys' hashes.
private typealias EntryTable = ObjectTable<RegistryEntry>

private extension ObjectTable where Object == RegistryEntry {
    mutating func add(_ entry: RegistryEntry) {
        add(entry, for: entry.key)
    }

    func entry(for key: EntryKey) -> RegistryEntry? {
        find(key)?.takeUnretainedValue()
    }
}

@Suite("Registry entry table", .isolatedApplication)
struct ObjectTableTests {
    private func key(_ index: Int) -> EntryKey {
        EntryKey(kind: .state, valueType: Int.self, name: EntryName(feature: "Table", id: "entry-\(index)"))
    }

    @Test("finds every added entry across growth, and nothing else")
    func growthKeepsEveryEntry() {
        var table = EntryTable()
        let entries = (0..<5_000).map { StateEntry(key: key($0), initial: $0) }
        for entry in entries { table.add(entry) }
        #expect(table.count == 5_000)
        for (index, entry) in entries.enumerated() {
            #expect(table.entry(for: key(index)) === entry)
        }
        #expect(table.entry(for: key(5_000)) == nil)
        // Same name, different kind or value type: a different entry.
        #expect(table.entry(for: EntryKey(kind: .dependency, valueType: Int.self, name: EntryName(feature: "Table", id: "entry-1"))) == nil)
        #expect(table.entry(for: EntryKey(kind: .state, valueType: String.self, name: EntryName(feature: "Table", id: "entry-1"))) == nil)
        #expect(Set(table.all.map(ObjectIdentifier.init)) == Set(entries.map(ObjectIdentifier.init)))
    }

    @Test("keys whose hashes collide are told apart by comparing the keys")
    func collisions() {
        var table = EntryTable()
        // Call-site hashes mix the file name's length, not its text: these two hash alike.
        let first = EntryKey(kind: .state, valueType: Int.self, name: EntryName(fileID: "A/a.swift", function: "x", line: 1, column: 1))
        let second = EntryKey(kind: .state, valueType: Int.self, name: EntryName(fileID: "A/b.swift", function: "x", line: 1, column: 1))
        #expect(first.fastHash == second.fastHash)
        let firstEntry = StateEntry(key: first, initial: 1)
        let secondEntry = StateEntry(key: second, initial: 2)
        table.add(firstEntry)
        table.add(secondEntry)
        #expect(table.entry(for: first) === firstEntry)
        #expect(table.entry(for: second) === secondEntry)
    }

    @Test("removal keeps every other entry reachable, and the table shrinks as it empties")
    func removalKeepsTheRest() {
        var table = EntryTable()
        let entries = (0..<5_000).map { StateEntry(key: key($0), initial: $0) }
        for entry in entries { table.add(entry) }
        let grownCapacity = table.mask + 1
        for index in stride(from: 1, to: 5_000, by: 2) {
            #expect(table.remove(key(index)) === entries[index])
        }
        #expect(table.remove(key(1)) == nil, "already removed")
        #expect(table.count == 2_500)
        for index in 0..<5_000 {
            #expect(table.entry(for: key(index)) === (index.isMultiple(of: 2) ? entries[index] : nil))
        }
        for index in stride(from: 0, to: 4_990, by: 2) { _ = table.remove(key(index)) }
        #expect(table.count == 5)
        #expect(table.mask + 1 < grownCapacity / 8)
        for index in stride(from: 4_990, to: 5_000, by: 2) {
            #expect(table.entry(for: key(index)) === entries[index])
        }
    }

    @Test("removal only takes the object the predicate accepts, and closes gaps between collisions")
    func conditionalRemovalAndCollisions() {
        var table = EntryTable()
        let first = EntryKey(kind: .state, valueType: Int.self, name: EntryName(fileID: "A/a.swift", function: "x", line: 1, column: 1))
        let second = EntryKey(kind: .state, valueType: Int.self, name: EntryName(fileID: "A/b.swift", function: "x", line: 1, column: 1))
        let firstEntry = StateEntry(key: first, initial: 1)
        let secondEntry = StateEntry(key: second, initial: 2)
        table.add(firstEntry)
        table.add(secondEntry)
        #expect(table.remove(first) { $0 === secondEntry } == nil)
        #expect(table.entry(for: first) === firstEntry)
        #expect(table.remove(first) { $0 === firstEntry } === firstEntry)
        #expect(table.entry(for: first) == nil)
        #expect(table.entry(for: second) === secondEntry, "found across the closed gap")
    }
}
