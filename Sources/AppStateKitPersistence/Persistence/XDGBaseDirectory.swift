import AppStateKitCore
import Foundation

/// The XDG base-directory variables that the default locations follow on Linux
/// (`XDG_CONFIG_HOME` for the key-value store, `XDG_DATA_HOME` for file states).
enum XDGBaseDirectory {
    private static let reported = LockedBox<Set<String>>([])

    /// `environment[variable]` when it is an absolute path, otherwise `$HOME/<fallback>`.
    static func base(_ variable: String, fallback: String, in environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let value = absolutePath(variable, in: environment, fallback: "~/\(fallback)") { return value }
        return ((environment["HOME"] ?? NSHomeDirectory()) as NSString).appendingPathComponent(fallback)
    }

    /// `environment[variable]` when it is an absolute path, otherwise nil: the specification
    /// says a relative one must be ignored. While debug logging is on, each ignored value is
    /// reported once, naming `fallback`, so a mistyped variable is not silently ignored.
    static func absolutePath(_ variable: String, in environment: [String: String], fallback: @autoclosure () -> String) -> String? {
        guard let value = environment[variable], !value.isEmpty else { return nil }
        if value.hasPrefix("/") { return value }
        if Diagnostics.isDebugEnabled.load(ordering: .relaxed), reported.withLock({ $0.insert("\(variable)=\(value)").inserted }) {
            Diagnostics.report(debug: "AppStateKit: ignored \(variable)=\"\(value)\": the XDG base-directory specification accepts only absolute paths; using \(fallback())")
        }
        return nil
    }
}
