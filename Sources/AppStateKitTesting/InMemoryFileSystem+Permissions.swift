import Foundation

extension InMemoryFileSystem {
    /// Sets the permission bits `stat` reports for the file or directory at `path` (following
    /// symbolic links), as `chmod` would: `setPermissions(0o644, atPath: "/home/me/.config/tool/secrets/token")`.
    ///
    /// Tests run as root, whom real permissions don't stop; set modes here to test code that
    /// checks them (SecureState's writable store refuses group- or world-accessible files).
    /// Files are `0o600` and directories `0o700` until set; a file replaced afterwards (an
    /// atomic write renames a new file into place) has the default again, as a new file would.
    public func setPermissions(_ permissions: UInt16, atPath path: String) {
        let path = Self.normalized(path)
        lock.withLock {
            let target = resolved(path)
            switch storage.nodes[target] {
            case let .file(_, stamp)?: storage.permissions[target] = (stamp.inode, permissions & 0o7777)
            case .directory?: storage.permissions[target] = (0, permissions & 0o7777)
            case .symbolicLink?, nil: break
            }
        }
    }

    /// The permission bits `stat` reports for the file or directory at `path`, or `nil` when
    /// there is none.
    public func permissions(atPath path: String) -> UInt16? {
        let path = Self.normalized(path)
        return lock.withLock {
            let target = resolved(path)
            switch storage.nodes[target] {
            case let .file(_, stamp)?: return permissions(ofNodeAt: target, inode: stamp.inode) ?? 0o600
            case .directory?: return permissions(ofNodeAt: target, inode: 0) ?? 0o700
            case .symbolicLink?, nil: return nil
            }
        }
    }

    /// The permission bits of the node at the resolved `path` whose inode is `inode` (called with
    /// `lock` held).
    func permissions(ofNodeAt path: String, inode: UInt64) -> UInt16? {
        guard let set = storage.permissions[path], set.inode == inode else { return nil }
        return set.bits
    }
}
