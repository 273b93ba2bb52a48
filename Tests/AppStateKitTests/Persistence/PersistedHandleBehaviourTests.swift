import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync
import AppStateKitTesting

/// One persisted value of either kind, its files in an ``InMemoryFileSystem`` so failures can be
/// injected; every operation acts on a fresh handle, as code using `Application.storedState(_:)`
/// or `Application.fileState(_:)` does.
private struct PersistedSubject {
    let kind: PersistedKind
    let files = InMemoryFileSystem()
    let application = Application()

    /// The file the value lives in: the key-value store's file, or the FileState's own file.
    var file: String {
        switch kind {
        case .stored: "/kv/defaults.json"
        case .file: "/fs/count.json"
        }
    }

    private var store: FileKeyValueStore { FileKeyValueStore(path: "/kv/defaults.json", fileSystem: files) }

    /// Runs `body` where the FileState's `\.fileManager` is the in-memory file system.
    func run<R>(_ body: () throws -> R) rethrows -> R {
        try Application.withOverrides({ $0.override(\.fileManager, with: files) }, operation: body)
    }

    var value: Int {
        get {
            run {
                switch kind {
                case .stored: application.storedState(initial: 0, feature: "Shared", id: "count", store: store).value
                case .file: application.fileState(initial: 0, path: "/fs", filename: "count.json").value
                }
            }
        }
        nonmutating set {
            run {
                switch kind {
                case .stored:
                    var handle = application.storedState(initial: 0, feature: "Shared", id: "count", store: store)
                    handle.value = newValue
                case .file:
                    var handle = application.fileState(initial: 0, path: "/fs", filename: "count.json")
                    handle.value = newValue
                }
            }
        }
    }

    func reset() {
        run {
            switch kind {
            case .stored: application.storedState(initial: 0, feature: "Shared", id: "count", store: store).reset()
            case .file: application.fileState(initial: 0, path: "/fs", filename: "count.json").reset()
            }
        }
    }

    func read() throws -> Int {
        try run {
            switch kind {
            case .stored: try application.storedState(initial: 0, feature: "Shared", id: "count", store: store).read()
            case .file: try application.fileState(initial: 0, path: "/fs", filename: "count.json").read()
            }
        }
    }

    func write(_ newValue: Int) throws {
        try run {
            switch kind {
            case .stored: try application.storedState(initial: 0, feature: "Shared", id: "count", store: store).write(newValue)
            case .file: try application.fileState(initial: 0, path: "/fs", filename: "count.json").write(newValue)
            }
        }
    }

    /// Replaces the persisted value, behind the entry's back, by one that doesn't decode as `Int`.
    func damage() throws {
        switch kind {
        case .stored: try store.writeObject("many", forKey: "Shared/count")
        case .file: try files.writeAtomically(Data("not json".utf8), toFile: file)
        }
    }
}

enum PersistedKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case stored = "StoredState"
    case file = "FileState"

    var testDescription: String { rawValue }

    /// What a write failing with `ENOSPC` is reported as. (The key-value store's write error
    /// names the store's file, which holds every key, not the key.)
    var diskFullMessage: String {
        switch self {
        case .stored: #"AppStateKit: disk full for key "Shared/count" in /kv/defaults.json: write failed (ENOSPC)"#
        case .file: #"AppStateKit: disk full for /fs/count.json: write failed (ENOSPC)"#
        }
    }

    /// What a read failing with `EIO` is reported as.
    var readFailureMessage: String {
        switch self {
        case .stored: #"AppStateKit: I/O error EIO for /kv/defaults.json: stat failed (EIO)"#
        case .file: #"AppStateKit: I/O error EIO for /fs/count.json: stat failed (EIO)"#
        }
    }

    /// What a value that doesn't decode as `Int` is reported as.
    var damagedMessage: String {
        switch self {
        case .stored: #"AppStateKit: type mismatch for key "Shared/count" in /kv/defaults.json: stored String, expected Int"#
        case .file: #"AppStateKit: corrupt data for /fs/count.json: the JSON does not decode as Int: the given data was not valid JSON"#
        }
    }
}

