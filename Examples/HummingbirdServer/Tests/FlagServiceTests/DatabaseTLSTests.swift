import FlagService
import Testing

@Suite("fleet mode requires TLS towards any database not on this machine")
struct DatabaseTLSTests {
    @Test func remoteHostsRequireTLSLoopbackAndSocketsDoNot() throws {
        for host in ["db.internal", "10.0.0.5", "127.example.com", "128.0.0.1", "127.0.0.1.evil", "::2", "2001:db8::1"] {
            #expect(try databaseTLSMode(host: host, setting: nil, certificate: nil) == .required(trusting: nil), "\(host)")
        }
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1", "/var/run/postgresql"] {
            #expect(try databaseTLSMode(host: host, setting: nil, certificate: nil) == .disabled, "\(host)")
        }
        #expect(try databaseTLSMode(host: "db.internal", setting: "auto", certificate: "/etc/ca.pem") == .required(trusting: "/etc/ca.pem"))
    }

    @Test func theVariableOverridesForLocalDevelopment() throws {
        #expect(try databaseTLSMode(host: "db.internal", setting: "disable", certificate: nil) == .disabled)
        #expect(try databaseTLSMode(host: "127.0.0.1", setting: "require", certificate: "/ca.pem") == .required(trusting: "/ca.pem"))
        #expect(throws: DatabaseTLSSettingError.self) { try databaseTLSMode(host: "db", setting: "off", certificate: nil) }
    }
}
