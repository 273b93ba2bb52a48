import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private struct Reading: Codable, Equatable, Sendable {
    var label: String
    var value: Double
    var spread: Float
}

/// "A number, or else a string": the common shape of an any-JSON cell, which reads the strings
/// written for non-finite numbers as numbers if it is allowed to.
private enum Cell: Codable, Equatable, Sendable {
    case number(Double)
    case text(String)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .number(number): try container.encode(number)
        case let .text(text): try container.encode(text)
        }
    }
}

/// A non-finite number beside cells: it makes the value's JSON carry the strings, which the
/// cells would then read as numbers.
private struct Sheet: Codable, Equatable, Sendable {
    var scale: Double
    var cells: [Cell]
}

extension Application {
    fileprivate func nonFiniteCells(in directory: String) -> FileState<[Cell]> {
        fileState(initial: [], path: directory, filename: "cells.json", isBase64Encoded: false)
    }
    fileprivate func nonFiniteSheet(in directory: String) -> FileState<Sheet> {
        fileState(initial: Sheet(scale: 1, cells: []), path: directory, filename: "sheet.json", isBase64Encoded: false)
    }
    fileprivate var nonFiniteSyncCells: SyncState<[Cell]> { syncState(initial: [], feature: "NonFinite", id: "cells") }
    fileprivate func nonFiniteReading(in directory: String) -> FileState<Reading> {
        fileState(initial: Reading(label: "none", value: 0, spread: 0), path: directory, filename: "reading.json", isBase64Encoded: false)
    }
    fileprivate func nonFiniteValues(in directory: String) -> FileState<[Double]> {
        fileState(initial: [], path: directory, filename: "values")
    }
    fileprivate var nonFiniteSync: SyncState<Double> { syncState(initial: 0, feature: "NonFinite", id: "sync") }
    fileprivate var nonFiniteSyncReading: SyncState<Reading?> { syncState(feature: "NonFinite", id: "reading") }
}

/// Infinity and NaN in persisted values: JSON has no numbers for them, so they are written as
/// the strings "Infinity", "-Infinity" and "NaN" and read back as numbers where a number is
/// expected — instead of failing to persist a `Double` that `UserDefaults` stores without trouble.
/// Values without them are plain JSON, so text that reads "NaN" stays text, also in a type that
/// decodes "a number, or else a string"; a value such a type would read back changed is refused.
@Suite("Non-finite numbers persist", .isolatedApplication, .reportsAsDiagnostics)
struct NonFiniteNumberTests {
    @Test("StoredState: infinity and NaN, alone and inside arrays and Codable values, reach the store file and read back in a new store",
          arguments: [FileKeyValueStore.Layout.singleFile, .appendOnlyLog])
    func storedState(layout: FileKeyValueStore.Layout) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let writer = FileKeyValueStore(path: path, layout: layout)
        let app = Application()
        try app.storedState(initial: 0.0, id: "up", store: writer).write(.infinity)
        try app.storedState(initial: 0.0, id: "down", store: writer).write(-.infinity)
        try app.storedState(initial: 0.0, id: "nan", store: writer).write(.nan)
        try app.storedState(initial: [Double](), id: "list", store: writer).write([1.5, .infinity, -.infinity])
        try app.storedState(initial: Reading(label: "none", value: 0, spread: 0), id: "reading", store: writer)
            .write(Reading(label: "NaN", value: -.infinity, spread: .infinity))

