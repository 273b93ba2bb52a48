import AppStateKit
import AppStateKitTesting
import Foundation
import Testing
@testable import appstatekit

/// Issue 46 item 1: `kv check` against every single-bit flip of a small store's file and of its
/// log. Damage is never an error (exit 1) and never passes unseen: the check reports damage
/// exactly when an app reading the same bytes would fail to read a key.
@Suite("appstatekit kv check: every single-bit flip", .isolatedApplication)
struct KVCheckExhaustiveTests {
    @Test("each flipped bit of the file (single-file layout) or of the log (log layout) is found exactly when an app's read fails", arguments: [false, true])
    func everyBit(log: Bool) throws {
        let sandbox = try Sandbox()
        let path = sandbox.path("defaults.json")
        let writer = FileKeyValueStore(path: path, layout: log ? .appendOnlyLog : .singleFile)
        try writer.writeObject(7, forKey: "App/a")
        try writer.writeObject("on", forKey: "App/b")
        try writer.writeObject(true, forKey: "App/c")
        let target = log ? path + ".log" : path
        let file = try Data(contentsOf: URL(fileURLWithPath: path))
        let original = try Data(contentsOf: URL(fileURLWithPath: target))
        var tried = 0, found = 0
        for position in original.indices {
            for bit in 0..<8 {
                var bytes = original
                bytes[position] ^= UInt8(1 << bit)
                try file.write(to: URL(fileURLWithPath: path))
                try bytes.write(to: URL(fileURLWithPath: target))
                tried += 1
                let report: KVCheckReport
                do {
                    report = try KVCheckReport(checking: FileKeyValueStore(path: path))
                } catch {
                    Issue.record("byte \(position) bit \(bit): check failed instead of reporting damage: \(error)")
                    continue
                }
                // An app's reads of the same bytes, through a store of its own.
                let app = FileKeyValueStore(path: path)
                var failing = Set<String>()
                for key in try app.keys where !Self.reads(key, app) { failing.insert(key) }
                let wholeStoreFails = !Self.reads("App/none", app)
                if !report.damaged.isEmpty { found += 1 }
                #expect(report.damaged.isEmpty == (failing.isEmpty && !wholeStoreFails), "byte \(position) bit \(bit)")
                let named = Set(report.damaged.compactMap(\.key))
                #expect(named.isEmpty || named == failing, "byte \(position) bit \(bit): names \(named), the app fails on \(failing)")
            }
        }
        #expect(tried == original.count * 8)
        #expect(found > 0, "some flips damage the store")
    }

    /// Whether reading `key` succeeds (a value or none), as an app's read would.
    private static func reads(_ key: String, _ store: FileKeyValueStore) -> Bool {
        do {
            _ = try store.readObject(forKey: key)
            return true
        } catch {
            return false
        }
    }
}
