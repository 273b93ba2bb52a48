import AppStateKitTesting
import Foundation
import Testing
@testable import AppStateKit

private struct Reading: Codable, Equatable, Sendable {
    var label: String
    var value: Double
    var spread: Float
}

extension Application {
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
@Suite("Non-finite numbers persist", .isolatedApplication)
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
}
