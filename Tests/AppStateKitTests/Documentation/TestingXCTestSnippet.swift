// The XCTest snippet of Documentation/Testing.md, verbatim, compiled and run. Keep the two in step.
import AppStateKit
import AppStateKitTesting
import XCTest

final class CheckoutXCTests: XCTestCase {
    func testChargesOnce() async throws {
        try await withIsolatedApplication(overriding: { $0.override(\.payments, with: MockPayments()) }) {
            try await checkout()
            XCTAssertEqual(Application.state(\.orders).value.count, 1)
        }
    }
}
