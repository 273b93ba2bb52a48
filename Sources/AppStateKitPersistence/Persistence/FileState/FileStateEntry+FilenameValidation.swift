import AppStateKitCore
import Foundation

/// The rule for FileState file names, checked once when the entry is made.
extension FileStateEntry {
    /// Why `filename` can't be used, or `nil`: it must be one path component, and not a name
    /// AppStateKit gives the files it keeps beside a FileState's file.
    static func validate(filename: String, directory: String) -> PersistenceError? {
        let component = "a file name must be a single path component"
        let problem: String? = if filename.isEmpty {
            "the file name is empty; \(component)"
        } else if filename == "." || filename == ".." {
            "\"\(filename)\" is not a file name; \(component)"
        } else if filename.contains("/") {
            "\"\(filename)\" contains \"/\"; pass directories in `path:`; \(component)"
        } else if filename.utf8.contains(0) {
            "the file name contains a NUL byte; \(component)"
        } else if filename.utf8.count > AtomicFileWriter.maximumNameLength {
            "the file name is \(filename.utf8.count) bytes long; the limit is \(AtomicFileWriter.maximumNameLength)"
        } else if filename.hasSuffix(".lock") {
            // Writers of the FileState named without the suffix would move its first bytes
            // (the shared generation counter lives there) and lock it.
            "\"\(filename)\" ends in \".lock\", the name of the lock file kept beside each FileState's file "
                + "(\"\(filename.dropLast(5))\" keeps its lock in \"\(filename)\"); choose another name"
        } else if AtomicFileWriter.isTemporaryName(filename) {
            // The first write to the FileState named before ".tmp-" would remove it once the
            // process whose id it names is gone.
            "\"\(filename)\" has the shape of the temporary files FileState writes before renaming "
                + "(\"<filename>.tmp-<pid>-<n>\"), which are removed when their process is gone; choose another name"
        } else {
            nil
        }
        return problem.map { PersistenceError(.invalidFilename, subject: "FileState in \(directory)", detail: $0) }
    }
}
