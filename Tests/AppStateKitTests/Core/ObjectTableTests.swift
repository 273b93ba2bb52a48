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
}
