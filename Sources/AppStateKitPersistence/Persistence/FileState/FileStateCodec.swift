import AppStateKitCore
import Foundation

/// How ``Application/FileState`` values are written: JSON, human-readable (pretty-printed, sorted
/// keys), or that JSON base64-encoded (AppState's default). Reading accepts both.
enum FileStateCodec {
    static func encode<Value: Encodable>(_ value: Value, base64Encoded: Bool, path: String) throws -> Data {
        let json: Data
        do {
            json = try JSONCoders.encode(value, formatting: base64Encoded ? [.sortedKeys] : [.prettyPrinted, .sortedKeys])
        } catch {
            throw PersistenceError(.encodingFailed, subject: path, detail: shortDescription(of: error))
        }
        return base64Encoded ? json.base64EncodedData() : json
    }

    /// Decodes JSON, or base64-encoded JSON; throws `corruptData` naming `path` and what does
    /// not decode where (`expected String at pages[2]`), `base64` named only for a base64 file.
    static func decode<Value: Decodable>(_ data: Data, as type: Value.Type, path: String) throws -> Value {
        let isWhitespace: (UInt8) -> Bool = { $0 == 0x0A || $0 == 0x0D || $0 == 0x20 || $0 == 0x09 }
        if data.allSatisfy(isWhitespace) {
            throw PersistenceError(.corruptData, subject: path, detail: "the file is empty")
        }
        try ReadLimits.checkNesting(data, path: path)
        let jsonError: any Error
        do {
            return try JSONCoders.decode(Value.self, from: data)
        } catch {
            // Not plain JSON: the base64 form is tried next, and this error reported if that fails too.
            jsonError = error
        }
        let trimmed = Data(data.filter { !isWhitespace($0) })
        if let json = Data(base64Encoded: trimmed), !json.isEmpty {
            do {
                try ReadLimits.checkNesting(json, path: path)
                return try JSONCoders.decode(Value.self, from: json)
            } catch {
                throw PersistenceError(.corruptData, subject: path, detail: "the base64-encoded JSON does not decode as \(Value.self): \(shortDescription(of: error))")
            }
        }
        throw PersistenceError(.corruptData, subject: path, detail: "the JSON does not decode as \(Value.self): \(shortDescription(of: jsonError))")
    }
}
