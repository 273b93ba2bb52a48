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

    /// Converts a Swift value to a property-list value, or `nil` if it isn't one.
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
            var elements: [PropertyListValue] = []
            elements.reserveCapacity(value.count)
            for element in value {
                guard let converted = PropertyListValue(element) else { return nil }
                elements.append(converted)
            }
            self = .array(elements)
        case let value as [String: Any]:
            var elements: [String: PropertyListValue] = [:]
            for (key, element) in value {
                guard let converted = PropertyListValue(element) else { return nil }
                elements[key] = converted
            }
            self = .dictionary(elements)
        case let value as any BinaryInteger:
            guard let int = Int(exactly: value) else { return nil }
            self = .int(int)
        default:
            return nil
        }
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

    /// The Swift value: `Bool`, `Int`, `Double`, `Float`, `String`, `Data`, `Date`, `URL`,
    /// `[Any]` or `[String: Any]`.
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

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Tag.self)
        guard let tag = container.allKeys.first, container.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "expected one type tag, found \(container.allKeys.map(\.stringValue))")
            )
        }
        switch tag {
        case .bool: self = .bool(try container.decode(Bool.self, forKey: tag))
        case .int: self = .int(try container.decode(Int.self, forKey: tag))
        case .double: self = .double(try container.decode(Double.self, forKey: tag))
        case .float: self = .float(Float(try container.decode(Double.self, forKey: tag)))
        case .string: self = .string(try container.decode(String.self, forKey: tag))
        case .data: self = .data(try container.decode(Data.self, forKey: tag))
        case .date: self = .date(Date(timeIntervalSinceReferenceDate: try container.decode(Double.self, forKey: tag)))
        case .url: self = .url(try container.decode(URL.self, forKey: tag))
        case .array: self = .array(try container.decode([PropertyListValue].self, forKey: tag))
        case .dictionary: self = .dictionary(try container.decode([String: PropertyListValue].self, forKey: tag))
        }
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
