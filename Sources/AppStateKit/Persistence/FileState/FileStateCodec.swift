import Foundation

/// How ``Application/FileState`` values are written: JSON, human-readable (pretty-printed, sorted
/// keys), or that JSON base64-encoded (AppState's default). Reading accepts both.
enum FileStateCodec {
    static func encode<Value: Encodable>(_ value: Value, base64Encoded: Bool, path: String) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = base64Encoded ? [.sortedKeys] : [.prettyPrinted, .sortedKeys]
        let json: Data
        do {
            json = try encoder.encode(value)
        } catch {
            throw PersistenceError(.encodingFailed, subject: path, detail: "\(error)")
        }
        return base64Encoded ? json.base64EncodedData() : json
    }

    static func decode<Value: Decodable>(_ data: Data, as type: Value.Type, path: String) throws -> Value {
        let decoder = JSONDecoder()
        let jsonError: any Error
        do {
            return try decoder.decode(Value.self, from: data)
        } catch {
            // Not plain JSON: the base64 form is tried next, and this error reported if that fails too.
            jsonError = error
        }
        let trimmed = Data(data.filter { !($0 == 0x0A || $0 == 0x0D || $0 == 0x20) })
        if let json = Data(base64Encoded: trimmed) {
            do {
                return try decoder.decode(Value.self, from: json)
            } catch {
                throw PersistenceError(.corruptData, subject: path, detail: "base64 content does not decode as \(Value.self): \(error)")
            }
        }
        throw PersistenceError(.corruptData, subject: path, detail: "content does not decode as \(Value.self): \(jsonError)")
    }
}
