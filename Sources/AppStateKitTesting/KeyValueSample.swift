import Foundation

/// A value ``KeyValueStoreConformance`` writes, and how it recognises it when read back.
struct KeyValueSample: Sendable, CustomStringConvertible {
    /// The value passed to `set(_:forKey:)`.
    let value: any Sendable
    /// Whether a value read back is `value`.
    let matches: @Sendable (Any?) -> Bool
    /// The value and its type, for messages.
    let description: String

    /// A value recognised by casting to its own type and comparing.
    static func typed<T: Equatable & Sendable>(_ value: T) -> KeyValueSample {
        KeyValueSample(value: value, matches: { ($0 as? T) == value }, description: "\(T.self) \(describeValue(value))")
    }

    /// A floating-point value recognised exactly, sign included (so `-0.0` is not `0.0`).
    static func bitwise<T: BinaryFloatingPoint & Sendable>(_ value: T) -> KeyValueSample {
        KeyValueSample(value: value, matches: { ($0 as? T).map { $0 == value && $0.sign == value.sign } ?? false }, description: "\(T.self) \(value)")
    }

    /// A mixed dictionary, recognised member by member.
    static let mixedDictionary = KeyValueSample(
        value: ["name": "Ada", "count": 3, "ratio": 0.5, "flag": true, "tags": ["a", "b"], "nested": ["inner": 1]] as [String: any Sendable],
        matches: { read in
            guard let read = read as? [String: Any], read.count == 6 else { return false }
            return read["name"] as? String == "Ada" && read["count"] as? Int == 3 && read["ratio"] as? Double == 0.5
                && read["flag"] as? Bool == true && read["tags"] as? [String] == ["a", "b"]
                && read["nested"] as? [String: Int] == ["inner": 1]
        },
        description: "[String: Any] [\"name\": \"Ada\", \"count\": 3, \"ratio\": 0.5, \"flag\": true, \"tags\": [\"a\", \"b\"], \"nested\": [\"inner\": 1]]"
    )

    /// A mixed array, recognised element by element.
    static let mixedArray = KeyValueSample(
        value: ["one", 2, 3.5, false, ["x"], ["k": "v"]] as [any Sendable],
        matches: { read in
            guard let read = read as? [Any], read.count == 6 else { return false }
            return read[0] as? String == "one" && read[1] as? Int == 2 && read[2] as? Double == 3.5
                && read[3] as? Bool == false && read[4] as? [String] == ["x"] && read[5] as? [String: String] == ["k": "v"]
        },
        description: "[Any] [\"one\", 2, 3.5, false, [\"x\"], [\"k\": \"v\"]]"
    )

    /// The values of each round-trip check.
    static let samples: [KeyValueStoreConformance.Check: [KeyValueSample]] = [
        .boolRoundTrip: [.typed(true), .typed(false)],
        .intRoundTrip: [.typed(0), .typed(-1), .typed(42), .typed(Int.min), .typed(Int.max)],
        .doubleRoundTrip: [.bitwise(0.1 + 0.2), .bitwise(-0.0), .bitwise(1e300), .bitwise(-2.5e-300), .bitwise(Double.pi)],
        .floatRoundTrip: [.bitwise(Float(1.1)), .bitwise(Float(-3.25)), .bitwise(Float.greatestFiniteMagnitude)],
        .stringRoundTrip: [.typed(""), .typed("plain"), .typed("Grüße, 世界 👋🏽"), .typed("quote \" backslash \\ newline \n tab \t")],
        .dataRoundTrip: [.typed(Data()), .typed(Data(0...255)), .typed(Data("{\"json\": true}".utf8))],
        .dateRoundTrip: [.typed(Date(timeIntervalSinceReferenceDate: 800_000_000.25)), .typed(Date(timeIntervalSince1970: 0))],
        .urlRoundTrip: [.typed(URL(string: "https://example.com/a%20b?q=1#top")!), .typed(URL(fileURLWithPath: "/tmp/some file.txt"))],
        .arrayRoundTrip: [.typed(["a", "b", "c"]), .typed([1, 2, 3]), .typed([[1, 2], [3]]), .typed([String]()), .mixedArray],
        .dictionaryRoundTrip: [.typed(["a": "x", "b": "y"]), .typed(["one": 1, "two": 2]), .typed([String: String]()), .mixedDictionary],
    ]

    /// A value read back, with its dynamic type, for messages.
    static func describe(_ value: Any?) -> String {
        guard let value else { return "nil" }
        return "\(type(of: value)) \(describeValue(value))"
    }

    private static func describeValue(_ value: Any) -> String {
        let text = switch value {
        case let string as String: "\"\(string)\""
        case let date as Date: "\(date) (\(date.timeIntervalSinceReferenceDate) s after 2001-01-01)"
        default: "\(value)"
        }
        return text.count > 80 ? text.prefix(77) + "…" : text
    }
}
