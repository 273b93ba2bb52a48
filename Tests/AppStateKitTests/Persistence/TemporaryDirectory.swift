import Foundation

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() {
        path = (NSTemporaryDirectory() as NSString).appendingPathComponent("AppStateKitTests-\(UUID().uuidString)")
        // A failure here makes every test using the directory fail loudly at its first write.
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String {
        (path as NSString).appendingPathComponent(name)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// The permission bits of the file at `path`.
    static func permissions(of path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}
