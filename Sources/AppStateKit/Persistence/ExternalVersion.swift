/// What identifies the version of a value another process can change (equal versions: no
/// change), which change streams of stored and file states take on each poll to notice writes
/// that bypass this process's entries.
enum ExternalVersion: Equatable, Sendable {
    /// The stamp of a FileState's file; `nil` when there is no file.
    case file(FileStamp?)
    /// A StoredState's raw stored value; `nil` when nothing is stored (or it is not a
    /// property-list value, which AppStateKit never writes).
    case stored(PropertyListValue?)
    /// The store could not be read; the message says why.
    case unreadable(String)
}

/// An entry whose value another process can change: a stored or file state.
protocol ExternallyChangeable: RegistryEntry, Sendable {
    /// The current version; cheap (one `stat`, or one store lookup). A read after it sees at
    /// least this version.
    func externalVersion() -> ExternalVersion
}

extension FileStateEntry: ExternallyChangeable {
    /// The file's stamp (taking note of it, see ``stampFound(_:)``), or, with a file manager of
    /// the user's, the JSON of the value it reads.
    func externalVersion() -> ExternalVersion {
        do {
            let manager = fileManager
            guard let files = manager.localFiles else {
                return .stored(.data(try FileStateCodec.encode(try readThrough(manager), base64Encoded: false, path: filePath)))
            }
            let stamp = try files.existingStamp(ofFile: filePath)
            stampFound(stamp)
            return .file(stamp)
        } catch {
            return .unreadable("\(error)")
        }
    }
}

extension StoredStateEntry: ExternallyChangeable {
    func externalVersion() -> ExternalVersion {
        do {
            return .stored(try storedObject(in: activeStore).object.flatMap(PropertyListValue.init))
        } catch {
            return .unreadable("\(error)")
        }
    }
}
