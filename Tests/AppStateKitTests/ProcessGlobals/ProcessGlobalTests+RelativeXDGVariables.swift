import Foundation
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

extension ProcessGlobalTests {
    /// Issue 34, item 10: a relative `XDG_*` variable is ignored, as the XDG Base Directory
    /// Specification says, and with debug logging on that is reported once. Turns the
    /// process-wide logging flag on, so it runs serialized with the other process-global tests.
    @Suite("Relative XDG variables")
    struct RelativeXDGVariableTests {
        @Test("ignored, and reported once per variable and value while debug logging is on")
        func reportedOnce() {
            let value = "relative/\(UUID().uuidString)"
            let environment = ["XDG_CONFIG_HOME": value, "XDG_DATA_HOME": "/absolute/data"]
            let quiet = capturingLogs(includingDebug: true) {
                #expect(XDGBaseDirectory.absolutePath("XDG_CONFIG_HOME", in: environment, fallback: "~/.config") == nil)
            }
            #expect(quiet.isEmpty)   // logging is off: nothing, and still to be reported

            Application.logging(isEnabled: true)
            defer { Application.logging(isEnabled: false) }
            let logs = capturingLogs(includingDebug: true) {
                for _ in 0..<3 {
                    #expect(XDGBaseDirectory.absolutePath("XDG_CONFIG_HOME", in: environment, fallback: "~/.config") == nil)
                    #expect(XDGBaseDirectory.absolutePath("XDG_DATA_HOME", in: environment, fallback: "~/.local/share") == "/absolute/data")
                    #expect(XDGBaseDirectory.absolutePath("XDG_STATE_HOME", in: environment, fallback: "~/.local/state") == nil)
                }
            }
            #expect(logs == [
                "AppStateKit: ignored XDG_CONFIG_HOME=\"\(value)\": the XDG base-directory specification accepts only absolute paths; using ~/.config",
            ])
        }
    }
}
