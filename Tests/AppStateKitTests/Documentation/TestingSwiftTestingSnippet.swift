// The Swift Testing snippet of Documentation/Testing.md, verbatim, as a whole file: its imports
// are the guide's. Compiled and run; keep the two in step.
import AppStateKit
import AppStateKitTesting
import Testing

@Suite(.isolatedApplication)                       // every test gets its own application
struct CheckoutTests {
    @Test(.overriding(\.payments, with: MockPayments()))   // a fresh mock per test
    func chargesOnce() async throws {
        try await checkout()
        #expect(Application.state(\.orders).value.count == 1)
    }
}
