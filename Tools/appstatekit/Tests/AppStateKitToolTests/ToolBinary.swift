import Foundation

/// Where the built `appstatekit` binary is: beside the test bundle in SwiftPM's build folder.
enum ToolBinary {
    static var url: URL {
        var directory = Bundle.main.bundleURL
        if directory.pathExtension == "xctest" { directory.deleteLastPathComponent() }
        let beside = directory.appendingPathComponent("appstatekit")
        if FileManager.default.isExecutableFile(atPath: beside.path) { return beside }
        // The test bundle's own folder when run by `swift test`.
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("appstatekit")
    }
}
