import AppStateKitCore
import Foundation

/// A ``FileStateEntry`` with a file manager of the user's (without ``FileManaging/localFiles``):
/// every read goes through its `in`, every write through `out` or `delete`, nothing is kept,
/// and its errors surface naming the path (absence alone reads as no file).
extension FileStateEntry {
    /// The value `in` reads, or the initial value when it says there is no file.
    func readThrough(_ manager: any FileManaging) throws -> Value {
        do {
            return try manager.in(path: directory, filename: filename)
        } catch {
            if FileManagerErrors.isAbsence(error) { return initial }
            throw FileManagerErrors.naming(error, path: filePath)
        }
    }

    /// Writes `newValue` with `out`, or `delete` for `nil` (or an optional holding `nil`).
    func writeThrough(_ manager: any FileManaging, _ newValue: Value?) throws {
        do {
            if let newValue, !isNilOptional(newValue) {
                try manager.out(newValue, path: directory, filename: filename, base64Encoded: isBase64Encoded)
            } else {
                try manager.delete(path: directory, filename: filename)
            }
        } catch {
            throw FileManagerErrors.naming(error, path: filePath)
        }
    }

    /// ``update(_:storeFailure:)`` with a file manager of the user's: reads, runs `body` and
    /// writes holding ``modification`` (a value it can't read is not replaced); failures go to
    /// `storeFailure` after it is released.
    func updateThrough<Result>(
        _ manager: any FileManaging, _ body: (inout Value) throws -> Result, storeFailure: (any Error) throws -> Void
    ) rethrows -> Result {
        var problem: (any Error)?
        let result = try notifyingObservers {
            try modification.withLock(self) {
                var value = initial
                do {
                    if let filenameProblem { throw filenameProblem }
                    value = try readThrough(manager)
                } catch {
                    problem = changeNotWritten(error)
                    return try body(&value)
                }
                let result = try body(&value)
                do {
                    try writeThrough(manager, value)
                } catch {
                    problem = error
                }
                return result
            }
        }
        if let problem { try storeFailure(problem) }
        return result
    }
}
