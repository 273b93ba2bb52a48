import AppStateKitCore
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
        /// The kind in a few words, as messages show it: `permission denied`, `disk full`,
        /// `I/O error`, ….
        public let description: String

        private init(_ description: String) {
            self.description = description
        }

        /// The file or directory may not be read or written (`EACCES`, `EPERM`).
        public static let permissionDenied = Kind("permission denied")
        /// The file system is read-only (`EROFS`).
        public static let readOnlyFileSystem = Kind("read-only file system")
        /// No space left on the device (`ENOSPC`, `EDQUOT`).
        public static let diskFull = Kind("disk full")
        /// The stored bytes are not in the expected format.
        public static let corruptData = Kind("corrupt data")
        /// A value is stored, but not of the type the state declares.
        public static let typeMismatch = Kind("type mismatch")
        /// The value cannot be encoded for storage.
        public static let encodingFailed = Kind("cannot encode value")
        /// A file name that is not a single path component, or longer than 255 bytes.
        public static let invalidFilename = Kind("invalid file name")
        /// Any other I/O failure; ``PersistenceError/errno`` holds its `errno`.
        public static let ioFailure = Kind("I/O error")
    }
}