/// StoredState and FileState share one implementation (`PersistedEntry`): each behaviour of the
/// handles, proved for both kinds.
@Suite("StoredState and FileState handles behave alike", .isolatedApplication, .reportsAsDiagnosticsInEveryApplication)
struct PersistedHandleBehaviourTests {
    @Test("a failing assignment is reported once, naming the file, and changes nothing", arguments: PersistedKind.allCases)
    func setterFailure(kind: PersistedKind) throws {
        let subject = PersistedSubject(kind: kind)
        subject.value = 1
        subject.files.fail(.write, at: (subject.file as NSString).deletingLastPathComponent, with: ENOSPC)
        let logs = capturingLogs {
            subject.value = 2
            subject.value = 3
        }
        #expect(logs == [kind.diskFullMessage])
        subject.files.removeFailures()
        #expect(subject.value == 1)
        #expect(try subject.read() == 1)
    }

    @Test("reset removes the value, so reads return the initial value; a failing reset is reported", arguments: PersistedKind.allCases)
    func reset(kind: PersistedKind) throws {
        let subject = PersistedSubject(kind: kind)
        subject.value = 5
        subject.reset()
        #expect(subject.value == 0)
        #expect(try subject.read() == 0)
        subject.value = 6
        subject.files.fail(.write, at: (subject.file as NSString).deletingLastPathComponent, with: ENOSPC)
        subject.files.fail(.remove, at: subject.file, with: ENOSPC)
        subject.files.fail(.rename, at: subject.file, with: ENOSPC)
        let logs = capturingLogs { subject.reset() }
        #expect(logs.count == 1)
        subject.files.removeFailures()
        #expect(subject.value == 6)
    }

    @Test("read() throws what the value getter reports, naming the path", arguments: PersistedKind.allCases)
    func readThrows(kind: PersistedKind) throws {
        let subject = PersistedSubject(kind: kind)
        subject.value = 7
        subject.files.fail(.stat, at: subject.file, with: EIO)
        subject.files.fail(.read, at: subject.file, with: EIO)
        #expect(throws: PersistenceError.self) { try subject.read() }
        do {
            _ = try subject.read()
        } catch let error as PersistenceError {
            #expect(error.kind == .ioFailure && error.errno == EIO)
            #expect("AppStateKit: \(error)" == kind.readFailureMessage)
        }
        let logs = capturingLogs { #expect(subject.value == 0) }
        #expect(logs == [kind.readFailureMessage])
    }

    @Test("write(_:) throws the failure and changes nothing", arguments: PersistedKind.allCases)
    func writeThrows(kind: PersistedKind) throws {
        let subject = PersistedSubject(kind: kind)
        try subject.write(8)
        #expect(try subject.read() == 8)
        subject.files.fail(.write, at: (subject.file as NSString).deletingLastPathComponent, with: ENOSPC)
        let logs = capturingLogs {
            #expect(throws: PersistenceError.self) { try subject.write(9) }
            do {
                try subject.write(9)
            } catch let error as PersistenceError {
                #expect(error.kind == .diskFull)
                #expect("AppStateKit: \(error)" == kind.diskFullMessage)
            } catch {
                Issue.record("unexpected \(error)")
            }
        }
        #expect(logs.isEmpty)  // thrown, not reported
        subject.files.removeFailures()
        #expect(try subject.read() == 8)
    }

    @Test("damaged data reads as the initial value, reported once until a good read; read() throws it", arguments: PersistedKind.allCases)
    func damagedDataFallsBack(kind: PersistedKind) throws {
        let subject = PersistedSubject(kind: kind)
        subject.value = 4
        try subject.damage()
        let logs = capturingLogs {
            #expect(subject.value == 0)
            #expect(subject.value == 0)
            #expect(subject.value == 0)
        }
        #expect(logs == [kind.damagedMessage])
        #expect(throws: PersistenceError.self) { try subject.read() }
        // The same failure after a good read is reported again.
        subject.value = 5
        #expect(subject.value == 5)
        try subject.damage()
        let again = capturingLogs { #expect(subject.value == 0) }
        #expect(again == [kind.damagedMessage])
    }
}
