import Foundation

/// How every persisted value becomes JSON and back, and the coders of the store file and its log.
///
/// JSON has no numbers for infinity or NaN, so a value holding one is written with them as the
/// strings ``positiveInfinity``, ``negativeInfinity`` and ``notANumber``. Those strings are also
/// ordinary text, so values are written as plain JSON whenever they hold no non-finite number,
/// and read as plain JSON first; only where that fails are the strings read as numbers. Writing
/// a value that holds a non-finite number checks that it reads back with as many non-finite
/// numbers of each kind, and fails instead of writing a value that would come back changed.
package enum JSONCoders {
    /// How `Double.infinity` is written.
    static let positiveInfinity = "Infinity"
    /// How `-Double.infinity` is written.
    static let negativeInfinity = "-Infinity"
    /// How `Double.nan` is written.
    static let notANumber = "NaN"

    /// `value` as JSON with `formatting`: plain JSON, or, where `value` holds infinity or NaN,
    /// JSON with those numbers as strings, once it is checked to read back unchanged.
    ///
    /// - Throws: The encoder's error, or an `EncodingError` when the value's non-finite numbers
    ///   would read back as text, or its text as numbers.
    package static func encode<Value: Encodable>(_ value: Value, formatting: JSONEncoder.OutputFormatting = []) throws -> Data {
        let plain = JSONEncoder()
        plain.outputFormatting = formatting
        if let data = try? plain.encode(value) { return data }
        // Failed on infinity or NaN, or the value's own `encode(to:)` threw (then so does this).
        let data = try encoder(formatting).encode(value)
        if let decodable = Value.self as? any Decodable.Type {
            try checkNonFiniteNumbersReadBack(value, as: decodable, from: data)
        }
        return data
    }

    /// The `Value` that `data` holds: read as plain JSON, or, where that fails, with the strings
    /// ``encode(_:formatting:)`` writes for non-finite numbers read as those numbers.
    ///
    /// - Throws: The decoding error of the second reading.
    package static func decode<Value: Decodable>(_ type: Value.Type, from data: Data) throws -> Value {
        if let value = try? JSONDecoder().decode(type, from: data) { return value }
        return try decoder().decode(type, from: data)
    }

    /// An encoder with `formatting` that writes non-finite numbers as `strings`: for the store
    /// file and its log, whose values say their own type, so the strings are never ambiguous.
    package static func encoder(
        _ formatting: JSONEncoder.OutputFormatting = [],
        strings: (positiveInfinity: String, negativeInfinity: String, nan: String) = (positiveInfinity, negativeInfinity, notANumber)
    ) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: strings.positiveInfinity, negativeInfinity: strings.negativeInfinity, nan: strings.nan
        )
        return encoder
    }

    /// A decoder that reads the strings ``encoder(_:)`` writes for non-finite numbers.
    package static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: positiveInfinity, negativeInfinity: negativeInfinity, nan: notANumber
        )
        return decoder
    }

    /// Throws unless `data`, the JSON of `value`, reads back (through ``decode(_:from:)``) with
    /// as many infinities, negative infinities and NaNs as `value` holds.
    ///
    /// Reading plain JSON first can only turn the strings into text (fewer non-finite numbers),
    /// reading the strings as numbers only text into numbers (more): equal counts mean nothing
    /// was turned into anything else, whatever order collections come back in.
    private static func checkNonFiniteNumbersReadBack<Value: Encodable, Readable: Decodable>(
        _ value: Value, as type: Readable.Type, from data: Data
    ) throws {
        // A value that doesn't read back at all is its type's own mismatch, reported when read.
        guard let readBack = (try? decode(Readable.self, from: data)) as? Value else { return }
        // Markers no text is expected to hold, so each counts one non-finite number.
        let markers = ["AppStateKit-positive-infinity-7e1f", "AppStateKit-negative-infinity-7e1f", "AppStateKit-nan-7e1f"]
        let counting = encoder(strings: (markers[0], markers[1], markers[2]))
        let written = try counting.encode(value)
        let read = try counting.encode(readBack)
        for marker in markers {
            let quoted = Data("\"\(marker)\"".utf8)
            guard written.ranges(of: quoted).count == read.ranges(of: quoted).count else {
                throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: """
                    it holds infinity or NaN, which JSON can only write as the strings \
                    "\(positiveInfinity)", "\(negativeInfinity)" and "\(notANumber)", and \(Value.self) would read them \
                    back as text, or its text as numbers; nothing was written
                    """))
            }
        }
    }
}
