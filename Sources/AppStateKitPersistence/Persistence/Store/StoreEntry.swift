import AppStateKitCore
/// One key's value in a ``FileKeyValueStore`` file: a value this version can read, or the JSON
/// it couldn't interpret, kept byte for byte (as JSON) until that key is written.
enum StoreEntry: Codable, Equatable, Sendable {
    case value(PropertyListValue)
    /// An entry that is not a valid tagged value, and what is wrong with it.
    case damaged(RawJSONValue, problem: String)

    init(from decoder: any Decoder) throws {
        do {
            self = .value(try PropertyListValue(from: decoder))
        } catch let error as DecodingError {
            // Damage stays local to this key: keep its JSON and say what is wrong.
            let depth = decoder.codingPath.count
            self = .damaged(try RawJSONValue(from: decoder), problem: Self.describe(error, below: depth))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case let .value(value): try value.encode(to: encoder)
        case let .damaged(raw, _): try raw.encode(to: encoder)
        }
    }

    /// The problem, with its location inside the entry (the key itself is named separately).
    private static func describe(_ error: DecodingError, below depth: Int) -> String {
        guard case let .dataCorrupted(context) = error else { return error.summary }
        return context.debugDescription + DecodingError.location(Array(context.codingPath.dropFirst(depth)))
    }
}
