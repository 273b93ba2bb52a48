import AppStateKitCore
import AppStateKitPersistence
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The environment variables a ``Keychain`` reads: the process's, looked up when read (no copy
/// is kept, so a keychain holds no secret of the environment and a `dump` of it shows none), or
/// the ones given to ``Keychain/init(sources:keys:environment:fileManager:sizeLimit:)``.
///
/// Its description and mirror never show a name or value: only which environment it is.
struct SecretEnvironment: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// `nil`: the process's environment.
    private let given: [String: String]?

    private init(given: [String: String]?) {
        self.given = given
    }

    /// The process's environment, read at each lookup.
    static let process = SecretEnvironment(given: nil)

    /// The variables `variables`.
    static func given(_ variables: [String: String]) -> SecretEnvironment {
        SecretEnvironment(given: variables)
    }

    /// The variable `name`'s value, or `nil`.
    subscript(name: String) -> String? {
        if let given { return given[name] }
        return getenv(name).map { String(cString: $0) }
    }

    /// `the process's environment` or `a given environment`: never a name or value.
    var description: String {
        given == nil ? "the process's environment" : "a given environment"
    }

    var debugDescription: String { description }

    /// No children: neither names nor values.
    var customMirror: Mirror {
        Mirror(self, children: ["environment": description], displayStyle: .struct)
    }
}
