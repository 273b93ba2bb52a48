import Foundation

/// The private world of one ``Application/withIsolatedApplication(_:)-(()->R)`` scope: a fresh
/// application whose stored states live in memory and whose file states live in a temporary
/// directory, removed at the end.
struct IsolationSandbox {
    let isolatedApplication: IsolatedApplication
    let root: String

    init() {
        root = (NSTemporaryDirectory() as NSString).appendingPathComponent("AppStateKit-isolated-\(UUID().uuidString)")
        let files = SandboxFileManager(root: root)
        // Built outside every scope so the two entries are created in the new registry itself.
        let application = ScopeContext.$current.withValue(nil) {
            Application { application in
                application.userDefaults.entry?.promote(to: InMemoryDefaults())
                application.fileManager.entry?.promote(to: files)
                Application.installIsolatedSyncStore(in: application)
            }
        }
        isolatedApplication = IsolatedApplication(application)
    }

    /// Deletes the temporary directory and everything file states wrote into it.
    func remove() {
        do {
            if FileManager.default.fileExists(atPath: root) {
                try FileManager.default.removeItem(atPath: root)
            }
        } catch {
            Application.logger.error(error, message: "AppStateKit: could not remove the isolated file-state directory \(root)")
        }
    }
}
