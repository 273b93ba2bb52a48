import AppStateKit
import AppStateKitTesting
import FlagService
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Hummingbird encodes dates as ISO 8601.
let decoder: JSONDecoder = {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
}()

struct FixedClock: ServerClock {
    func now() -> Date { Date(timeIntervalSince1970: 1_700_000_000) }
}

@Suite(.isolatedApplication)
struct FlagServiceTests {
    func makeApp() -> some ApplicationProtocol {
        buildServer(port: 0, logger: Logger(label: "test"))
    }

    @Test(.overriding(\.flagRepository, with: InMemoryFlagRepository([Flag(name: "beta", enabled: true, updatedAt: .distantPast)])))
    func listsFlagsFromTheOverriddenRepository() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/api/flags", method: .get) { response in
                #expect(response.status == .ok)
                let flags = try decoder.decode([Flag].self, from: Data(buffer: response.body))
                #expect(flags.map(\.name) == ["beta"])
            }
        }
    }

    @Test(.overriding(\.flagRepository, with: InMemoryFlagRepository()), .overriding(\.serverClock, with: FixedClock()))
    func setsAFlagWithTheClock() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/api/flags/alpha", method: .put, body: ByteBuffer(string: #"{"enabled":true}"#)) { response in
                #expect(response.status == .ok)
                let flag = try decoder.decode(Flag.self, from: Data(buffer: response.body))
                #expect(flag == Flag(name: "alpha", enabled: true, updatedAt: Date(timeIntervalSince1970: 1_700_000_000)))
            }
            try await client.execute(uri: "/api/flags/alpha", method: .get) { response in
                let flag = try decoder.decode(Flag.self, from: Data(buffer: response.body))
                #expect(flag.enabled)
            }
        }
    }

    @Test func unknownFlagsUseTheStoredDefaultAndFilesStayInTheSandbox() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/api/config/default", method: .put, body: ByteBuffer(string: #"{"enabled":true}"#)) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/api/flags/unknown", method: .get) { response in
                let flag = try decoder.decode(Flag.self, from: Data(buffer: response.body))
                #expect(flag.enabled)
            }
            // The real FileFlagRepository, writing into the isolated application's temporary directory.
            try await client.execute(uri: "/api/flags/gamma", method: .put, body: ByteBuffer(string: #"{"enabled":false}"#)) { response in
                #expect(response.status == .ok)
            }
        }
        #expect(try AppStateKit.Application.fileState(\.flagsFile).read()["gamma"]?.enabled == false)
        #expect(AppStateKit.Application.dependency(\.userDefaults) is InMemoryDefaults)
    }

    @Test func eachRequestGetsItsOwnScopeAndIsCounted() async throws {
        try await makeApp().test(.router) { client in
            try await client.execute(uri: "/api/flags", method: .get, headers: [HTTPField.Name("X-Request-ID")!: "abc"]) { response in
                #expect(response.headers[HTTPField.Name("X-Request-ID")!] == "abc")
            }
            try await client.execute(uri: "/api/flags", method: .get) { response in
                #expect(response.headers[HTTPField.Name("X-Request-ID")!] != "abc")
            }
            try await client.execute(uri: "/metrics", method: .get) { response in
                let metrics = try decoder.decode(Metrics.self, from: Data(buffer: response.body))
                #expect(metrics == Metrics(requests: 2, served: 2))
            }
        }
        #expect(AppStateKit.Application.dependency(\.requestInfo).id == "none")
    }

    @Test func theLoadTestRoutesServeTheSameFlagAsTheAppStateKitRoute() async throws {
        try await makeApp().test(.router) { client in
            var bodies: [Flag] = []
            for route in ["/api/flags/alpha", "/baseline/flags/alpha", "/equivalent/flags/alpha"] {
                try await client.execute(uri: route, method: .get, headers: [HTTPField.Name("X-Request-ID")!: "r1"]) { response in
                    #expect(response.status == .ok)
                    bodies.append(try decoder.decode(Flag.self, from: Data(buffer: response.body)))
                    // The bare route has no middleware; the other two both set the request id.
                    #expect((response.headers[HTTPField.Name("X-Request-ID")!] == "r1") == (route != "/baseline/flags/alpha"))
                }
            }
            #expect(bodies == Array(repeating: Flag(name: "alpha", enabled: false, updatedAt: Date(timeIntervalSince1970: 0)), count: 3))
            // Only the AppStateKit route is counted in the metrics State.
            try await client.execute(uri: "/metrics", method: .get) { response in
                let metrics = try decoder.decode(Metrics.self, from: Data(buffer: response.body))
                #expect(metrics == Metrics(requests: 1, served: 1))
            }
        }
    }
}
