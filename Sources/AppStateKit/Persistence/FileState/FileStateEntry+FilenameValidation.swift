/// The rule for FileState file names, checked once when the entry is made.
extension FileStateEntry {
    /// Why `filename` can't be used, or `nil`: it must be one path component.
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
        } else {
            nil
        }
        return problem.map { PersistenceError(.invalidFilename, subject: "FileState in \(directory)", detail: $0) }
    }
}
