import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// Issue 42, item 3: every I/O call of every write, compaction, recovery and move-aside
/// sequence fails in turn (`EIO`, `ENOSPC`, `EINTR`, a short write), and a crash that drops
/// what was not flushed happens at every call. No acknowledged write is lost, every failure
/// reaches the caller or the report, and the store opens and takes a write afterwards.
@Suite("Every failing call, at every position", .isolatedApplication, .reportsAsDiagnostics)
struct ExhaustiveFailureTests {
    static let path = "/data/app/defaults.json"
    static let writes: [(key: String, value: Int?)] = [("k0", 1), ("k1", 2), ("k0", 3), ("k2", 4), ("k1", nil), ("k3", 5), ("k0", 6)]
    static let faults: [FaultInjectingFileSystem.Fault] = [.errno(EIO), .errno(ENOSPC), .errno(EINTR), .shortWrite, .crash]
    /// Every position with `APPSTATEKIT_EXHAUSTIVE=1` (.ci/steps/07-exhaustive-persistence.sh);
    /// every seventh otherwise, with a different offset per fault, to keep `swift test` (and its
    /// TSan run) short.
    static let stride = ProcessInfo.processInfo.environment["APPSTATEKIT_EXHAUSTIVE"] == "1" ? 1 : 7

    enum Scenario: String, CaseIterable, CustomTestStringConvertible {
        case singleFile, log, logCompacting, damagedLogRecovery, fileState
        var testDescription: String { rawValue }
    }

    /// The files a run starts from, and the values already acknowledged in them.
    private func base(_ scenario: Scenario) throws -> (InMemoryFileSystem, [String: Set<Int?>]) {
        let files = InMemoryFileSystem()
        files.createDirectory(atPath: "/data/app")
        guard scenario == .damagedLogRecovery else { return (files, [:]) }
        let store = FileKeyValueStore(path: Self.path, layout: .appendOnlyLog, fileSystem: files)
        for (index, key) in ["k0", "k1", "k2"].enumerated() { try store.writeObject(index + 10, forKey: key) }
        var log = try #require(files.contents(atPath: Self.path + ".log"))
        log.append(Data([9, 0, 0, 0, 1, 2, 3, 4, 0x7B, 0x7D, 0x01, 0x02]))  // not a record, nor a torn tail
        files.createFile(atPath: Self.path + ".log", contents: log)
        // The damage is reported until the first write keeps it aside; k0…k2 are then 10…12.
        return (files, ["k0": [10], "k1": [11], "k2": [12]])
    }

    private func store(_ scenario: Scenario, _ files: some FileSystem) -> FileKeyValueStore {
        switch scenario {
        case .singleFile, .fileState: FileKeyValueStore(path: Self.path, fileSystem: files)
        case .log, .damagedLogRecovery: FileKeyValueStore(path: Self.path, layout: .appendOnlyLog, fileSystem: files)
        case .logCompacting: FileKeyValueStore(path: Self.path, layout: .appendOnlyLog, fileSystem: files, compactionThreshold: 40)
        }
    }

    /// Runs the writes of `scenario`; returns the values each key may hold now, and whether a
    /// write threw.
    private func run(_ scenario: Scenario, on files: FaultInjectingFileSystem, at position: Int, fault: FaultInjectingFileSystem.Fault, allowed: [String: Set<Int?>]) -> ([String: Set<Int?>], Bool) {
        var allowed = allowed
        var threw = false
        // Made before the calls are counted: its one `readlink` (for the lock's name) falls
        // back to the path as given, and every write resolves the path again.
        let store = store(scenario, files)
        files.inject(fault, at: position)
        let fileStateFiles = LocalFiles(fileSystem: files, sandbox: nil, isDurable: true)
        for (key, value) in Self.writes {
            do {
                if scenario == .fileState {
                    let path = "/data/app/\(key).json"
                    if let value { try fileStateFiles.writeAtomically(Data("\(value)".utf8), toFile: path) } else { try fileStateFiles.removeFile(path) }
                } else {
                    try store.writeObject(value, forKey: key)
                }
                if files.hasCrashed {
                    // A crashed process returns nothing: whatever it did is unacknowledged.
                    allowed[key, default: [nil]].insert(value)
                    break
                }
                allowed[key] = [value]
            } catch {
                threw = true
                allowed[key, default: [nil]].insert(value)
                if files.hasCrashed { break }
            }
        }
        return (allowed, threw)
    }

