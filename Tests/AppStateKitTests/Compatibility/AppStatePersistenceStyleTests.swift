// StoredState and FileState used the way AppState 3.0 code uses them (main-actor-isolated
// declarations, optional values, relative default path set in setUp); compiles and passes
// unchanged apart from the import.
import Foundation
import XCTest
import AppStateKit

fileprivate extension Application {
    var compatStoredValue: StoredState<Int?> {
        storedState(id: "compatStoredValue", store: compatStore)
    }

    @MainActor
    var compatFileValue: FileState<Int?> {
        fileState(filename: "compatFileValue")
    }

    @MainActor
    var compatFileString: FileState<String?> {
        fileState(filename: "compatFileString", isBase64Encoded: false)
    }
}

/// In memory, so the suite never touches the user's configuration.
private let compatStore = InMemoryDefaults()

@MainActor
fileprivate struct CompatStoredExample {
    @StoredState(\.compatStoredValue) var count
}

@MainActor
fileprivate class CompatFileViewModel {
    @FileState(\.compatFileValue) var count
    @FileState(\.compatFileString) var storedString

    func testPropertyWrapper() {
        count = 27
        storedString = "Hello"
    }
}

final class AppStatePersistenceStyleTests: XCTestCase {
    private static let directory = "./AppStateKitCompatibilityFiles-\(getpid())"
    private var originalPath = ""

    @MainActor
    override func setUp() async throws {
        originalPath = FileManager.defaultFileStatePath
        FileManager.defaultFileStatePath = Self.directory
    }

    @MainActor
    override func tearDown() async throws {
        try? Application.dependency(\.fileManager).removeItem(atPath: Self.directory)
        FileManager.defaultFileStatePath = originalPath
    }

    @MainActor
    func testStoredState() async {
        XCTAssertNil(Application.storedState(\.compatStoredValue).value)
        let storedValue = CompatStoredExample()
        XCTAssertEqual(storedValue.count, nil)
        storedValue.count = 1
        XCTAssertEqual(storedValue.count, 1)
        storedValue.count = nil
        XCTAssertNil(Application.storedState(\.compatStoredValue).value)
        storedValue.count = 2
        Application.reset(storedState: \.compatStoredValue)
        XCTAssertNil(storedValue.count)
    }

    @MainActor
    func testFileState() async throws {
        XCTAssertEqual(FileManager.defaultFileStatePath, Self.directory)
        XCTAssertNil(Application.fileState(\.compatFileValue).value)
        let viewModel = CompatFileViewModel()
        viewModel.testPropertyWrapper()
        XCTAssertEqual(viewModel.count, 27)
        XCTAssertEqual(viewModel.storedString, "Hello")
        let decoded: String = try FileManager.default.in(path: Self.directory, filename: "compatFileString")
        XCTAssertEqual(decoded, "Hello")
        Application.reset(fileState: \.compatFileValue)
        viewModel.storedString = nil
        XCTAssertNil(viewModel.count)
        XCTAssertNil(Application.fileState(\.compatFileString).value)
    }
}
