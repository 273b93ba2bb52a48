import AppStateKitCore
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
    /// The handle acts on the application it was taken from — used after an isolation scope
    /// ended, or inside another one, it still reads and writes that application's files.
    ///
    /// The file is `<path>/<filename>`; writes replace it atomically (files `0600`, directories
    /// `0700`). A corrupt file reads as the initial value, is reported through the logger, and
    /// is moved aside to a `.corrupt-<time>` sibling by the next write instead of being
    /// overwritten. ``read()`` and ``write(_:)`` throw instead.
    public struct FileState<Value: Codable & Sendable>: MutableApplicationState, Sendable {
        @usableFromInline let entry: FileStateEntry<Value>
        @usableFromInline let application: KeepAlive

        @inlinable
        init(entry: FileStateEntry<Value>, application: Application) {
            self.entry = entry
            self.application = KeepAlive(application)
        }

        /// The file's value, or the initial value when there is no (usable) file. Setting it
        /// writes the file; for an optional, `nil` deletes it.
        ///
        /// A mutation in place (`tasks.value.append(item)`) reads, mutates and writes as one step
        /// in this process, holding the entry's lock throughout; it must not touch the same entry.
        public var value: Value {
            get { entry.handleValue }
            set { entry.handleValue = newValue }
            _modify { yield &entry.handleValue }
        }

        /// Deletes the file, so reads return the initial value; a failure is reported through
        /// the logger (``resetDurably()`` throws it). The entry stays in the application:
        /// ``Application/remove(state:)`` drops the in-memory entry and keeps the file.
        public func reset() {
            entry.resetReportingFailure()
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

        /// Reads, changes and writes the file as one atomic step, throwing instead of reporting
        /// (see `Application.update(_:_:)`; `body` may run more than once).
        ///
        /// - Throws: `body`'s error, or ``PersistenceError`` when the file can't be read,
        ///   decoded or written (the file is then unchanged).
        @discardableResult
        public func update<Result>(_ body: (inout Value) throws -> Result) throws -> Result {
            try entry.updateThrowing(body)
        }

        /// Reads, changes and writes the file as one atomic step, reporting failures through the
        /// logger; the same as `Application.update(_:_:)`.
        @discardableResult
        public mutating func modify<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
            try entry.updateReportingFailure(body)
        }

        /// The file's full path, as declared. (An isolated application keeps the file at this
        /// path inside its temporary directory; ``Application/description`` shows that path.)
        public var path: String { entry.filePath }
    }

    /// Declares a value persisted in the file `path/filename`.
    ///
    /// `filename` must be a single path component: an empty name, `.`, `..`, or a name with
    /// `/` or NUL is refused — reads return the initial value and report the problem, and
    /// ``FileState/read()``/``FileState/write(_:)`` throw — and nothing outside `path` is
    /// touched. `isBase64Encoded: false` writes human-readable JSON.
    @inlinable
    public func fileState<Value: Codable & Sendable>(
        initial: @escaping @autoclosure () -> Value,
        path: String = FileManager.defaultFileStatePath,
        filename: String,
        isBase64Encoded: Bool = true
    ) -> FileState<Value> {
        let entry = registry.entry(for: EntryKey(kind: .fileState, valueType: Value.self, feature: path, id: filename), as: FileStateEntry<Value>.self) {
            makeFileStateEntry(key: $0, path: path, filename: filename, isBase64Encoded: isBase64Encoded, initial: initial())
        }
        return FileState(entry: entry, application: self)
    }

    /// Creates the entry behind ``fileState(initial:path:filename:isBase64Encoded:)`` on first access.
    @usableFromInline
    func makeFileStateEntry<Value: Codable & Sendable>(
        key: EntryKey, path: String, filename: String, isBase64Encoded: Bool, initial: Value
    ) -> any RegistryEntry {
        Application.announcingCreation(
            FileStateEntry(
                key: key, directory: path, filename: filename, isBase64Encoded: isBase64Encoded, initial: initial, owner: EntryOwner(self)
            )
        )
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
    @inlinable @inline(__always)
    public static func fileState<Value: Codable & Sendable>(
        _ keyPath: KeyPath<Application, FileState<Value>>
    ) -> FileState<Value> {
        withCurrent { $0[keyPath: keyPath] }
    }

    /// Deletes a file state's file, so it reads as its initial value again.
    public static func reset<Value: Codable & Sendable>(fileState keyPath: KeyPath<Application, FileState<Value>>) {
        current[keyPath: keyPath].reset()
    }

    /// The file operations ``FileState`` performs. `FileManager.default` unless replaced.
    public var fileManager: Dependency<any FileManaging> {
        dependency(UnisolatedPersistenceNotice.noted(FileManager.default), feature: Self.fileManagerName.feature, id: Self.fileManagerName.id)
    }

    /// The name of the `\.fileManager` dependency (an isolated application creates it with its
    /// sandbox).
    package static let fileManagerName = (feature: "AppStateKit", id: "fileManager")
}

extension Application.FileState: EntryBacked {
    package var registryEntry: any RegistryEntry { entry }
}
