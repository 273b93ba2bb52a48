import AppStateKitCore
import Foundation

/// How ``Application/FileState`` reads the errors of a ``FileManaging`` of the user's.
enum FileManagerErrors {
    /// Whether `error` says there is no file: `CocoaError(.fileReadNoSuchFile)` or
    /// `.fileNoSuchFile`, `POSIXError(.ENOENT)`, an `NSError` in the POSIX domain with `ENOENT`,
    /// or the ``PersistenceError`` with `errno` `ENOENT` of the default `in`. Nothing else is.
    static func isAbsence(_ error: any Error) -> Bool {
        switch error {
        case let error as PersistenceError: return error.errno == ENOENT
        case let error as CocoaError: return error.code == .fileReadNoSuchFile || error.code == .fileNoSuchFile
        case let error as POSIXError: return error.code == .ENOENT
        default:
            let error = error as NSError
            return error.domain == NSPOSIXErrorDomain && error.code == Int(ENOENT)
        }
    }

    /// `error` as a ``PersistenceError`` naming `path`: as it is when it already is one; with its
    /// kind from the `errno` when it carries one (`EACCES` is `permissionDenied`); otherwise an
    /// `ioFailure` quoting it.
    static func naming(_ error: any Error, path: String) -> PersistenceError {
        if let error = error as? PersistenceError { return error }
        if let code = errno(of: error) {
            return PersistenceError(FileSystemError(code, "the file manager"), path: path)
        }
        return PersistenceError(.ioFailure, subject: path, detail: "the file manager failed: \(error)")
    }

    private static func errno(of error: any Error) -> Int32? {
        if let error = error as? POSIXError { return error.code.rawValue }
        if let error = error as? CocoaError, error.code == .fileReadNoPermission || error.code == .fileWriteNoPermission { return EACCES }
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return Int32(error.code) }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        return nil
    }
}
