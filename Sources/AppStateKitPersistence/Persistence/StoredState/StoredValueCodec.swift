import AppStateKitCore
import Foundation

/// How a ``Application/StoredState`` value is represented in a key-value store: property-list
/// values natively (so plain `UserDefaults` code reads and writes the same entries),
/// `RawRepresentable` values with a `String` or `Int` raw value as the raw value, everything
/// else as JSON `Data`. Reads accept all three, and convert between `Int`, `Double` and `Float`
/// where no precision is lost.
enum StoredValueCodec {
    /// The object to store for `value`, or `nil` to remove the key (an optional holding `nil`).
    static func encode<Value: Encodable>(_ value: Value, key: String) throws -> Any? {
        let unwrapped: Any
        if let optional = value as? any OptionalValue {
            guard let wrapped = optional.wrappedAny else { return nil }
            unwrapped = wrapped
        } else {
            unwrapped = value
        }
        if PropertyListValue.isPropertyList(unwrapped) { return unwrapped }
        if let raw = unwrapped as? any RawRepresentable {
            let rawValue = raw.rawValue
            if rawValue is String || rawValue is Int { return rawValue }
        }
        do {
            return try JSONCoders.encode(value)
        } catch {
            throw PersistenceError(.encodingFailed, key: key, path: nil, detail: shortDescription(of: error))
        }
    }

    /// Decodes a stored `object`; errors (`typeMismatch`, `corruptData`) name the key and `store`.
    static func decode<Value: Decodable>(_ object: Any, as type: Value.Type, key: String, store: (any UserDefaultsManaging)? = nil) throws -> Value {
        if let value = object as? Value { return value }
        if let converted = convertNumber(object, to: Value.self) { return converted }
        if let raw = makeRawRepresentable(object, as: Value.self) { return raw }
        let subject = store.map { "key \"\(key)\" in \(location(of: $0))" } ?? "key \"\(key)\""
        let path = (store as? FileKeyValueStore)?.path
        if let data = object as? Data {
            do {
                return try JSONCoders.decode(Value.self, from: data)
            } catch {
                throw PersistenceError(.corruptData, errno: nil, subject: subject, key: key, path: path, detail: "the stored JSON does not decode as \(Value.self): \(shortDescription(of: error))")
            }
        }
        throw PersistenceError(.typeMismatch, errno: nil, subject: subject, key: key, path: path, detail: "stored \(Swift.type(of: object)), expected \(Value.self)")
    }

    /// How messages name a store: its file for a ``FileKeyValueStore``.
    static func location(of store: any UserDefaultsManaging) -> String {
        switch store {
        case let store as FileKeyValueStore: store.path
        case is UserDefaultsStore: "UserDefaults"
        case is InMemoryDefaults: "an in-memory store"
        default: "a store of type \(Swift.type(of: store))"
        }
    }

    private static func convertNumber<Value>(_ object: Any, to type: Value.Type) -> Value? {
        let target: Any.Type = (Value.self as? any OptionalValue.Type)?.wrappedType ?? Value.self
        let converted: Any? = switch object {
        case let int as Int where target == Double.self: Double(exactly: int)
        case let int as Int where target == Float.self: Float(exactly: int)
        case let float as Float where target == Double.self: Double(float)
        case let double as Double where target == Float.self: Float(exactly: double)
        case let double as Double where target == Int.self: Int(exactly: double)
        default: nil
        }
        return converted.flatMap { $0 as? Value }
    }

    private static func makeRawRepresentable<Value>(_ object: Any, as type: Value.Type) -> Value? {
        let target: Any.Type = (Value.self as? any OptionalValue.Type)?.wrappedType ?? Value.self
        guard let rawType = target as? any RawRepresentable.Type else { return nil }
        return make(rawType, from: object) as? Value
    }

    private static func make<Raw: RawRepresentable>(_ type: Raw.Type, from object: Any) -> Raw? {
        (object as? Raw.RawValue).flatMap(Raw.init(rawValue:))
    }
}

/// Lets generic code see through an `Optional` of unknown wrapped type.
package protocol OptionalValue {
    var wrappedAny: Any? { get }
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalValue {
    package var wrappedAny: Any? { map { $0 } }

    package static var wrappedType: Any.Type { Wrapped.self }
}

/// Whether `value` is an `Optional` holding `nil` (which persisted states store as no value).
func isNilOptional<Value>(_ value: Value) -> Bool {
    guard let optional = value as? any OptionalValue else { return false }
    return optional.wrappedAny == nil
}
