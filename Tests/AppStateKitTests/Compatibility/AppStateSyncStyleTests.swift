// SyncState used the way AppState 3.0's own SyncState tests use it (optional and non-optional
// declarations sharing an id, the property wrapper in a struct and a class, reset(syncState:),
// logging and description). Unchanged apart from the import, the SwiftUI `TextField` line, the quiet logger, and
// `\.icloudStore` (AppState's iCloud store) becoming `\.syncStore`. A fresh in-memory store per
// test keeps the tests independent of their order (the two declarations share one key) and off
// any real store.
import XCTest
import AppStateKit

fileprivate extension Application {
    var syncValue: SyncState<Int?> {
        syncState(id: "syncValue")
    }

    var syncFailureValue: SyncState<Double> {
        syncState(initial: -1, id: "syncValue")
    }
}

fileprivate struct ExampleSyncValue {
    @SyncState(\.syncValue) var count
}

fileprivate struct ExampleFailureSyncValue {
    @SyncState(\.syncFailureValue) var count
}

fileprivate class ExampleStoringViewModel {
    @SyncState(\.syncValue) var count

    func testPropertyWrapper() {
        count = 27
    }
}

final class AppStateSyncStyleTests: XCTestCase {
    override class func setUp() {
        Application.promote(\.logger, with: diagnosticLogger)   // not AppState's: keeps a green run quiet
        Application.promote(\.syncStore, with: InMemorySyncStore())
        Application
            .logging(isEnabled: true)
            .load(dependency: \.syncStore)
    }

    override func setUp() {
        Application.promote(\.syncStore, with: InMemorySyncStore())
    }

    override class func tearDown() {
        Application.logger.debug("SyncStateTests \(Application.description)")
        Application.logging(isEnabled: false)
    }

    func testSyncState() {
        XCTAssertNil(Application.syncState(\.syncValue).value)

        let syncValue = ExampleSyncValue()

        XCTAssertEqual(syncValue.count, nil)

        syncValue.count = 1

        XCTAssertEqual(syncValue.count, 1)

        Application.logger.debug("SyncStateTests \(Application.description)")

        syncValue.count = nil

        XCTAssertNil(Application.syncState(\.syncValue).value)
    }

    func testFailEncodingSyncState() {
        XCTAssertNotNil(Application.syncState(\.syncFailureValue).value)

        let syncValue = ExampleFailureSyncValue()

        XCTAssertEqual(syncValue.count, -1)

        syncValue.count = Double.infinity

        XCTAssertEqual(syncValue.count, Double.infinity)
    }

    func testStoringViewModel() {
        XCTAssertNil(Application.syncState(\.syncValue).value)

        let viewModel = ExampleStoringViewModel()

        XCTAssertEqual(viewModel.count, nil)

        viewModel.testPropertyWrapper()

        XCTAssertEqual(viewModel.count, 27)

        Application.reset(syncState: \.syncValue)

        XCTAssertNil(viewModel.count)
    }
}
