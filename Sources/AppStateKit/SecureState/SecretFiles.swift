import Foundation

/// The files a ``Keychain`` reads and writes, and how: the file system (the real one, an
/// isolated application's sandbox, or `AppStateKitTesting`'s `InMemoryFileSystem`) and the
/// directory every path is mapped into (the sandbox's root).
struct SecretFiles: Sendable {
    let fileSystem: any FileSystem
    /// Prefixed to every absolute path; `nil` outside a sandbox.
    let root: String?
    /// Whether writes `fsync` (not in a sandbox, which is deleted with its application).
    let isDurable: Bool
    /// Keeps a sandbox's directory alive while the keychain uses it.
    private let sandbox: SandboxDirectory?

    /// The real file system.
    static var real: SecretFiles {
        SecretFiles(fileSystem: POSIXFileSystem(), root: nil, isDurable: true, sandbox: nil)
    }

    /// The files of `manager`: a sandbox's mapped directory, an in-memory file system itself,
    /// and the real file system for any other file manager (`FileManager`, one of your own).
    static func of(_ manager: (any FileManaging)?) -> SecretFiles {
        switch manager {
        case let sandbox as SandboxFileManager:
            SecretFiles(fileSystem: sandbox.fileSystem, root: sandbox.root, isDurable: sandbox.isDurable, sandbox: sandbox.directory)
        case let fileSystem as any FileSystem:
            SecretFiles(fileSystem: fileSystem, root: nil, isDurable: true, sandbox: nil)
        default:
            .real
        }
    }

    /// Where `path` is on ``fileSystem``.
    func mapped(_ path: String) -> String {
        guard let root else { return path }
        return root + (path.hasPrefix("/") ? path : "/" + path)
    }

    /// The secret in the file at `path` (already mapped): its text without one trailing newline,
    /// or `nil` when there is no such file.
    ///
    /// - Parameters:
    ///   - source: How errors name the file (`the secret file /run/secrets/dbPassword`).
    ///   - requirePrivate: Refuse a file other users can access (the writable store's rule).
    func readSecret(at path: String, key: String, source: String, limit: Int, requirePrivate: Bool) throws(SecureStateError) -> String? {
        let status: FileStatus?
        do {
            status = try fileSystem.status(of: path)
        } catch {
            throw .fileSystem(error, kind: .unreadable, key: key, source: source)
        }
        guard let status else { return nil }
        if status.isDirectory {
            throw SecureStateError(.isDirectory, key: key, source: source, detail: "found a directory where the file holding the secret should be")
        }
        if requirePrivate, status.permissions & 0o077 != 0 {
            throw SecureStateError(
                .insecurePermissions, key: key, source: source,
                detail: "mode \(Self.octal(status.permissions)) lets other users access it, so it is not used; run chmod 600 \(path) if nobody else could have read it, otherwise replace the secret"
            )
        }
        if status.stamp.size > Int64(limit) {
            throw Self.tooLarge(size: Int(status.stamp.size), limit: limit, key: key, source: source)
        }
        let data: Data?
        do {
            data = try fileSystem.contents(of: path)
        } catch {
            if error.code == EISDIR {
                throw SecureStateError(.isDirectory, key: key, source: source, detail: "found a directory where the file holding the secret should be")
            }
            throw .fileSystem(error, kind: .unreadable, key: key, source: source)
        }
        guard let data else { return nil }
        if data.count > limit { throw Self.tooLarge(size: data.count, limit: limit, key: key, source: source) }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw SecureStateError(.invalidUTF8, key: key, source: source, detail: "the file's \(data.count) bytes are not valid UTF-8 text")
        }
        return Self.trimmingOneNewline(text)
    }

    /// `text` without one trailing newline (`\n` or `\r\n`), as credential files are written.
    static func trimmingOneNewline(_ text: String) -> String {
        if text.hasSuffix("\r\n") { return String(text.dropLast(1)) }  // "\r\n" is one Character.
        if text.hasSuffix("\n") { return String(text.dropLast()) }
        return text
    }

    static func tooLarge(size: Int, limit: Int, key: String, source: String) -> SecureStateError {
        SecureStateError(.tooLarge, key: key, source: source, detail: "it holds \(size) bytes, more than the keychain's limit of \(limit)")
    }

    /// `0o644` as `0644`.
    static func octal(_ permissions: UInt16) -> String {
        let digits = String(permissions, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
