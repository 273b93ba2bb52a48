#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The source location of the `state(initial:)`/`dependency(_:)` call that declares an entry
/// without an explicit `id:`.
///
/// Equality and hashing use integers and the static file-name bytes only; no `String` is built
/// on the access path. ``readable`` produces the text form for descriptions, logs and errors.
@usableFromInline
struct CallSite: Hashable, Sendable {
    @usableFromInline let fileID: StaticString
    @usableFromInline let function: StaticString
    @usableFromInline let line: Int
    @usableFromInline let column: Int

    @inlinable
    init(fileID: StaticString, function: StaticString, line: Int, column: Int) {
        self.fileID = fileID
        self.function = function
        self.line = line
        self.column = column
    }

    @inlinable
    static func == (lhs: CallSite, rhs: CallSite) -> Bool {
        guard lhs.line == rhs.line, lhs.column == rhs.column else { return false }
        return lhs.fileID.sameText(as: rhs.fileID) && lhs.function.sameText(as: rhs.function)
    }

    @inlinable
    func hash(into hasher: inout Hasher) {
        hasher.combine(mixedBits)
    }

    /// The integer parts mixed into one word; equal sites give equal bits.
    @inlinable
    var mixedBits: Int {
        line &* 1_000_003 &+ column &* 8191 &+ fileID.utf8CodeUnitCount
    }

    /// `Module/File.swift:12:9 (counter)`.
    var readable: String {
        "\(fileID.description):\(line):\(column) (\(function.description))"
    }
}

extension StaticString {
    /// Compares the bytes of two static strings, short-cutting when they share storage.
    @inlinable
    func sameText(as other: StaticString) -> Bool {
        let count = utf8CodeUnitCount
        guard count == other.utf8CodeUnitCount else { return false }
        guard hasPointerRepresentation, other.hasPointerRepresentation else {
            return description == other.description
        }
        if utf8Start == other.utf8Start { return true }
        return memcmp(utf8Start, other.utf8Start, count) == 0
    }
}
