import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// Where ``Application/SecureState`` values come from and go to: AppState's `Keychain`, backed on
/// every platform by the places servers and command-line tools keep secrets.
///
/// A keychain asks its read-only sources in order — by default systemd credentials
/// (`$CREDENTIALS_DIRECTORY/<key>`), the secrets directory (`/run/secrets/<key>`) and environment
/// variables (`DB_PASSWORD` for `dbPassword`) — and then its writable store (one `0600` file per
/// key under `~/.config/<storage name>/secrets`). The first source that has the key provides the
/// value. Writing or removing a key that a read-only source provides is refused with
/// ``SecureStateError/Kind/providedByReadOnlySource``: the written value would never be read.
///
/// ```swift
/// let keychain = Application.dependency(\.keychain)
/// try keychain.write("s3cr3t", forKey: "apiToken")      // ~/.config/<name>/secrets/apiToken
/// let token = try keychain.read("apiToken")
/// ```
///
/// Every read asks the sources again, so a rotated credential file is picked up, and an
/// environment variable is looked up when read: the keychain keeps no copy of the environment.
/// Values never appear in the keychain's description, its mirror (`dump`), errors or logs. The non-throwing AppState
/// methods (``get(_:as:)``, ``set(value:forKey:)``, ``remove(_:)``, …) report failures through
/// `\.logger`; ``read(_:)``, ``write(_:forKey:)`` and ``delete(_:)`` throw them.
public final class Keychain: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// A key: the name of the secret's file (`dbPassword`, `Billing.apiKey`).
    public typealias Key = String
    /// A secret's value.
    public typealias Value = String

    /// The default size limit of a secret: 64 KiB.
    public static let defaultSizeLimit = 64 * 1024

    /// The sources, in the order given.
    public let sources: [SecretSource]
    /// The largest secret, in UTF-8 bytes, read or written; larger ones are refused with
    /// ``SecureStateError/Kind/tooLarge``.
    public let sizeLimit: Int

    /// The read-only sources in order, then the writable ones in order.
    private let readOnly: [ResolvedSecretSource]
    private let writable: [ResolvedSecretSource]
    /// Keys given at creation or written through this keychain, for ``values(ofType:)``.
    private let knownKeys: LockedBox<Set<Key>>

    /// A keychain over `sources`, in that order (read-only sources are always asked before
    /// writable ones).
    ///
    /// - Parameters:
    ///   - sources: Where to look; ``SecretSource/defaultSources`` is what ``init()`` uses.
    ///   - keys: Keys ``values(ofType:)`` lists even when only an environment variable holds them.
    ///   - environment: The variables `.credentialsDirectory()`, `.environment()` and the default
    ///     `.fileStore()` directory read (`CREDENTIALS_DIRECTORY`, the secrets themselves,
    ///     `XDG_CONFIG_HOME` and `HOME`); `nil` for the process's environment. The directories'
    ///     variables are read now; `.environment()` looks each secret's variable up when it is
    ///     read, keeping no copy of the process's environment.
    ///   - fileManager: Whose files to use: `nil` or a `FileManager` for the real file system,
    ///     `AppStateKitTesting`'s `InMemoryFileSystem` to keep every file in memory.
    ///   - sizeLimit: The largest secret accepted, in bytes.
    public convenience init(
        sources: [SecretSource],
        keys: Set<Key> = [],
        environment: [String: String]? = nil,
        fileManager: (any FileManaging)? = nil,
        sizeLimit: Int = Keychain.defaultSizeLimit
    ) {
        self.init(
            sources: sources, keys: keys, environment: environment.map(SecretEnvironment.given) ?? .process,
            files: .of(fileManager), storageName: { StorageName.resolvedForDefaultLocation() }, sizeLimit: sizeLimit
        )
    }

    /// The default keychain: ``SecretSource/defaultSources`` with the process's environment and
    /// the real file system.
    public convenience init() {
        self.init(sources: SecretSource.defaultSources)
    }

    /// The default keychain, with `keys` listed by ``values(ofType:)`` (AppState's `init(keys:)`).
    public convenience init(keys: Set<Key>) {
        self.init(sources: SecretSource.defaultSources, keys: keys)
    }

    /// A keychain holding `initialValues` in memory only (``SecretSource/memory``): for tests
    /// and previews.
    ///
    /// ```swift
    /// Application.override(\.keychain, with: Keychain(initialValues: ["apiToken": "test-token"]))
    /// ```
    public convenience init(initialValues: [Key: String]) {
        self.init(sources: [.memory], keys: Set(initialValues.keys), environment: [String: String]())
        for (key, value) in initialValues {
            for case let .memory(_, values) in writable {
                values.withLock { $0[key] = value }
            }
        }
    }

    init(
        sources: [SecretSource], keys: Set<Key>, environment: SecretEnvironment, files: SecretFiles,
        storageName: @escaping @Sendable () -> String, sizeLimit: Int
    ) {
        self.sources = sources
        self.sizeLimit = sizeLimit
        self.knownKeys = LockedBox(keys)
        let resolved = sources.compactMap {
            ResolvedSecretSource($0, environment: environment, files: files, storageName: storageName)
        }
        self.readOnly = resolved.filter { !$0.source.isWritable }
        self.writable = resolved.filter { $0.source.isWritable }
    }

    /// `Keychain(<sources>)`; never any value.
    public var description: String {
        "Keychain(\(sources.map(\.description).joined(separator: ", ")))"
    }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// The sources and the size limit only, so `dump`, `Mirror` and debuggers never show a
    /// secret or an environment variable.
    public var customMirror: Mirror {
        Mirror(self, children: ["sources": sources.map(\.description), "sizeLimit": sizeLimit], displayStyle: .class)
    }

    // MARK: Throwing operations

    /// The secret stored under `key`, from the first source that has it, or `nil`.
    ///
    /// - Throws: ``SecureStateError`` naming the source when a source can't be read: a directory
    ///   where the file should be, an unreadable file, invalid UTF-8, a value over the size limit,
    ///   a writable-store file other users can access, an invalid key.
    public func read(_ key: Key) throws(SecureStateError) -> String? {
        try lookup(key)?.value
    }

    /// Where the secret under `key` comes from, in words — `the systemd credential file
    /// /run/credentials/app.service/dbPassword`, `the environment variable DB_PASSWORD` — or
    /// `nil` when no source has it.
    public func origin(of key: Key) throws(SecureStateError) -> String? {
        try lookup(key)?.origin
    }

    /// Stores `value` under `key` in the first writable source.
    ///
    /// - Throws: ``SecureStateError``: ``SecureStateError/Kind/providedByReadOnlySource`` when a
    ///   read-only source has the key, ``SecureStateError/Kind/noWritableSource``,
    ///   ``SecureStateError/Kind/tooLarge``, or the store's failure (the old value is then kept).
    public func write(_ value: String, forKey key: Key) throws(SecureStateError) {
        try SecretKey.validate(key)
        guard let store = writable.first else {
            throw SecureStateError(.noWritableSource, key: key, source: "", detail: "the keychain's sources (\(sources.map(\.description).joined(separator: ", "))) are all read-only")
        }
        let size = value.utf8.count
        if size > sizeLimit {
            throw SecretFiles.tooLarge(size: size, limit: sizeLimit, key: key, source: store.origin(of: key))
        }
        try refuseIfReadOnly(key, action: "written")
        try store.write(value, forKey: key)
        _ = knownKeys.withLock { $0.insert(key) }
    }

    /// Removes `key` from every writable source; does nothing when none holds it.
    ///
    /// - Throws: ``SecureStateError``: ``SecureStateError/Kind/providedByReadOnlySource`` when a
    ///   read-only source has the key (its value would still be read), or the store's failure.
    public func delete(_ key: Key) throws(SecureStateError) {
        try SecretKey.validate(key)
        try refuseIfReadOnly(key, action: "removed")
        for store in writable {
            try store.remove(key)
        }
    }

    /// The environment variable ``SecretSource/environment(prefix:)`` reads for `key`: `prefix`
    /// followed by the key in upper snake case — an underscore before each uppercase letter
    /// that follows a lowercase letter or a digit, every character other than an ASCII letter or
    /// digit replaced by an underscore, letters uppercased. `dbPassword` → `DB_PASSWORD`,
    /// `Billing.apiKey` → `BILLING_API_KEY`, `api-token` → `API_TOKEN`, `APIToken` → `APITOKEN`.
    public static func environmentVariableName(forKey key: Key, prefix: String = "") -> String {
        EnvironmentVariableName.name(forKey: key, prefix: prefix)
    }

    // MARK: Internals

    /// The value under `key` and where it came from.
    func lookup(_ key: Key) throws(SecureStateError) -> (value: String, origin: String)? {
        try SecretKey.validate(key)
        for source in readOnly + writable {
            if let value = try source.read(key, limit: sizeLimit) { return (value, source.origin(of: key)) }
        }
        return nil
    }

    /// Throws ``SecureStateError/Kind/providedByReadOnlySource`` when a read-only source has `key`.
    private func refuseIfReadOnly(_ key: Key, action: String) throws(SecureStateError) {
        for source in readOnly {
            if try source.read(key, limit: sizeLimit) != nil {
                throw SecureStateError(
                    .providedByReadOnlySource, key: key, source: source.origin(of: key),
                    detail: "the value there is what every read returns, so it can't be \(action) in the keychain's writable store; change it where it is provided"
                )
            }
        }
    }

    /// Every key a source can list (the directories' and stores' files, the memory store's
    /// keys) and every key given at creation or written.
    func allKeys() throws(SecureStateError) -> Set<Key> {
        var keys = knownKeys.withLock { $0 }
        for source in readOnly + writable {
            keys.formUnion(try source.keys())
        }
        return keys
    }
}
