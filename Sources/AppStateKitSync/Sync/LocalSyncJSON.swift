import AppStateKitCore
import AppStateKitPersistence
import Foundation

/// A strict, bounded JSON reader for a ``LocalSyncStore``'s file, which any process that can
/// write the file's directory may have written: nothing in it may trap, recurse without bound or
/// make one record's damage the whole file's.
///
/// Unlike `JSONSerialization`, it keeps numbers as their text (a number no integer or double can
/// hold, such as `1e400` or `9223372036854775808`, damages only the record that holds it, instead
/// of failing the whole file), tells `true` from `1`, and records where each value starts and ends
/// so a damaged record can be written back byte for byte. Values nested deeper than
/// ``maxDepth`` are skipped with a loop, not parsed, and read as ``Value/tooDeep``: recursion
/// is bounded by ``maxDepth`` frames whatever the input, so a hostile file can't overflow a
/// small thread stack.
struct LocalSyncJSON {
    /// A parsed value. Numbers are kept as their text.
    enum Value {
        case object([(key: String, value: Value)])
        case array([Value])
        case string(String)
        case number(String)
        case bool(Bool)
        case null
        /// A value nested deeper than ``maxDepth``: its brackets balance, its content was not read.
        case tooDeep

        /// The value of the last member named `key` of an object.
        subscript(key: String) -> Value? {
            guard case let .object(members) = self else { return nil }
            return members.last(where: { $0.key == key })?.value
        }

        /// The value as an `Int64`, if it is an integer literal (no fraction, no exponent) that
        /// fits one.
        var integer: Int64? {
            guard case let .number(text) = self, !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) else { return nil }
            return Int64(text)
        }

        /// What kind of value it is, for messages.
        var kind: String {
            switch self {
            case .object: "an object"
            case .array: "an array"
            case .string: "a string"
            case .number: "a number"
            case .bool: "a boolean"
            case .null: "null"
            case .tooDeep: "a value nested too deeply"
            }
        }
    }

    /// Why the bytes are not JSON: what was expected, and where.
    struct SyntaxError: Error, Equatable, CustomStringConvertible {
        var message: String
        var offset: Int
        var description: String { "\(message) at byte \(offset)" }
    }

    /// How deep values are parsed; deeper ones are skipped (see ``Value/tooDeep``). A store
    /// record is two levels below the top; 32 leaves room for any value a record could hold
    /// while keeping the recursion a few kilobytes of stack.
    static let maxDepth = 32

    let bytes: [UInt8]
    var position = 0

    init(_ data: Data) {
        bytes = [UInt8](data)
    }

    var isAtEnd: Bool { position >= bytes.count }

    // MARK: Tokens

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    /// Skips whitespace and consumes `byte`, or throws.
    mutating func expect(_ byte: UInt8, _ what: String) throws(SyntaxError) {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { throw error("expected \(what)") }
        position += 1
    }

    /// Skips whitespace and consumes `byte` if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    func error(_ message: String) -> SyntaxError {
        SyntaxError(message: position < bytes.count ? message : "\(message) (the file ends)", offset: position)
    }

    // MARK: Values

    /// Parses one value at nesting `depth` (the top level is 1).
    mutating func value(depth: Int) throws(SyntaxError) -> Value {
        skipWhitespace()
        guard position < bytes.count else { throw error("expected a value") }
        switch bytes[position] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            if depth > Self.maxDepth {
                try skipNested()
                return .tooDeep
            }
            return bytes[position] == UInt8(ascii: "{") ? try object(depth: depth) : try array(depth: depth)
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try number())
        default:
            throw error("expected a value")
        }
    }

    private mutating func object(depth: Int) throws(SyntaxError) -> Value {
        position += 1  // {
        var members: [(key: String, value: Value)] = []
        if consume(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            skipWhitespace()
            guard position < bytes.count, bytes[position] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try string()
            try expect(UInt8(ascii: ":"), "\":\"")
            members.append((key, try value(depth: depth + 1)))
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"), "\",\" or \"}\"")
        return .object(members)
    }

    private mutating func array(depth: Int) throws(SyntaxError) -> Value {
        position += 1  // [
        var elements: [Value] = []
        if consume(UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            elements.append(try value(depth: depth + 1))
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"), "\",\" or \"]\"")
        return .array(elements)
    }

    /// Skips an object or array with a loop: brackets must balance and strings must end; the
    /// rest is not checked.
    private mutating func skipNested() throws(SyntaxError) {
        var open: [UInt8] = []
        repeat {
            guard position < bytes.count else { throw error("expected the end of a nested value") }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                open.append(byte)
                position += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                let opener = byte == UInt8(ascii: "}") ? UInt8(ascii: "{") : UInt8(ascii: "[")
                guard open.last == opener else { throw error("unbalanced brackets") }
                open.removeLast()
                position += 1
            case UInt8(ascii: "\""):
                _ = try string()
            default:
                position += 1
            }
        } while !open.isEmpty
    }

    private mutating func literal(_ word: StaticString) throws(SyntaxError) {
        let count = word.utf8CodeUnitCount
        let matches = word.withUTF8Buffer { expected in
            position + count <= bytes.count && bytes[position..<position + count].elementsEqual(expected)
        }
        guard matches else { throw error("expected \(word)") }
        position += count
    }

    /// A number's text: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    private mutating func number() throws(SyntaxError) -> String {
        let start = position
        func digits(_ reader: inout LocalSyncJSON) -> Int {
            let first = reader.position
            while reader.position < reader.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(reader.bytes[reader.position]) {
                reader.position += 1
            }
            return reader.position - first
        }
        if bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard position < bytes.count else { throw error("expected a digit") }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else if digits(&self) == 0 {
            throw error("expected a digit")
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw error("expected a digit after \".\"") }
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw error("expected a digit in the exponent") }
        }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    /// A string at `position` (its opening quote): escapes resolved, valid UTF-8 required.
    mutating func string() throws(SyntaxError) -> String {
        position += 1  // "
        var out: [UInt8] = []
        while true {
            guard position < bytes.count else { throw error("unterminated string") }
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = String(validating: out, as: UTF8.self) else {
                    throw error("a string that is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                position += 1
                guard position < bytes.count else { throw error("unterminated escape") }
                let escaped = bytes[position]
                position += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escaped)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hexQuad()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"), bytes[position + 1] == UInt8(ascii: "u") else {
                            throw error("a lone UTF-16 surrogate")
                        }
                        position += 2
                        let low = try hexQuad()
                        guard (0xDC00..<0xE000).contains(low) else { throw error("a lone UTF-16 surrogate") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw error("a lone UTF-16 surrogate")
                    }
                    // Valid by the checks above: not a surrogate, at most 0x10FFFF.
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("an invalid \\u escape") }
                    out.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw error("an invalid escape")
                }
            case 0..<0x20:
                throw error("a control character in a string")
            default:
                out.append(byte)
                position += 1
            }
        }
    }

    private mutating func hexQuad() throws(SyntaxError) -> UInt32 {
        guard position + 4 <= bytes.count else { throw error("a short \\u escape") }
        var result: UInt32 = 0
        for byte in bytes[position..<position + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("a \\u escape that is not hexadecimal")
            }
            result = result << 4 | UInt32(digit)
        }
        position += 4
        return result
    }
}
