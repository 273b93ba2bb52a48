import AppStateKit
import ArgumentParser
import Foundation

/// A failure the sync and PostgreSQL commands report: one line on standard error, exit status 1.
struct SyncToolError: Error, CustomStringConvertible {
    /// What failed, naming the store, key and path (never a secret).
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Text from outside the process (keys, values, names) made safe to show on a terminal.
enum SyncText {
    /// `text` quoted, with control characters and quotes escaped, at most 200 characters (a
    /// hostile key can't move the cursor or hide a line).
    static func shown(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars.prefix(200) {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value) {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        if text.unicodeScalars.count > 200 { out += "…" }
        return out + "\""
    }

    /// `text` as a JSON string literal.
    static func jsonString(_ text: String) -> String {
        // JSONEncoder escapes every control character; a String always encodes.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return (try? encoder.encode(text)).flatMap { String(data: $0, encoding: .utf8) } ?? "\"\""
    }
}

/// A JSON value: how the tool reads a value given on the command line, and re-reads a stored one
/// before printing it.
enum SyncJSON: Codable, Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case double(Double)
    case string(String)
    case array([SyncJSON])
    case object([String: SyncJSON])

    init(from decoder: any Decoder) throws {
        if var elements = try? decoder.unkeyedContainer() {
            var array: [SyncJSON] = []
            while !elements.isAtEnd { array.append(try elements.decode(SyncJSON.self)) }
            self = .array(array)
            return
        }
        if let members = try? decoder.container(keyedBy: AnyKey.self) {
            var object: [String: SyncJSON] = [:]
            for key in members.allKeys { object[key.stringValue] = try members.decode(SyncJSON.self, forKey: key) }
            self = .object(object)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? single.decode(UInt64.self) {
            self = .unsigned(value)
        } else if let value = try? single.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .integer(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .unsigned(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .double(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: AnyKey.self)
            for (key, value) in members { try container.encode(value, forKey: AnyKey(key)) }
        }
    }

    private struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The value `text` holds, as the bytes the value codec would store for it: compact JSON
    /// with sorted keys.
    ///
    /// - Throws: ``SyncToolError`` naming `key` when `text` is not one JSON value or is larger
    ///   than ``SyncLimits/maxValueBytes``.
    static func storedBytes(of text: String, key: String) throws -> Data {
        let input = Data(text.utf8)
        guard input.count <= SyncLimits.maxValueBytes else {
            throw SyncToolError("the value for sync key \(SyncText.shown(key)) has \(input.count) bytes; the limit is \(SyncLimits.maxValueBytes)")
        }
        let value: SyncJSON
        do {
            value = try JSONDecoder().decode(SyncJSON.self, from: input)
        } catch {
            throw SyncToolError("the value for sync key \(SyncText.shown(key)) is not JSON (a string needs quotes: '\"on\"'): \(String(describing: error).prefix(200))")
        }
        return try value.compactBytes()
    }

    /// Compact JSON with sorted keys, as the value codec writes.
    func compactBytes() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// The stored `bytes` as JSON text to print: re-read (a store's bytes come from outside the
    /// process) and written compact, or `nil` when they aren't JSON.
    static func printable(_ bytes: Data) -> String? {
        guard let value = try? JSONDecoder().decode(SyncJSON.self, from: bytes), let data = try? value.compactBytes() else { return nil }
        return String(data: data, encoding: .utf8)
    }
}

/// How a record is printed: a line for people, a JSON object for scripts.
enum SyncRecordOutput {
    /// `{"key":…,"version":…,"value":…}` (plus `"change"` for a watch line); `value` is `null`
    /// for a removed or absent key, and a record whose bytes aren't JSON gets `"damaged":true`.
    static func json(key: String, version: Int64, value: Data?, extra: [(String, String)] = []) -> String {
        var members = ["\"key\":\(SyncText.jsonString(key))", "\"version\":\(version)"]
        if let value {
            if let printable = SyncJSON.printable(value) {
                members.append("\"value\":\(printable)")
            } else {
                members.append("\"value\":null")
                members.append("\"damaged\":true")
            }
        } else {
            members.append("\"value\":null")
        }
        for (name, json) in extra { members.append("\(SyncText.jsonString(name)):\(json)") }
        return "{" + members.joined(separator: ",") + "}"
    }

    static func json(_ record: SyncRecord, extra: [(String, String)] = []) -> String {
        json(key: record.key, version: record.version, value: record.value, extra: extra)
    }

    /// The value for people: its JSON, `(removed)`, or `(not JSON, N bytes)`.
    static func shownValue(_ value: Data?) -> String {
        guard let value else { return "(removed)" }
        guard let printable = SyncJSON.printable(value) else { return "(not JSON, \(value.count) bytes)" }
        // JSON escapes control characters in strings; cut long values for a table.
        return printable.count > 120 ? String(printable.prefix(119)) + "…" : printable
    }

    /// `KEY  VERSION  VALUE` rows, aligned.
    static func table(_ records: [SyncRecord]) -> String {
        let keys = records.map { SyncText.shown($0.key) }
        let keyWidth = max(3, keys.map(\.count).max() ?? 0)
        let versions = records.map { String($0.version) }
        let versionWidth = max(7, versions.map(\.count).max() ?? 0)
        func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
        var lines = [pad("KEY", keyWidth) + "  " + pad("VERSION", versionWidth) + "  VALUE"]
        for (index, record) in records.enumerated() {
            lines.append(pad(keys[index], keyWidth) + "  " + pad(versions[index], versionWidth) + "  " + shownValue(record.value))
        }
        return lines.joined(separator: "\n")
    }
}

/// Prints one line to standard output at once (a watcher's reader sees each change as it
/// happens, even through a pipe).
func syncPrint(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Prints `message` to standard error as `appstatekit: <message>`.
func syncPrintError(_ message: String) {
    FileHandle.standardError.write(Data(("appstatekit: " + message + "\n").utf8))
}

/// Runs `body`, turning a failure into its message on standard error and exit status 1.
func syncReportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch let error as SyncToolError {
        syncPrintError(error.description)
        throw ToolExit.failure
    } catch is CancellationError {
        throw ToolExit.failure
    } catch {
        syncPrintError("\(error)")
        throw ToolExit.failure
    }
}
