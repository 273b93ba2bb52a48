import AppStateKitCore
import Foundation

/// A property-list value as the file-backed store writes it: tagged, so every type reads back
/// exactly as it was written (a `Bool` stays a `Bool`, a `Float` a `Float`, a `Date` a `Date`).
///
/// On disk each value is a one-key JSON object naming its type, e.g. `{"int": 3}` or
/// `{"date": 786_000_000.5}` (seconds since 2001-01-01, as `Date` counts).
indirect enum PropertyListValue: Codable, Equatable, Sendable {
    case bool(Bool)
    case int(Int)
    case double(Double)
    case float(Float)
    case string(String)
    case data(Data)
    case date(Date)
    case url(URL)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    init?(_ value: Any) {
        switch value {
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .int(value)
        case let value as Double: self = .double(value)
        case let value as Float: self = .float(value)
        case let value as String: self = .string(value)
        case let value as Data: self = .data(value)
        case let value as Date: self = .date(value)
        case let value as URL: self = .url(value)
        case let value as [Any]:
            let elements = value.compactMap { PropertyListValue($0) }
            guard elements.count == value.count else { return nil }
            self = .array(elements)
        case let value as [String: Any]:
            let elements = value.compactMapValues { PropertyListValue($0) }
            guard elements.count == value.count else { return nil }
            self = .dictionary(elements)
        case let value as any BinaryInteger:
            guard let int = Int(exactly: value) else { return nil }
            self = .int(int)
        default:
            return nil
        }
    }

    /// Whether two stored values are the same, for a compare-and-set: equal, or (for a NaN, which
    /// `==` never matches and an update would retry forever) equal as text.
    static func same(_ first: PropertyListValue?, _ second: PropertyListValue?) -> Bool {
        first == second || String(reflecting: first) == String(reflecting: second)
    }

    /// Whether `value` is a property-list value (and so is stored natively).
    static func isPropertyList(_ value: Any) -> Bool {
        switch value {
        case is Bool, is Int, is Double, is Float, is String, is Data, is Date, is URL: true
        case let value as [Any]: value.allSatisfy(isPropertyList)
        case let value as [String: Any]: value.values.allSatisfy(isPropertyList)
        default: false
        }
    }

    /// The Swift value (arrays as `[Any]`, dictionaries as `[String: Any]`).
    var swiftValue: Any {
        switch self {
        case let .bool(value): value
        case let .int(value): value
        case let .double(value): value
        case let .float(value): value
        case let .string(value): value
        case let .data(value): value
        case let .date(value): value
        case let .url(value): value
        case let .array(values): values.map(\.swiftValue)
        case let .dictionary(values): values.mapValues(\.swiftValue)
        }
    }

    private enum Tag: String, CodingKey {
        case bool, int, double, float, string, data, date, url, array, dictionary
    }

    /// Any key, to see tags this version doesn't know.
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Decodes a tagged value. Every failure is a `DecodingError.dataCorrupted` whose
    /// description says what is wrong in a few words (`unknown type tag "number"`).
    init(from decoder: any Decoder) throws {
        let keys: [String]
        do {
            keys = try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue)
        } catch {
            throw Self.problem(decoder, "not a tagged value; expected an object like {\"int\": 3}")
        }
        guard keys.count == 1 else {
            let found = keys.isEmpty ? "none" : keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            throw Self.problem(decoder, "expected one type tag, found \(found)")
        }
        guard let tag = Tag(rawValue: keys[0]) else {
            throw Self.problem(decoder, "unknown type tag \"\(keys[0])\"")
        }
        let container = try decoder.container(keyedBy: Tag.self)
        /// What `decode` returns, or the problem that the tagged value is not `name`.
        func shaped<T>(_ name: String, _ decode: () throws -> T) throws -> T {
            do {
                return try decode()
            } catch {
                throw Self.problem(decoder, "the value tagged \"\(tag.rawValue)\" is not \(name)")
            }
        }
        func scalar<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
            try shaped(name) { try container.decode(T.self, forKey: tag) }
        }
        switch tag {
        case .bool: self = .bool(try scalar(Bool.self, "a Bool"))
        case .int: self = .int(try scalar(Int.self, "an Int"))
        case .double: self = .double(try scalar(Double.self, "a Double"))
        case .float: self = .float(Float(try scalar(Double.self, "a Float")))
        case .string: self = .string(try scalar(String.self, "a String"))
        case .data: self = .data(try scalar(Data.self, "base64 data"))
        case .date: self = .date(Date(timeIntervalSinceReferenceDate: try scalar(Double.self, "a Date (seconds since 2001)")))
        case .url: self = .url(try scalar(URL.self, "a URL"))
        case .array:
            // The shape first, so that an element's own problem is not reported as the array's.
            _ = try shaped("an array") { try container.nestedUnkeyedContainer(forKey: tag) }
            self = .array(try container.decode([PropertyListValue].self, forKey: tag))
        case .dictionary:
            _ = try shaped("an object") { try container.nestedContainer(keyedBy: AnyKey.self, forKey: tag) }
            self = .dictionary(try container.decode([String: PropertyListValue].self, forKey: tag))
        }
    }

    private static func problem(_ decoder: any Decoder, _ description: String) -> DecodingError {
        .dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: description))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Tag.self)
        switch self {
        case let .bool(value): try container.encode(value, forKey: .bool)
        case let .int(value): try container.encode(value, forKey: .int)
        case let .double(value): try container.encode(value, forKey: .double)
        case let .float(value): try container.encode(Double(value), forKey: .float)
        case let .string(value): try container.encode(value, forKey: .string)
        case let .data(value): try container.encode(value, forKey: .data)
        case let .date(value): try container.encode(value.timeIntervalSinceReferenceDate, forKey: .date)
        case let .url(value): try container.encode(value, forKey: .url)
        case let .array(values): try container.encode(values, forKey: .array)
        case let .dictionary(values): try container.encode(values, forKey: .dictionary)
        }
    }
}
