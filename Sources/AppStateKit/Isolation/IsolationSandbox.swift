import AppStateKitCore
import AppStateKitPersistence
import AppStateKitSecrets
import AppStateKitSync
import Foundation

/// The private world of one ``Application/withIsolatedApplication(_:)-(()->R)`` scope: a fresh
/// application whose stored states live in memory and whose file states live in a temporary
/// directory, removed when the scope ends and again (see ``SandboxDirectory``) when a write
/// after the scope, through a handle that outlived it, put files there. Nothing reaches the real
/// locations, and nothing is left on disk.
struct IsolationSandbox {
    let isolatedApplication: IsolatedApplication
    let directory: SandboxDirectory

    init() {
        directory = SandboxDirectory(root: (NSTemporaryDirectory() as NSString).appendingPathComponent("AppStateKit-isolated-\(UUID().uuidString)"))
        let sandbox = SandboxFileManager(directory: directory)
        // Built outside every scope so its entries are created in the new registry itself.
        let application = TaskContext.bind(.none) {
            Application { application in
                // Stored directly, so neither default is made: the default store's path (and
                // with it the storage name) is never evaluated, and the real file manager is never
                // reported as a test's use of the real file system.
                Self.preset(InMemoryDefaults() as any UserDefaultsManaging, as: Application.userDefaultsName, in: application)
                Self.preset(sandbox as any FileManaging, as: Application.fileManagerName, in: application)
                Application.installIsolatedSyncStore(in: application)
                Application.installIsolatedKeychain(in: application, files: sandbox)
            }
        }
        isolatedApplication = IsolatedApplication(application)
    }

    /// Deletes the temporary directory and everything file states wrote into it.
    func remove() {
        SandboxDirectory.remove(directory.root)
    }

    /// Stores `value` as the dependency `name` of `application`, so its factory never runs.
    private static func preset<Value: Sendable>(_ value: Value, as name: (feature: String, id: String), in application: Application) {
        let key = EntryKey(kind: .dependency, valueType: Value.self, name: EntryName(feature: name.feature, id: name.id))
        _ = application.registry.entry(for: key) { DependencyEntry<Value>(key: key, value: value) }
    }
}