    /// The value `key` holds, read by a fresh store on `files`.
    private func read(_ key: String, _ scenario: Scenario, _ files: InMemoryFileSystem) throws -> Int? {
        if scenario == .fileState {
            return try LocalFiles(fileSystem: files, sandbox: nil, isDurable: true).contents(ofFile: "/data/app/\(key).json")
                .map { Int(String(decoding: $0, as: UTF8.self)) ?? -1 }
        }
        return try store(scenario, files).readObject(forKey: key) as? Int
    }

    private func check(_ scenario: Scenario, _ files: InMemoryFileSystem, _ allowed: [String: Set<Int?>], _ context: String, damageMayRemain: Bool) {
        for key in ["k0", "k1", "k2", "k3"] {
            do {
                let value = try read(key, scenario, files)
                #expect(allowed[key, default: [nil]].contains(value), "\(key) reads \(value.map(String.init) ?? "nil"), acknowledged \(allowed[key, default: [nil]]): \(context)")
            } catch let error as PersistenceError where damageMayRemain && error.kind == .corruptData {
                continue
            } catch {
                Issue.record("\(key) can't be read: \(error): \(context)")
            }
        }
    }

    @Test("no acknowledged write is lost, every failure is seen, and the store opens afterwards", arguments: Scenario.allCases)
    func everyPosition(_ scenario: Scenario) throws {
        let (dryBase, initial) = try base(scenario)
        let dry = FaultInjectingFileSystem(dryBase)
        _ = run(scenario, on: dry, at: .max, fault: .errno(EIO), allowed: initial)
        let positions = dry.callCount
        #expect(positions > 20)
        var tried = 0
        for (index, fault) in Self.faults.enumerated() {
            for position in Swift.stride(from: index % Self.stride, to: positions, by: Self.stride) {
                let (start, initial) = try base(scenario)
                let files = FaultInjectingFileSystem(start)
                var outcome: ([String: Set<Int?>], Bool) = ([:], false)
                let logs = capturingLogs { outcome = run(scenario, on: files, at: position, fault: fault, allowed: initial) }
                let (allowed, threw) = outcome
                guard files.fired else { continue }
                tried += 1
                var context = "\(scenario), \(fault) at call \(position) (\(files.firedOperation))"
                if fault != .crash {
                    #expect(threw || !logs.isEmpty, "the failure reaches the caller or the report: \(context)")
                }
                let after = files.recover()
                context += "; files: \(FaultInjectingFileSystem.listing(of: after))"
                _ = capturingLogs {
                    // Read everything: each key its acknowledged value, or damage reported
                    // (only the recovery scenario starts with damage, kept until a write).
                    check(scenario, after, allowed, context, damageMayRemain: scenario == .damagedLogRecovery)
                    do {
                        if scenario == .fileState {
                            try LocalFiles(fileSystem: after, sandbox: nil, isDurable: true).writeAtomically(Data("9".utf8), toFile: "/data/app/k9.json")
                        } else {
                            try store(scenario, after).writeObject(9, forKey: "k9")
                        }
                        #expect(try read("k9", scenario, after) == 9, "\(context)")
                    } catch {
                        Issue.record("the store takes no write afterwards: \(error): \(context)")
                    }
                    check(scenario, after, allowed, context + " (after one more write)", damageMayRemain: false)
                }
            }
        }
        #expect(tried > positions / Self.stride)
        diagnostic("exhaustive I/O failures (\(scenario)): \(positions) calls, \(tried) failing positions tried (\(Self.faults.count) faults)")
    }
}
