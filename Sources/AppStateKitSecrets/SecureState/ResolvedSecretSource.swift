import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// A ``SecretSource`` as a ``Keychain`` uses it: its directory resolved, its store made. It
/// keeps no environment variable's value: `.environment()` looks each one up when read.
enum ResolvedSecretSource: Sendable, CustomStringConvertible, CustomReflectable {
    /// A read-only directory of secret files (systemd credentials, `/run/secrets`).
    case directory(SecretSource, path: String, files: SecretFiles, isCredentials: Bool)
    /// Environment variables.
    case environment(SecretSource, prefix: String, variables: SecretEnvironment)
    /// The writable file store.
    case fileStore(SecretSource, SecretFileStore)
    /// The writable in-memory store.
    case memory(SecretSource, LockedBox<[String: String]>)

    /// `source` resolved; `nil` for `.credentialsDirectory()` when `$CREDENTIALS_DIRECTORY` is
    /// unset or empty (the process was not started with credentials).
    init?(_ source: SecretSource, environment: SecretEnvironment, files: SecretFiles, storageName: @escaping @Sendable () -> String) {
        switch source.storage {
        case let .credentialsDirectory(directory):
            guard let path = directory ?? environment["CREDENTIALS_DIRECTORY"], !path.isEmpty else { return nil }
            self = .directory(source, path: path, files: files, isCredentials: true)
        case let .secretsDirectory(path):
            self = .directory(source, path: path, files: files, isCredentials: false)
        case let .environment(prefix):
            self = .environment(source, prefix: prefix, variables: environment)
        case let .fileStore(directory):
            // The two variables the default directory needs, read now: nothing else is kept.
            let (configHome, home) = (environment["XDG_CONFIG_HOME"], environment["HOME"])
            let store = SecretFileStore(files: files) {
                directory ?? Self.defaultStoreDirectory(configHome: configHome, home: home, storageName: storageName())
            }
            self = .fileStore(source, store)
        case .memory:
            self = .memory(source, LockedBox([:]))
        }
    }

    /// `$XDG_CONFIG_HOME/<storage name>/secrets`, or `$HOME/.config/<storage name>/secrets`.
    static func defaultStoreDirectory(configHome: String?, home: String?, storageName: String) -> String {
        let base: String
        if let configHome, configHome.hasPrefix("/") {
            base = configHome
        } else {
            base = ((home ?? NSHomeDirectory()) as NSString).appendingPathComponent(".config")
        }
        return ((base as NSString).appendingPathComponent(storageName) as NSString).appendingPathComponent("secrets")
    }

    /// The source as its constructor spells it: never a value.
    var description: String { source.description }

    /// The source only, so a `dump` shows no value (of the environment or the memory store).
    var customMirror: Mirror {
        Mirror(self, children: ["source": source.description], displayStyle: .enum)
    }

    var source: SecretSource {
        switch self {
        case let .directory(source, _, _, _), let .environment(source, _, _), let .fileStore(source, _), let .memory(source, _): source
        }
    }

    /// Where this source keeps `key`, in words, for errors and ``Keychain/origin(of:)``.
    func origin(of key: String) -> String {
        switch self {
        case let .directory(_, path, files, isCredentials):
            let file = files.mapped((path as NSString).appendingPathComponent(key))
            return isCredentials ? "the systemd credential file \(file)" : "the secret file \(file)"
        case let .environment(_, prefix, _):
            return "the environment variable \(EnvironmentVariableName.name(forKey: key, prefix: prefix))"
        case let .fileStore(_, store):
            return store.sourceDescription(of: key)
        case .memory:
            return "the keychain's memory"
        }
    }

    /// The value this source holds for `key`, or `nil`.
    func read(_ key: String, limit: Int) throws(SecureStateError) -> String? {
        switch self {
        case let .directory(_, path, files, _):
            let file = files.mapped((path as NSString).appendingPathComponent(key))
            return try files.readSecret(at: file, key: key, source: origin(of: key), limit: limit, rule: .mounted)
        case let .environment(_, prefix, variables):
            guard let value = variables[EnvironmentVariableName.name(forKey: key, prefix: prefix)] else { return nil }
            if value.utf8.count > limit { throw SecretFiles.tooLarge(size: value.utf8.count, limit: limit, key: key, source: origin(of: key)) }
            return value
        case let .fileStore(_, store):
            return try store.read(key, limit: limit)
        case let .memory(_, values):
            return values.withLock { $0[key] }
        }
    }

    /// Stores `value` (writable sources only).
    func write(_ value: String, forKey key: String) throws(SecureStateError) {
        switch self {
        case let .fileStore(_, store): try store.write(value, forKey: key)
        case let .memory(_, values): values.withLock { $0[key] = value }
        case .directory, .environment: preconditionFailure("AppStateKit: \(source) is read-only")
        }
    }

    /// Removes `key` (writable sources only).
    func remove(_ key: String) throws(SecureStateError) {
        switch self {
        case let .fileStore(_, store): try store.remove(key)
        case let .memory(_, values): _ = values.withLock { $0.removeValue(forKey: key) }
        case .directory, .environment: preconditionFailure("AppStateKit: \(source) is read-only")
        }
    }

    /// The keys this source can list: file names (not starting with `.`), the memory store's keys.
    /// Environment variables can't be mapped back to keys, so none.
    func keys() throws(SecureStateError) -> [String] {
        switch self {
        case let .directory(_, path, files, _):
            let mapped = files.mapped(path)
            do {
                return try files.fileSystem.contentsOfDirectory(mapped).filter { !$0.hasPrefix(".") }
            } catch {
                if error.code == ENOENT || error.code == ENOTDIR { return [] }
                throw .fileSystem(error, kind: .unreadable, key: "*", source: "the directory \(mapped)")
            }
        case .environment: return []
        case let .fileStore(_, store): return try store.keys()
        case let .memory(_, values): return values.withLock { Array($0.keys) }
        }
    }
}
