import Foundation
import Synchronization

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("AppStateKitTests-\(UUID().uuidString)")
        // A failure here makes every test using the directory fail loudly at its first write.
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// A directory for the whole test process, for declarations that need a fixed path (a
    /// `static let`): removed when the process exits, since no test owns it.
    static func forProcess() -> TemporaryDirectory {
        let directory = TemporaryDirectory()
        ProcessDirectories.removeAtExit(directory.path)
        return directory
    }

    func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    /// A `UserDefaults(suiteName:)` name for a suite kept in this directory: an absolute suite
    /// name is the property list's path, so the suite never lands in the user's configuration
    /// directory (where swift-corelibs-foundation keeps suites named otherwise).
    var userDefaultsSuiteName: String { file("suite") }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The permission bits of the file at `path`.
    static func permissions(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}

/// The directories ``TemporaryDirectory/forProcess()`` made, removed by one `atexit` handler.
private enum ProcessDirectories {
    static let paths = Mutex<[String]>([])
    static let handler: Void = {
        atexit {
            for path in ProcessDirectories.paths.withLock({ $0 }) { try? FileManager.default.removeItem(atPath: path) }
        }
    }()

    static func removeAtExit(_ path: String) {
        _ = handler
        paths.withLock { $0.append(path) }
    }
}
