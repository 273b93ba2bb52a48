#if Configuration
import Configuration
import Foundation

extension ConfigContent {
    /// The content as natural JSON, the form ``StoredConfigValue/init(json:)`` reads: strings,
    /// numbers and Booleans as themselves, bytes as a base64 string, arrays as arrays, so an
    /// ``AppStateKit/Application/SyncState`` of the matching Swift type reads the same record.
    ///
    /// - Throws: ``ConfigStoreError`` of kind `unencodable` for a double that is not finite
    ///   (JSON has no NaN or infinity).
    func json(key: String) throws -> Data {
        let encoder = JSONEncoder()
        do {
            switch self {
            case let .string(value): return try encoder.encode(value)
            case let .int(value): return try encoder.encode(value)
            case let .double(value): return try encoder.encode(value)
            case let .bool(value): return try encoder.encode(value)
            case let .bytes(value): return try encoder.encode(Data(value))
            case let .stringArray(value): return try encoder.encode(value)
            case let .intArray(value): return try encoder.encode(value)
            case let .doubleArray(value): return try encoder.encode(value)
            case let .boolArray(value): return try encoder.encode(value)
            case let .byteChunkArray(value): return try encoder.encode(value.map { Data($0) })
            }
        } catch {
            throw ConfigStoreError(.unencodable, key: key, detail: "a double that is not finite (NaN or an infinity) has no JSON form")
        }
    }

    /// The content as a property-list value a ``AppStateKit/UserDefaultsManaging`` store keeps:
    /// `String`, `Int`, `Double`, `Bool`, `Data` and arrays of them.
    var propertyList: any Sendable {
        switch self {
        case let .string(value): value
        case let .int(value): value
        case let .double(value): value
        case let .bool(value): value
        case let .bytes(value): Data(value)
        case let .stringArray(value): value
        case let .intArray(value): value
        case let .doubleArray(value): value
        case let .boolArray(value): value
        case let .byteChunkArray(value): value.map { Data($0) }
        }
    }
}
#endif
