import AppStateKitCore
import Foundation

/// Any JSON value, kept as it was read so that bytes this version can't interpret are written
/// back unchanged (numbers keep their integer or floating-point form).
indirect enum RawJSONValue: Codable, Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case number(Double)
    case string(String)
    case array([RawJSONValue])
    case object([String: RawJSONValue])

    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = Self.attempt({ try single.decode(Bool.self) }) {
            self = .bool(value)
        } else if let value = Self.attempt({ try single.decode(Int64.self) }) {
            self = .integer(value)
        } else if let value = Self.attempt({ try single.decode(UInt64.self) }) {
            self = .unsigned(value)
        } else if let value = Self.attempt({ try single.decode(Double.self) }) {
            self = .number(value)
        } else if let value = Self.attempt({ try single.decode(String.self) }) {
            self = .string(value)
        } else if let value = Self.attempt({ try single.decode([RawJSONValue].self) }) {
            self = .array(value)
        } else {
            self = .object(try single.decode([String: RawJSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var single = encoder.singleValueContainer()
        switch self {
        case .null: try single.encodeNil()
        case let .bool(value): try single.encode(value)
        case let .integer(value): try single.encode(value)
        case let .unsigned(value): try single.encode(value)
        case let .number(value): try single.encode(value)
        case let .string(value): try single.encode(value)
        case let .array(value): try single.encode(value)
        case let .object(value): try single.encode(value)
        }
    }

    private static func attempt<T>(_ body: () throws -> T) -> T? {
        do {
            return try body()
        } catch {
            return nil  // another shape; the next one is tried
        }
    }
}
