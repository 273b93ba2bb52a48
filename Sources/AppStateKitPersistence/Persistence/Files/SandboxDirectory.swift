import AppStateKitCore
import Foundation

/// The temporary directory of one isolated application, removed when the isolation scope ends
/// and again when the application is released, so a write made after the scope (by a handle or
/// a task that outlived it) is never left behind; those still alive at a normal exit, then.
package final class SandboxDirectory: Sendable {
    package let root: String
    /// The roots of sandboxes whose application is alive, removed at process exit.
    private static let live = LockedBox<(roots: Set<String>, exitHandlerInstalled: Bool)>(([], false))

    package init(root: String) {
        self.root = root
        let install = Self.live.withLock { live in
            live.roots.insert(root)
            defer { live.exitHandlerInstalled = true }
            return !live.exitHandlerInstalled
        }
        if install {
            atexit {
                for root in SandboxDirectory.live.withLock({ $0.roots }) {
                    SandboxDirectory.remove(root)
                }
            }
        }
    }

    deinit {
        _ = Self.live.withLock { $0.roots.remove(root) }
        SandboxDirectory.remove(root)
    }

    /// Deletes the directory; a failure is reported through the shared application's logger
    /// (the isolated one may be the application being released).
    package static func remove(_ root: String) {
        do {
            if FileManager.default.fileExists(atPath: root) {
                try FileManager.default.removeItem(atPath: root)
            }
        } catch {
            Application.shared[keyPath: \.logger].value.error("AppStateKit: could not remove the isolated file-state directory \(root): \(error)")
        }
    }
}
