import AppStateKitCore
import Foundation

/// Short, user-readable explanations of Codable failures, instead of Foundation's nested dumps.
extension DecodingError {
    /// What went wrong and where, e.g. `expected String at pages[2], found a number`.
    var summary: String {
        switch self {
        case let .typeMismatch(type, context):
            "expected \(type)\(Self.location(context.codingPath))"
        case let .valueNotFound(type, context):
            "missing \(type) value\(Self.location(context.codingPath))"
        case let .keyNotFound(key, context):
            "missing key \"\(key.stringValue)\"\(Self.location(context.codingPath))"
        case let .dataCorrupted(context):
            "\(Self.trimmed(context.debugDescription))\(Self.location(context.codingPath))"
        @unknown default:
            "cannot decode"
        }
    }

    /// ` at a.b[2]`, or nothing for the top level.
    static func location(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text.isEmpty ? "" : " at \(text)"
    }

    /// Foundation's descriptions end with a period; messages here don't.
    private static func trimmed(_ text: String) -> String {
        var text = text
        while text.hasSuffix(".") { text.removeLast() }
        return text.prefix(1).lowercased() + text.dropFirst()
    }
}

extension EncodingError {
    /// What could not be encoded and where.
    var summary: String {
        switch self {
        case let .invalidValue(value, context):
            "cannot encode \(type(of: value))\(DecodingError.location(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            "cannot encode"
        }
    }
}

/// A one-line explanation of `error`: the summaries above for Codable errors, the parser's own
/// sentence for Foundation's (not the `Error Domain=… UserInfo={…}` dump), else its description.
package func shortDescription(of error: any Error) -> String {
    switch error {
    case let error as DecodingError: error.summary
    case let error as EncodingError: error.summary
    case let error as CocoaError: (error.userInfo[NSDebugDescriptionErrorKey] as? String) ?? error.localizedDescription
    default: "\(error)"
    }
}
