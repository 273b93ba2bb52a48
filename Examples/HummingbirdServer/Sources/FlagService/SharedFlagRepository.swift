import AppStateKit
import Foundation

/// Flags shared by every instance through a ``SyncStore`` (a `PostgresSyncStore` in the
/// fleet): all flags are one JSON record under ``key``. Reads decode the store's local cache
/// (no I/O); a save is a compare-and-set retried on conflict, so concurrent saves on different
/// instances never lose each other's flags.
public final class SharedFlagRepository: FlagRepository {
    /// The record holding every flag.
    public static let key = "FlagServer/flags"

    private let store: any SyncStore

    /// A repository on `store`.
    public init(store: any SyncStore) {
        self.store = store
    }

    public func all() throws -> [Flag] {
        try flags(in: store.cachedRecord(forKey: Self.key)).values.sorted { $0.name < $1.name }
    }

    public func flag(named name: String) throws -> Flag? {
        try flags(in: store.cachedRecord(forKey: Self.key))[name]
    }

    public func save(_ flag: Flag) async throws {
        var current = try store.cachedRecord(forKey: Self.key)
        for _ in 0..<100 {
            var flags = try flags(in: current)
            flags[flag.name] = flag
            let data = try JSONEncoder.flags.encode(flags)
            switch try await store.compareAndSet(data, forKey: Self.key, expectedVersion: current?.version ?? 0) {
            case .committed: return
            case .conflict(let newer): current = newer
            }
        }
        throw SyncStoreError(.contention, key: Self.key, detail: "100 compare-and-set attempts lost to other instances")
    }

    private func flags(in record: SyncRecord?) throws -> [String: Flag] {
        guard let data = record?.value else { return [:] }
        return try JSONDecoder.flags.decode([String: Flag].self, from: data)
    }
}

extension JSONEncoder {
    static let flags: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }()
}

extension JSONDecoder {
    static let flags: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