        let reader = FileKeyValueStore(path: path)
        let fresh = Application()
        #expect(fresh.storedState(initial: 0.0, id: "up", store: reader).value == .infinity)
        #expect(fresh.storedState(initial: 0.0, id: "down", store: reader).value == -.infinity)
        #expect(fresh.storedState(initial: 0.0, id: "nan", store: reader).value.isNaN)
        #expect(fresh.storedState(initial: [Double](), id: "list", store: reader).value == [1.5, .infinity, -.infinity])
        // A string that reads "NaN" stays a string: only numbers are converted.
        #expect(fresh.storedState(initial: Reading(label: "none", value: 0, spread: 0), id: "reading", store: reader).value
            == Reading(label: "NaN", value: -.infinity, spread: .infinity))
        #expect(try reader.keys.count == 5)
    }

    @Test("FileState: the readable file holds the strings, and a new application reads the numbers back", .realFileSystem)
    func fileStateReadable() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        var file = Application().nonFiniteReading(in: directory.path)
        try file.write(Reading(label: "Infinity", value: .nan, spread: -.infinity))
        let contents = try String(contentsOfFile: directory.file("reading.json"), encoding: .utf8)
        #expect(contents.contains("\"value\" : \"NaN\""))
        #expect(contents.contains("\"spread\" : \"-Infinity\""))

        let fresh = Application().nonFiniteReading(in: directory.path).value
        #expect(fresh.label == "Infinity")
        #expect(fresh.value.isNaN)
        #expect(fresh.spread == -.infinity)
        file.value = Reading(label: "finite", value: 2.5, spread: 1)
        #expect(Application().nonFiniteReading(in: directory.path).value == Reading(label: "finite", value: 2.5, spread: 1))
    }

    @Test("FileState: base64-encoded files carry them too", .realFileSystem)
    func fileStateBase64() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try Application().nonFiniteValues(in: directory.path).write([.infinity, 0, -.infinity])
        #expect(Application().nonFiniteValues(in: directory.path).value == [.infinity, 0, -.infinity])
    }

    @Test("SyncState: an assignment of infinity is committed and read back as infinity (AppState's testFailEncodingSyncState)")
    func syncState() async throws {
        let store = InMemorySyncStore()
        Application.promote(\.syncStore, with: store)
        var value = Application.syncState(\.nonFiniteSync)
        value.value = .infinity
        #expect(value.value == .infinity)
        #expect(try await value.read() == .infinity)
        let record = try #require(try store.cachedRecord(forKey: "NonFinite/sync"))
        #expect(record.value.map { String(decoding: $0, as: UTF8.self) } == "\"Infinity\"")

        let reading = Reading(label: "x", value: .nan, spread: .infinity)
        _ = try await Application.syncState(\.nonFiniteSyncReading).write(reading)
        let readBack = try #require(try await Application.syncState(\.nonFiniteSyncReading).read())
        #expect(readBack.value.isNaN && readBack.spread == .infinity && readBack.label == "x")
    }

    /// The texts a non-finite number is written as, in a value holding no such number.
    private static let numberLikeTexts: [Cell] = [.text("NaN"), .text("Infinity"), .text("-Infinity"), .number(2.5)]

    @Test("StoredState: a number-or-text value keeps texts that read \"NaN\" or \"Infinity\" as texts, in this store and a new one",
          arguments: [FileKeyValueStore.Layout.singleFile, .appendOnlyLog])
    func storedStateKeepsNumberLikeText(layout: FileKeyValueStore.Layout) throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let writer = FileKeyValueStore(path: path, layout: layout)
        var cells = Application().storedState(initial: [Cell](), id: "cells", store: writer)
        cells.value = Self.numberLikeTexts
        #expect(cells.value == Self.numberLikeTexts)
        #expect(Application().storedState(initial: [Cell](), id: "cells", store: FileKeyValueStore(path: path)).value == Self.numberLikeTexts)
    }

    @Test("FileState: a number-or-text value keeps texts that read \"NaN\" or \"Infinity\" as texts in a new application", .realFileSystem)
    func fileStateKeepsNumberLikeText() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try Application().nonFiniteCells(in: directory.path).write(Self.numberLikeTexts)
        #expect(Application().nonFiniteCells(in: directory.path).value == Self.numberLikeTexts)
    }

    @Test("SyncState: a number-or-text value keeps texts that read \"NaN\" or \"Infinity\" as texts")
    func syncStateKeepsNumberLikeText() async throws {
        let store = InMemorySyncStore()
        Application.promote(\.syncStore, with: store)
        _ = try await Application.syncState(\.nonFiniteSyncCells).write(Self.numberLikeTexts)
        let record = try #require(try store.cachedRecord(forKey: "NonFinite/cells")?.value)
        #expect(try JSONDecoder().decode([Cell].self, from: record) == Self.numberLikeTexts)
        #expect(try await Application.syncState(\.nonFiniteSyncCells).read() == Self.numberLikeTexts)
    }

    @Test("A value whose non-finite numbers would read back as text, or its text as numbers, is refused with the key or path, and nothing changes",
          .realFileSystem)
    func ambiguousValueRefused() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("defaults.json")
        let store = FileKeyValueStore(path: path)
        let stored = Application().storedState(initial: [Cell](), id: "cells", store: store)
        try stored.write([.number(1)])
        // A NaN cell would come back as the text "NaN".
        #expect { try stored.write([.number(.nan)]) } throws: { error in
            guard let error = error as? PersistenceError else { return false }
            return error.kind == .encodingFailed && error.description.contains("cells") && error.description.contains("NaN")
        }
        #expect(stored.value == [.number(1)])
        #expect(Application().storedState(initial: [Cell](), id: "cells", store: FileKeyValueStore(path: path)).value == [.number(1)])

        // A text cell beside an infinite scale would come back as a number.
        let sheet = Application().nonFiniteSheet(in: directory.path)
        try sheet.write(Sheet(scale: 2, cells: [.text("NaN")]))
        #expect { try sheet.write(Sheet(scale: .infinity, cells: [.text("NaN")])) } throws: { error in
            guard let error = error as? PersistenceError else { return false }
            return error.kind == .encodingFailed && error.description.contains("sheet.json")
        }
        #expect(sheet.value == Sheet(scale: 2, cells: [.text("NaN")]))
        #expect(Application().nonFiniteSheet(in: directory.path).value == Sheet(scale: 2, cells: [.text("NaN")]))
        // The same number with cells that can't be confused is written and read back.
        try sheet.write(Sheet(scale: .infinity, cells: [.number(3), .text("three")]))
        #expect(Application().nonFiniteSheet(in: directory.path).value == Sheet(scale: .infinity, cells: [.number(3), .text("three")]))

        let syncStore = InMemorySyncStore()
        Application.promote(\.syncStore, with: syncStore)
        await #expect { try await Application.syncState(\.nonFiniteSyncCells).write([.number(-.infinity)]) } throws: { error in
            (error as? SyncStoreError)?.kind == .typeMismatch
        }
        #expect(try syncStore.cachedRecord(forKey: "NonFinite/cells") == nil)
    }
}
