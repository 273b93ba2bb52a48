import AppStateKitCore
import AppStateKitPersistence
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

    /// How a secret's file is opened and checked.
    enum ReadRule {
        /// A read-only mount (systemd credentials, Docker or Kubernetes secrets): links are
        /// followed (Kubernetes makes every key a link), any owner and mode.
        case mounted
        /// The writable store whose directory (mapped) is `directory`: the directory checked as
        /// writes check it, the file never followed if it is a link, owned by the effective
        /// user, without group or other bits.
        case privateStore(directory: String)
    }

    /// The secret in the file at `path` (already mapped): its text without one trailing newline,
    /// or `nil` when there is no such file. The file must be a regular file (a FIFO, socket or
    /// device is refused, never waited on) of at most `limit` bytes; no more than `limit + 1`
    /// bytes are read. See ``SecretFileReader``.
    ///
    /// - Parameters:
    ///   - source: How errors name the file (`the secret file /run/secrets/dbPassword`).
    ///   - rule: Whose rules apply: a read-only mount's or the writable store's.
    func readSecret(at path: String, key: String, source: String, limit: Int, rule: ReadRule) throws(SecureStateError) -> String? {
        let outcome: SecretFileReader.Outcome
        if fileSystem is POSIXFileSystem {
            switch rule {
            case .mounted:
                outcome = SecretFileReader.readMounted(path, limit: limit)
            case let .privateStore(directory):
                outcome = SecretFileReader.readStored((path as NSString).lastPathComponent, in: directory, limit: limit)
            }
        } else {
            outcome = readThroughSeam(path, limit: limit, rule: rule)
        }
        let data: Data
        switch outcome {
        case .absent:
            return nil
        case let .contents(contents):
            data = contents
        case let .refused(kind, detail):
            throw SecureStateError(kind, key: key, source: source, detail: detail)
        case let .refusedDirectory(directory, detail):
            throw SecureStateError(.insecurePermissions, key: key, source: "the secret store directory \(directory)", detail: detail)
        case let .failed(error):
            if error.code == EISDIR {
                throw SecureStateError(.isDirectory, key: key, source: source, detail: "found a directory where the file holding the secret should be")
            }
            throw .fileSystem(error, kind: .unreadable, key: key, source: source)
        }
        if data.count > limit { throw Self.tooLarge(size: data.count, limit: limit, key: key, source: source) }
        guard let text = String(validating: data, as: UTF8.self) else {
            throw SecureStateError(.invalidUTF8, key: key, source: source, detail: "the file's \(data.count) bytes are not valid UTF-8 text")
        }
        return Self.trimmingOneNewline(text)
    }

    /// ``readSecret(at:key:source:limit:rule:)``'s checks through the ``FileSystem`` seam, for a
    /// file system without descriptors (`InMemoryFileSystem`): the same rules, owners aside.
    private func readThroughSeam(_ path: String, limit: Int, rule: ReadRule) -> SecretFileReader.Outcome {
        do {
            if case let .privateStore(directory) = rule {
                guard let status = try fileSystem.status(of: directory) else { return .absent }
                guard status.isDirectory else { return .refused(.unreadable, detail: "the store directory \(directory) is not a directory") }
                if let problem = SecretFileRules.storeDirectoryProblem(permissions: status.permissions, owner: nil, path: directory, action: "read") {
                    return .refusedDirectory(directory, detail: problem)
                }
                if try fileSystem.linkTarget(of: path) != nil { return .refused(.notRegularFile, detail: SecretFileRules.linkDetail) }
            }
            guard let status = try fileSystem.status(of: path) else { return .absent }
            if status.isDirectory { return .refused(.isDirectory, detail: "found a directory where the file holding the secret should be") }
            if case .privateStore = rule, let problem = SecretFileRules.storeFileProblem(permissions: status.permissions, owner: nil, path: path) {
                return .refused(.insecurePermissions, detail: problem)
            }
            if status.stamp.size > Int64(limit) {
                return .refused(.tooLarge, detail: Self.tooLargeDetail(size: Int(status.stamp.size), limit: limit))
            }
            guard let (data, _) = try fileSystem.contents(of: path, from: 0, limit: limit + 1, for: path) else { return .absent }
            return .contents(data)
        } catch {
            return .failed(error)
        }
    }

    /// `text` without one trailing newline (`\n` or `\r\n`), as credential files are written.
    static func trimmingOneNewline(_ text: String) -> String {
        if text.hasSuffix("\r\n") { return String(text.dropLast(1)) }  // "\r\n" is one Character.
        if text.hasSuffix("\n") { return String(text.dropLast()) }
        return text
    }

    static func tooLarge(size: Int, limit: Int, key: String, source: String) -> SecureStateError {
        SecureStateError(.tooLarge, key: key, source: source, detail: tooLargeDetail(size: size, limit: limit))
    }

    static func tooLargeDetail(size: Int, limit: Int) -> String {
        "it holds \(size) bytes, more than the keychain's limit of \(limit)"
    }

    /// `0o644` as `0644`.
    static func octal(_ permissions: UInt16) -> String {
        let digits = String(permissions, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
