import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// How ``Application/SyncState`` values become a ``SyncRecord``'s bytes: compact JSON with
/// sorted keys. An optional holding `nil` is no bytes at all (the key is removed).
enum SyncValueCodec {
    /// The JSON for `value`, or `nil` for an optional holding `nil`.
    ///
    /// - Throws: ``SyncStoreError`` of kind `typeMismatch` when the value can't be encoded, or
    ///   the kinds of ``SyncLimits/check(key:value:)``.
    static func encode<Value: Encodable>(_ value: Value, key: String) throws -> Data? {
        if let optional = value as? any OptionalValue, optional.wrappedAny == nil {
            try SyncLimits.check(key: key, value: nil)
            return nil
        }
        let data: Data
        do {
            data = try JSONCoders.encode(value, formatting: [.sortedKeys])
        } catch {
            throw SyncStoreError(.typeMismatch, key: key, detail: "the value can't be encoded as JSON: \(shortDescription(of: error))")
        }
        try SyncLimits.check(key: key, value: data)
        return data
    }

    /// The value `data` holds; `nil` (a removed or never written key) is `initial`.
    ///
    /// - Throws: ``SyncStoreError`` of kind `corruptRecord` when `data` isn't JSON, and of kind
    ///   `typeMismatch` when it is JSON of another shape than `Value`.
    static func decode<Value: Decodable>(_ data: Data?, as type: Value.Type, initial: Value, key: String, version: Int64) throws -> Value {
        guard let data else { return initial }
        do {
            return try JSONCoders.decode(Value.self, from: data)
        } catch {
            let isJSON = (try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil
            if isJSON {
                throw SyncStoreError(.typeMismatch, key: key, detail: "the stored JSON (version \(version), \(data.count) bytes) does not decode as \(Value.self): \(shortDescription(of: error))")
            }
            throw SyncStoreError(.corruptRecord, key: key, detail: "the stored value (version \(version), \(data.count) bytes) is not valid JSON")
        }
    }
}
