import AppStateKitCore
import AppStateKitPersistence
/// AppState's `Keychain` methods, so code written for AppState compiles unchanged. They never
/// throw a read or write failure: they report it through `\.logger` (naming the key
/// and source, never the value) and behave as if the key were absent (or the write not made).
/// Use ``Keychain/read(_:)``, ``Keychain/write(_:forKey:)`` and ``Keychain/delete(_:)`` to
/// handle failures yourself.
extension Keychain {
    /// The value under `key` as `Output` (secrets are `String`s), or `nil` when no source has it,
    /// it isn't an `Output`, or it can't be read (reported).
    public func get<Output>(_ key: Key, as: Output.Type) -> Output? {
        reporting { () throws(SecureStateError) in try read(key) }?.flatMap { $0 as? Output }
    }

    /// The value under `key` as a `String`, or `nil`.
    public func get(_ key: Key) -> String? {
        get(key, as: String.self)
    }

    /// The value under `key` as `Output`.
    ///
    /// - Throws: ``SecureStateError``: ``SecureStateError/Kind/missing`` when no source has the
    ///   key (or it isn't an `Output`), or why it couldn't be read.
    public func resolve<Output>(_ key: Key, as: Output.Type) throws -> Output {
        guard let output = try read(key) as? Output else {
            throw SecureStateError(.missing, key: key, source: "", detail: "no source provides it (sources: \(sources.map(\.description).joined(separator: ", ")))")
        }
        return output
    }

    /// The value under `key` as a `String`; throws like ``resolve(_:as:)``.
    public func resolve(_ key: Key) throws -> String {
        try resolve(key, as: String.self)
    }

    /// Stores `value` under `key` in the writable store; a refused or failed write is reported
    /// and the old value kept.
    public func set(value: String, forKey key: Key) {
        reporting { () throws(SecureStateError) in try write(value, forKey: key) }
    }

    /// Removes `key` from the writable store; a refusal or failure is reported.
    public func remove(_ key: Key) {
        reporting { () throws(SecureStateError) in try delete(key) }
    }

    /// Whether some source has `key` (`false`, reported, when it can't be read).
    public func contains(_ key: Key) -> Bool {
        get(key) != nil
    }

    /// This keychain, after checking that every key in `keys` is provided.
    ///
    /// - Throws: ``SecureStateError/Kind/missing`` naming the missing keys (sorted, comma-separated).
    @discardableResult
    public func require(keys: Set<Key>) throws -> Self {
        let missing = keys.filter { !contains($0) }.sorted()
        guard missing.isEmpty else {
            throw SecureStateError(.missing, key: missing.joined(separator: ", "), source: "", detail: "no source provides \(missing.count == 1 ? "it" : "them")")
        }
        return self
    }

    /// This keychain, after checking that `key` is provided.
    @discardableResult
    public func require(_ key: Key) throws -> Self {
        try require(keys: [key])
    }

    /// Every readable value as `Output`, by key: the keys given at creation or written through
    /// this keychain, and the files of its directories and writable store. (Environment
    /// variables are included only for keys given at creation: a variable name can't be turned
    /// back into a key.)
    public func values<Output>(ofType: Output.Type) -> [Key: Output] {
        guard let keys = reporting({ () throws(SecureStateError) in try allKeys() }) else { return [:] }
        var values: [Key: Output] = [:]
        for key in keys where SecretKey.problem(key) == nil {
            if let value = get(key, as: Output.self) { values[key] = value }
        }
        return values
    }

    /// Every readable value, by key (see ``values(ofType:)``).
    public func values() -> [Key: String] {
        values(ofType: String.self)
    }

    /// Runs `body`, reporting a failure through the current application's logger.
    @discardableResult
    private func reporting<Result>(_ body: () throws(SecureStateError) -> Result) -> Result? {
        do {
            return try body()
        } catch {
            Diagnostics.report(error: "AppStateKit: \(error)")
            return nil
        }
    }
}
