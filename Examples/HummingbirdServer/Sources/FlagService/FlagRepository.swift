import AppStateKit
import Foundation

/// Where flags are kept.
public protocol FlagRepository: Sendable {
    func all() throws -> [Flag]
    func flag(named name: String) throws -> Flag?
    func save(_ flag: Flag) async throws
}

/// Flags in a FileState (human-readable JSON). A save is one atomic read-change-write of the
/// file, so concurrent requests never lose each other's writes, and it suspends the request's
/// task instead of blocking its event loop while the file is made durable.
public final class FileFlagRepository: FlagRepository {
    public init() {}

    public func all() throws -> [Flag] {
        try AppStateKit.Application.fileState(\.flagsFile).read().values.sorted { $0.name < $1.name }
    }

    public func flag(named name: String) throws -> Flag? {
        try AppStateKit.Application.fileState(\.flagsFile).read()[name]
    }

    public func save(_ flag: Flag) async throws {
        try await AppStateKit.Application.fileState(\.flagsFile).updateDurably { $0[flag.name] = flag }
    }
}

/// Flags in memory, for tests.
public final class InMemoryFlagRepository: FlagRepository, @unchecked Sendable {
    // Safe: `flags` is only accessed while `lock` is held.
    private let lock = NSLock()
    private var flags: [String: Flag]

    public init(_ flags: [Flag] = []) {
        self.flags = Dictionary(uniqueKeysWithValues: flags.map { ($0.name, $0) })
    }

    public func all() throws -> [Flag] { lock.withLock { flags.values.sorted { $0.name < $1.name } } }
    public func flag(named name: String) throws -> Flag? { lock.withLock { flags[name] } }
    public func save(_ flag: Flag) throws { lock.withLock { flags[flag.name] = flag } }
}
