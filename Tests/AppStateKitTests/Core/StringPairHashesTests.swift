import Foundation
import Testing
@testable import AppStateKit

@Suite("Per-thread memo of explicit names' hashes", .isolatedApplication)
struct StringPairHashesTests {
    /// A string with `text`'s contents in storage of its own (never a literal's or a small string's bits).
    private func fresh(_ text: String) -> String {
        var copy = String(repeating: "_", count: 32)
        copy.removeAll(keepingCapacity: true)
        copy.append(text)
        return copy
    }

    private func hasherHash(_ first: String, _ second: String) -> Int {
        var hasher = Hasher()
        hasher.combine(first)
        hasher.combine(second)
        return hasher.finalize()
    }

    @Test("answers Hasher's hash, on first use and remembered, for small, literal and heap strings")
    func answersHashersHash() {
        let pairs: [(String, String)] = [
            ("App", "port"),
            ("/a/directory/name/longer/than/fifteen/bytes", "profiled.json"),
            (fresh("Settings"), fresh("theme-with-a-long-identifier")),
            ("", ""),
            ("App", "port-2"),
        ]
        for _ in 0..<3 {
            for (first, second) in pairs {
                #expect(StringPairHashes.hash(first, second) == hasherHash(first, second))
            }
        }
    }

    @Test("two pairs a thread keeps using stay remembered, even when their bits fall in the same set")
    func twoPairsInOneSet() throws {
        // A small string's bits are its contents, so these pairs fall where they fall every run.
        let first = ("Set", "a0")
        let set = StringPairHashes.index(StringPairHashes.bits(first.0, first.1))
        let second = try #require((1..<100_000).lazy.map { ("Set", "a\($0)") }.first {
            StringPairHashes.index(StringPairHashes.bits($0.0, $0.1)) == set
        })
        for _ in 0..<3 {
            #expect(StringPairHashes.hash(first.0, first.1) == hasherHash(first.0, first.1))
            #expect(StringPairHashes.hash(second.0, second.1) == hasherHash(second.0, second.1))
        }
        let rows = StringPairHashes.current.rows + 2 * set
        for pair in [first, second] {
            let bits = StringPairHashes.bits(pair.0, pair.1)
            #expect(rows[0].bits == bits || rows[1].bits == bits, "\(pair) is not remembered in its set")
        }
    }

    @Test("a remembered pair never answers for other contents: every pair of many, twice, on several threads")
    func neverAnswersForOtherContents() async {
        await withTaskGroup(of: Bool.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    var allEqual = true
                    for round in 0..<2 {
                        for index in 0..<500 {
                            let first = index.isMultiple(of: 2) ? "F\(index % 7)" : fresh("Feature-\(index % 7)-\(thread)")
                            let second = fresh("id-\(index)-\(round)")
                            allEqual = allEqual && StringPairHashes.hash(first, second) == hasherHash(first, second)
                            // A freed heap string's address may be reused for other contents.
                            let reused = fresh("id-\(index + 1)-\(round)")
                            allEqual = allEqual && StringPairHashes.hash(first, reused) == hasherHash(first, reused)
                        }
                    }
                    return allEqual
                }
            }
            for await allEqual in group { #expect(allEqual) }
        }
    }

    @Test("a key built from feature and id equals, and hashes as, the key built from its name")
    func bothInitialisersAgree() {
        let path = fresh("/tmp/some/directory")
        let byName = EntryKey(kind: .fileState, valueType: Int.self, name: EntryName(feature: path, id: "file.json"))
        for _ in 0..<2 {
            let byStrings = EntryKey(kind: .fileState, valueType: Int.self, feature: fresh("/tmp/some/directory"), id: "file.json")
            #expect(byStrings == byName)
            #expect(byStrings.fastHash == byName.fastHash)
        }
        let other = EntryKey(kind: .fileState, valueType: Int.self, feature: path, id: "other.json")
        #expect(other != byName)
    }

    @Test("a StoredState declared with a run-time feature reaches the same entry through equal strings in other storage")
    func runTimeFeatureFindsItsEntry() {
        Application.promote(\.userDefaults, with: InMemoryDefaults())
        let application = Application.current
        var first = application.storedState(initial: 0, feature: fresh("Run-time feature name"), id: fresh("count"))
        first.value = 41
        let again = application.storedState(initial: 0, feature: fresh("Run-time feature name"), id: fresh("count"))
        #expect(again.value == 41)
        #expect(again.entry === first.entry)
    }
}
