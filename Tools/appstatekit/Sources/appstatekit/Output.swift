import ArgumentParser
import Foundation

/// `--json`, shared by every command: one JSON object for a result, one object per line for `watch`.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print JSON for scripts instead of a table for people (one object per line for watch).")
    var json = false
}

/// A JSON value: what `--json` prints, what `kv set --json` and `file` parse.
indirect enum JSONValue: Codable, Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .int(value): try container.encode(value)
        case let .double(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(value): try container.encode(value)
        case let .object(value): try container.encode(value)
        }
    }

    /// Parses JSON text (any value, not only objects and arrays).
    static func parse(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// A value read from a key-value store (a property-list value) as JSON, with its type's name.
    /// Data holding JSON (how StoredState keeps a Codable value that is not a property-list
    /// value) is that JSON, of type `json`; other data is base64, a date ISO 8601, a URL its
    /// string, a non-finite number its name.
    static func of(storeValue value: Any) -> (value: JSONValue, type: String) {
        switch value {
        case let value as Bool: return (.bool(value), "bool")
        case let value as Int: return (.int(value), "int")
        case let value as Double: return (value.isFinite ? .double(value) : .string("\(value)"), "double")
        case let value as Float: return (value.isFinite ? .double(Double(value)) : .string("\(value)"), "float")
        case let value as String: return (.string(value), "string")
        case let value as Data:
            if let json = try? parse(value) { return (json, "json") }
            return (.string(value.base64EncodedString()), "data")
        case let value as Date: return (.string(value.formatted(.iso8601)), "date")
        case let value as URL: return (.string(value.absoluteString), "url")
        case let value as [Any]: return (.array(value.map { of(storeValue: $0).value }), "array")
        case let value as [String: Any]: return (.object(value.mapValues { of(storeValue: $0).value }), "dictionary")
        default: return (.string(String(describing: type(of: value))), "unknown")
        }
    }

    /// The value as a key-value store keeps it (a property-list value); `null` has none.
    func storeValue() throws -> Any {
        switch self {
        case .null: throw ToolError("null can't be stored in a key-value store (delete the key instead)")
        case let .bool(value): return value
        case let .int(value): return value
        case let .double(value): return value
        case let .string(value): return value
        case let .array(values): return try values.map { try $0.storeValue() } as [Any]
        case let .object(values): return try values.mapValues { try $0.storeValue() } as [String: Any]
        }
    }

    /// Compact JSON text, keys sorted.
    var text: String {
        Output.text(self)
    }
}

/// A failure the tool explains in one line (exit status 1).
struct ToolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Printing for people (tables, plain lines) and for scripts (JSON).
enum Output {
    /// Compact JSON text of `value`, keys sorted, slashes unescaped.
    static func text(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "null" }
        return String(decoding: data, as: UTF8.self)
    }

    /// Pretty JSON text of `value`, keys sorted, ending with a newline.
    static func prettyText(_ value: some Encodable) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        guard let data = try? encoder.encode(value) else { return "null\n" }
        return String(decoding: data, as: UTF8.self) + "\n"
    }

    /// Prints one JSON object on one line (and flushes: `watch` output is read as it comes).
    static func printJSON(_ object: [String: JSONValue]) {
        printLine(text(object))
    }

    /// Prints a line to standard output and flushes it.
    static func printLine(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Prints a line to standard error: `appstatekit: <message>`.
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data("appstatekit: \(message)\n".utf8))
    }

    /// Prints `rows` under `headers` in aligned columns (the last column unpadded); a message
    /// instead when there are no rows.
    static func printTable(_ headers: [String], _ rows: [[String]], empty: String) {
        guard !rows.isEmpty else {
            printLine(empty)
            return
        }
        let all = [headers] + rows.map { row in row.map(singleLine) }
        var widths = [Int](repeating: 0, count: headers.count)
        for row in all {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        for row in all {
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            printLine(cells.joined(separator: "  "))
        }
    }

    /// Control characters (a newline in a hostile key) shown escaped, so one row stays one line.
    static func singleLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return text }
        return text.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
    }
}

/// Runs a command's body: a ``ToolError`` or any other error is printed on standard error
/// (naming what failed) and becomes exit status 1; `ExitCode`s pass through.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        Output.printError("\(error)")
        throw ToolExit.failure
    }
}
