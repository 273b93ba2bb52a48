#if Configuration
import Configuration
import Foundation

/// A configuration value as a store holds it, before anyone asked for a type: natural JSON in a
/// ``AppStateKit/SyncStore`` record, a property-list value in a key-value store.
///
/// The type a reader asks for decides how it is read (``content(as:)``), as for
/// swift-configuration's JSON files: `42` reads as an int or a double, a string as a string or,
/// when it is base64, as bytes. So a value written by
/// ``SyncStoreConfigProvider/setValue(_:forKey:)``, by a ``AppStateKit/Application/SyncState``
/// of the same key, or by hand (`'300'` in a database column) reads the same way.
indirect enum StoredConfigValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case bytes([UInt8])
    case array([StoredConfigValue])
    /// Something no configuration type reads (a JSON object or `null`, a date, a dictionary);
    /// the string names what it is.
    case unsupported(String)
    /// Bytes that are not JSON; the string says why.
    case unreadable(String)

    /// The value of a JSON document (fragments allowed).
    init(json data: Data) {
        do {
            self = try JSONDecoder().decode(JSONShape.self, from: data).value
        } catch {
            self = .unreadable("the stored \(data.count) bytes are not valid JSON")
        }
    }

    /// The value of a property-list object as a ``AppStateKit/UserDefaultsManaging`` store
    /// returns it.
    init(propertyList object: Any) {
        switch object {
        case let value as Bool: self = .bool(value)
        case let value as Int: self = .integer(value)
        case let value as Double: self = .number(value)
        case let value as Float: self = .number(Double(value))
        case let value as String: self = .string(value)
        case let value as Data: self = .bytes([UInt8](value))
        case let value as [UInt8]: self = .bytes(value)
        case let value as [Any]: self = .array(value.map(StoredConfigValue.init(propertyList:)))
        case let value as any BinaryInteger:
            if let int = Int(exactly: value) { self = .integer(int) } else { self = .unsupported("an integer out of Int's range") }
        default: self = .unsupported("a \(type(of: object))")
        }
    }

    /// What the value is, for messages (never the value itself: it may be a secret).
    var kind: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .number: "a number"
        case .bool: "a Boolean"
        case .bytes: "bytes"
        case .array: "an array"
        case let .unsupported(kind): kind
        case let .unreadable(reason): reason
        }
    }

    /// The value read as `type`, or `nil` when it isn't one; the caller names the key.
    func content(as type: ConfigType) -> ConfigContent? {
        switch type {
        case .string: string.map(ConfigContent.string)
        case .int: int.map(ConfigContent.int)
        case .double: double.map(ConfigContent.double)
        case .bool: bool.map(ConfigContent.bool)
        case .bytes: bytes.map(ConfigContent.bytes)
        case .stringArray: elements(\.string).map(ConfigContent.stringArray)
        case .intArray: elements(\.int).map(ConfigContent.intArray)
        case .doubleArray: elements(\.double).map(ConfigContent.doubleArray)
        case .boolArray: elements(\.bool).map(ConfigContent.boolArray)
        case .byteChunkArray: elements(\.bytes).map(ConfigContent.byteChunkArray)
        }
    }

    private var string: String? {
        if case let .string(value) = self { return value }
        return nil
    }

    private var int: Int? {
        switch self {
        case let .integer(value): value
        case let .number(value): Int(exactly: value)
        default: nil
        }
    }

    private var double: Double? {
        switch self {
        case let .number(value): value
        case let .integer(value): Double(exactly: value)
        default: nil
        }
    }

    private var bool: Bool? {
        if case let .bool(value) = self { return value }
        return nil
    }

    /// Bytes, or a base64 string (how JSON holds bytes).
    private var bytes: [UInt8]? {
        switch self {
        case let .bytes(value): value
        case let .string(value): Data(base64Encoded: value).map { [UInt8]($0) }
        default: nil
        }
    }

    private func elements<Element>(_ read: (StoredConfigValue) -> Element?) -> [Element]? {
        guard case let .array(values) = self else { return nil }
        var elements: [Element] = []
        elements.reserveCapacity(values.count)
        for value in values {
            guard let element = read(value) else { return nil }
            elements.append(element)
        }
        return elements
    }
}

/// Decodes any JSON value into a ``StoredConfigValue``.
private struct JSONShape: Decodable {
    let value: StoredConfigValue

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var values: [StoredConfigValue] = []
            while !array.isAtEnd {
                values.append(try array.decode(JSONShape.self).value)
            }
            value = .array(values)
            return
        }
        if (try? decoder.container(keyedBy: AnyKey.self)) != nil {
            value = .unsupported("a JSON object")
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            value = .unsupported("JSON null")
        } else if let bool = try? single.decode(Bool.self) {
            value = .bool(bool)
        } else if let int = try? single.decode(Int.self) {
            value = .integer(int)
        } else if let double = try? single.decode(Double.self) {
            value = .number(double)
        } else {
            value = .string(try single.decode(String.self))
        }
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
#endif
