import AppStateKitCore
import Foundation

/// The bounds every read of a store file, its log or a FileState file keeps to, so a hostile
/// or damaged file can neither make the process allocate without limit nor overflow a thread's
/// stack while it is decoded (issue 42, item 9).
package enum ReadLimits {
    /// The largest store file, log or FileState file read by default: 64 MiB. A larger file is
    /// an error naming it and the limit; nothing is allocated for it beyond the limit.
    package static let defaultMaximumFileSize = 64 * 1024 * 1024

    /// The deepest nesting of arrays and objects a file may hold. Decoding recurses once per
    /// level, so this keeps a decode well inside a 512 KiB thread stack in a release build;
    /// AppStateKit's own files nest 3 levels plus the value's own.
    package static let maximumNestingDepth = 128

    /// Throws `corruptData` naming `path` when `json` nests arrays and objects deeper than
    /// ``maximumNestingDepth`` (a linear scan that skips strings, before any decoder recurses).
    package static func checkNesting(_ json: Data, path: String) throws {
        var depth = 0
        var inString = false
        var escaped = false
        for byte in json {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > maximumNestingDepth {
                    throw PersistenceError(
                        .corruptData, subject: path,
                        detail: "arrays and objects nest deeper than \(maximumNestingDepth) levels"
                    )
                }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
    }

    /// The error for a file of more than `limit` bytes.
    static func tooLarge(_ path: String, limit: Int) -> PersistenceError {
        PersistenceError(.ioFailure, errno: EFBIG, subject: path, detail: "the file is larger than the limit of \(limit) bytes; nothing past the limit was read")
    }
}
