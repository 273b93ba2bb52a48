import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private extension Application {
    var lookupLiteral: StoredState<Int> { storedState(initial: 0, feature: "Lookup", id: "shared") }
    var lookupOtherType: StoredState<String> { storedState(initial: "", feature: "Lookup", id: "shared") }
    subscript(lookupBuilt id: String) -> StoredState<Int> { storedState(initial: 0, feature: "Look" + "up", id: id) }
}

/// StoredState and FileState handles find their entry by the name's parts: the parts must
/// identify exactly one entry, however the strings were built.
@Suite("Explicitly named persisted handles find their entry by the name's parts", .isolatedApplication)
struct ExplicitNameLookupTests {
    @Test("a name built at run time finds the entry a literal name created, on this thread and another")
    func builtNameFindsLiteralEntry() {
        Application.promote(\.userDefaults, with: InMemoryDefaults())
        var literal = Application.storedState(\.lookupLiteral)
        literal.value = 4
        let id = String("sha" + "red")
        let built = Application.storedState(\.[lookupBuilt: id])
        #expect(built.value == 4)
        #expect(built.entry === literal.entry)
        let expected = ObjectIdentifier(literal.entry)
        let found = Locked<(value: Int, entry: ObjectIdentifier)?>(nil)
        #expect(finishesOnAnotherThread {
            let elsewhere = Application.storedState(\.[lookupBuilt: id])
            let result = (elsewhere.value, ObjectIdentifier(elsewhere.entry))
            found.withLock { $0 = result }
        })
        #expect(found.withLock { $0?.value } == 4)
        #expect(found.withLock { $0?.entry } == expected)
    }

    @Test("the same name with another value type, another id or another kind is another entry")
    func partsKeepEntriesApart() {
        Application.promote(\.userDefaults, with: InMemoryDefaults())
        let number = Application.storedState(\.lookupLiteral)
        let text = Application.storedState(\.lookupOtherType)
        let other = Application.storedState(\.[lookupBuilt: "other"])
        #expect(number.entry !== text.entry)
        #expect(number.entry !== other.entry)
        let file = Application.current.fileState(initial: 0, path: "Lookup", filename: "shared")
        #expect(file.entry !== number.entry)
        #expect(file.entry.key.readable == number.entry.key.readable)
    }

    @Test("after the entry is removed, the next lookup by the same parts creates a fresh entry")
    func removalIsSeen() {
        Application.promote(\.userDefaults, with: InMemoryDefaults())
        var first = Application.storedState(\.lookupLiteral)
        first.value = 6
        let removed = first.entry
        #expect(Application.remove(state: Application.state(\.lookupLiteral)))
        let again = Application.storedState(\.[lookupBuilt: "shared"])
        #expect(again.entry !== removed)
        #expect(again.value == 6)
    }
}
