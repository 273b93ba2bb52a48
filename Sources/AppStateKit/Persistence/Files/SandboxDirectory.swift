import Foundation

/// The temporary directory of one isolated application, removed when the isolation scope ends
/// and again when the application is released, so a write made after the scope (by a handle or
/// a task that outlived it) is never left behind; those still alive at a normal exit, then.
final class SandboxDirectory: Sendable {
    let root: String

    init(root: String) {
        self.root = root
        LiveSandboxes.add(root)
    }

    deinit {
        LiveSandboxes.remove(root)
        SandboxDirectory.remove(root)
    }

    /// Deletes the directory; a failure is reported through the shared application's logger
    /// (the isolated one may be the application being released).
    static func remove(_ root: String) {
        do {
            if FileManager.default.fileExists(atPath: root) {
                try FileManager.default.removeItem(atPath: root)
            }
        } catch {
            Application.shared[keyPath: \.logger].value.error("AppStateKit: could not remove the isolated file-state directory \(root): \(error)")
        }
    }
}

/// The roots of sandboxes whose application is alive, removed at process exit.
private enum LiveSandboxes {
    private static let state = LockedBox<(roots: Set<String>, exitHandlerInstalled: Bool)>(([], false))

    static func add(_ root: String) {
        let install = state.withLock { state in
            state.roots.insert(root)
            defer { state.exitHandlerInstalled = true }
            return !state.exitHandlerInstalled
        }
        if install {
            atexit {
                for root in LiveSandboxes.state.withLock({ $0.roots }) {
                    SandboxDirectory.remove(root)
                }
            }
        }
    }

    static func remove(_ root: String) {
        _ = state.withLock { $0.roots.remove(root) }
    }
}
