import Foundation

/// The JSON encoders and decoders every persisted value goes through (StoredState's store file
/// and its log, JSON-encoded stored values, FileState files, SyncState records).
///
/// JSON has no numbers for infinity or NaN, and a plain `JSONEncoder` refuses them, so a
/// `Double` that a property list (`UserDefaults`) stores without trouble could not be persisted.
/// These coders write a non-finite `Double` or `Float` as one of the strings ``positiveInfinity``,
/// ``negativeInfinity`` and ``notANumber``, and read those strings back as the number wherever a
/// floating-point value is expected. Finite numbers are written as before, and a `String` that
/// happens to read `"NaN"` stays a string: the strings are only interpreted where the type asks
/// for a number.
enum JSONCoders {
    /// How `Double.infinity` is written.
    static let positiveInfinity = "Infinity"
    /// How `-Double.infinity` is written.
    static let negativeInfinity = "-Infinity"
    /// How `Double.nan` is written.
    static let notANumber = "NaN"

    /// An encoder with `formatting` that writes non-finite numbers as strings.
    static func encoder(_ formatting: JSONEncoder.OutputFormatting = []) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: positiveInfinity, negativeInfinity: negativeInfinity, nan: notANumber
        )
        return encoder
    }

    /// A decoder that reads the strings ``encoder(_:)`` writes for non-finite numbers.
    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: positiveInfinity, negativeInfinity: negativeInfinity, nan: notANumber
        )
        return decoder
    }
}
