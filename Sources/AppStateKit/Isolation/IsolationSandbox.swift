import Foundation

/// The private world of one ``Application/withIsolatedApplication(_:)-(()->R)`` scope: a fresh
/// application whose stored states live in memory and whose file states live in a temporary
/// directory.
///
/// The directory is removed when the scope ends. Handles taken inside keep acting on the
/// isolated application afterwards (see ``EntryOwner``): a file state written after the scope —
/// by a kept handle or an unstructured task that outlived it — lands in the same directory again,
/// which is removed once more when the isolated application is released, or at the latest when
/// the process exits normally. Nothing reaches the real locations, and nothing is left on disk.
struct IsolationSandbox {
    let isolatedApplication: IsolatedApplication
    let directory: SandboxDirectory

    init() {
        directory = SandboxDirectory(root: (NSTemporaryDirectory() as NSString).appendingPathComponent("AppStateKit-isolated-\(UUID().uuidString)"))
        let sandbox = SandboxFileManager(directory: directory)
        // Built outside every scope so its entries are created in the new registry itself.
        let application = TaskContext.bind(.none) {
            Application { application in
                // Both dependencies are stored directly, so neither default is made: the default
                // store's path (and with it the storage name) is never evaluated for an
                // application that doesn't use it, and the real file manager is never made (nor
                // reported as a test's use of the real file system).
                Self.preset(InMemoryDefaults() as any UserDefaultsManaging, as: Application.userDefaultsName, in: application)
                Self.preset(sandbox as any FileManaging, as: Application.fileManagerName, in: application)
                Application.installIsolatedSyncStore(in: application)
                Application.installIsolatedKeychain(in: application, files: sandbox)
            }
        }
        isolatedApplication = IsolatedApplication(application)
    }

    /// The temporary directory's path.
    var root: String { directory.root }

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
