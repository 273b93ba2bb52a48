import Foundation

extension Application {
    /// A handle to a larger `Codable` value persisted in its own file.
    ///
    /// ```swift
    /// extension Application {
    ///     var tasks: FileState<[TodoItem]> {
    ///         fileState(initial: [], filename: "tasks.json", isBase64Encoded: false)
    ///     }
    /// }
    ///
    /// var tasks = Application.fileState(\.tasks)
    /// tasks.value.append(TodoItem(title: "Ship it"))   // written atomically before returning
    /// ```
    ///
    /// The file is `<path>/<filename>`; writes replace it atomically (files `0600`, directories
    /// `0700`). A corrupt file reads as the initial value, is reported through the logger, and
    /// is moved aside to a `.corrupt-<time>` sibling by the next write instead of being
    /// overwritten. ``read()`` and ``write(_:)`` throw instead.
    public struct FileState<Value: Codable & Sendable>: MutableApplicationState, Sendable {
        let entry: FileStateEntry<Value>

        init(entry: FileStateEntry<Value>) {
            self.entry = entry
        }

        /// The file's value, or the initial value when there is no (usable) file. Setting it
        /// writes the file; for an optional, `nil` deletes it.
        ///
        /// A mutation in place (`tasks.value.append(item)`) reads, mutates and writes as one step
        /// in this process, holding the entry's lock throughout; it must not touch the same entry.
        public var value: Value {
            get { entry.valueOutsideModification }
            set { entry.assign(newValue) }
            _modify {
                let inPlace = entry.inPlace
                yield &inPlace.value
            }
        }

        /// Deletes the file, so reads return the initial value.
        public func reset() {
            do {
                try entry.remove()
            } catch {
                entry.report(error)
            }
        }

        /// Reads the file, throwing instead of falling back to the initial value.
        ///
        /// - Throws: ``PersistenceError`` (`corruptData`, `permissionDenied`, `invalidFilename`, …).
        public func read() throws -> Value {
            try entry.read()
        }

        /// Writes `newValue` atomically, throwing when it can't be written.
        ///
        /// - Throws: ``PersistenceError`` (`permissionDenied`, `readOnlyFileSystem`, `diskFull`,
        ///   `invalidFilename`, `encodingFailed`, …); the file is then unchanged.
        public func write(_ newValue: Value) throws {
            try entry.write(newValue)
        }

        /// The file's full path.
        public var path: String { entry.filePath }
    }

    /// Declares a value persisted in the file `path/filename`.
    ///
    /// `filename` must be a single path component: an empty name, `.`, `..`, or a name with
    /// `/` or NUL is refused — reads return the initial value and report the problem, and
    /// ``FileState/read()``/``FileState/write(_:)`` throw — and nothing outside `path` is
    /// touched. `isBase64Encoded: false` writes human-readable JSON.
    public func fileState<Value: Codable & Sendable>(
        initial: @escaping @autoclosure () -> Value,
        path: String = FileManager.defaultFileStatePath,
        filename: String,
        isBase64Encoded: Bool = true
    ) -> FileState<Value> {
        let key = EntryKey(
            kind: .fileState,
            valueType: Value.self,
            name: EntryName(feature: path, id: filename)
        )
        let entry = registry.entry(for: key) {
            Application.announcingCreation(
                FileStateEntry(key: key, directory: path, filename: filename, isBase64Encoded: isBase64Encoded, initial: initial())
            )
        }
        return FileState(entry: entry)
    }

    /// Declares an optional value persisted in `path/filename`: `nil` while there is no file;
    /// assigning `nil` deletes the file.
    public func fileState<Value: Codable & Sendable>(
        path: String = FileManager.defaultFileStatePath,
        filename: String,
        isBase64Encoded: Bool = true
    ) -> FileState<Value?> {
        fileState(initial: nil, path: path, filename: filename, isBase64Encoded: isBase64Encoded)
    }

    /// Returns the handle of a file state.
    public static func fileState<Value: Codable & Sendable>(
        _ keyPath: KeyPath<Application, FileState<Value>>
    ) -> FileState<Value> {
        current[keyPath: keyPath]
    }

    /// Deletes a file state's file, so it reads as its initial value again.
    public static func reset<Value: Codable & Sendable>(fileState keyPath: KeyPath<Application, FileState<Value>>) {
        current[keyPath: keyPath].reset()
    }

    /// The file operations ``FileState`` performs. `FileManager.default` unless replaced.
    public var fileManager: Dependency<any FileManaging> {
        dependency(FileManager.default, feature: "AppStateKit", id: "fileManager")
    }
}
