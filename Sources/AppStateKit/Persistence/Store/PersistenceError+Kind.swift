extension PersistenceError {
    /// What kind of failure it was: one of the static members below.
    ///
    /// New kinds may be added in later versions without breaking your code, so a `switch` over
    /// kinds needs a `default` (compare with `==` or match `case .diskFull:` as usual). Two
    /// kinds are equal when they are the same member; an ``ioFailure`` keeps its `errno` in
    /// ``PersistenceError/errno``, not in the kind.
    ///
    /// ```swift
    /// switch error.kind {
    /// case .diskFull, .readOnlyFileSystem: print("free some space or remount, then retry")
    /// case .corruptData: print("the data was kept; fix or remove \(error.subject)")
    /// default: print(error)
    /// }
    /// ```
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private enum Code: Hashable, Sendable {
            case permissionDenied
            case readOnlyFileSystem
            case diskFull
            case corruptData
            case typeMismatch
            case encodingFailed
            case invalidFilename
            case ioFailure
        }

        private let code: Code

        private init(_ code: Code) {
            self.code = code
        }

        /// The file or directory may not be read or written (`EACCES`, `EPERM`).
        public static let permissionDenied = Kind(.permissionDenied)
        /// The file system is read-only (`EROFS`).
        public static let readOnlyFileSystem = Kind(.readOnlyFileSystem)
        /// No space left on the device (`ENOSPC`, `EDQUOT`).
        public static let diskFull = Kind(.diskFull)
        /// The stored bytes are not in the expected format.
        public static let corruptData = Kind(.corruptData)
        /// A value is stored, but not of the type the state declares.
        public static let typeMismatch = Kind(.typeMismatch)
        /// The value cannot be encoded for storage.
        public static let encodingFailed = Kind(.encodingFailed)
        /// A file name that is not a single path component, or longer than 255 bytes.
        public static let invalidFilename = Kind(.invalidFilename)
        /// Any other I/O failure; ``PersistenceError/errno`` holds its `errno`.
        public static let ioFailure = Kind(.ioFailure)

        /// The kind in a few words, as messages show it: `permission denied`, `disk full`,
        /// `I/O error`, ….
        public var description: String {
            switch code {
            case .permissionDenied: "permission denied"
            case .readOnlyFileSystem: "read-only file system"
            case .diskFull: "disk full"
            case .corruptData: "corrupt data"
            case .typeMismatch: "type mismatch"
            case .encodingFailed: "cannot encode value"
            case .invalidFilename: "invalid file name"
            case .ioFailure: "I/O error"
            }
        }
    }
}
