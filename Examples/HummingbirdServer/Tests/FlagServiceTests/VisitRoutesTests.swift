import AppStateKit
import AppStateKitTesting
import FlagService
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

@Suite(.isolatedApplication, .overriding(\.serverClock, with: FixedClock()))
struct VisitRoutesTests {
    @Test("POST /api/visits and /api/visits/blocking store the request as the last visit before answering")
    func visitsArePersistedBeforeTheResponse() async throws {
        let app = buildServer(port: 0, logger: Logger(label: "test"))
        let at = Date(timeIntervalSince1970: 1_700_000_000)
        try await app.test(.router) { client in
            for (route, id) in [("/api/visits", "v1"), ("/api/visits/blocking", "v2"), ("/api/visits", "v3")] {
                try await client.execute(uri: route, method: .post, headers: [HTTPField.Name("X-Request-ID")!: id]) { response in
                    #expect(response.status == .ok)
                    let visit = try decoder.decode(Visit.self, from: Data(buffer: response.body))
                    #expect(visit == Visit(requestID: id, at: at))
                }
                // Stored when the response came back (in the isolated application's store).
                #expect(try AppStateKit.Application.storedState(\.lastVisit).read() == Visit(requestID: id, at: at))
            }
        }
    }
}
