import AppStateKitCore
/// The versions of stored and file states that Core's ``ExternalVersion`` wraps.
private enum PersistedVersion: Equatable, Sendable {
    /// The stamp of a FileState's file; `nil` when there is no file.
    case file(FileStamp?)
    /// A StoredState's raw stored value; `nil` when nothing is stored (or it is not a
    /// property-list value, which AppStateKit never writes).
    case stored(PropertyListValue?)
    /// The store could not be read; the message says why.
    case unreadable(String)
}

extension ExternalVersion {
    static func file(_ stamp: FileStamp?) -> ExternalVersion { ExternalVersion(PersistedVersion.file(stamp)) }
    static func stored(_ value: PropertyListValue?) -> ExternalVersion { ExternalVersion(PersistedVersion.stored(value)) }
    static func unreadable(_ message: String) -> ExternalVersion { ExternalVersion(PersistedVersion.unreadable(message)) }
}

extension FileStateEntry: ExternallyChangeable {
    /// The file's stamp (taking note of it, see ``stampFound(_:)``), or, with a file manager of
    /// the user's, the JSON of the value it reads.
    package func externalVersion() -> ExternalVersion {
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
    package func externalVersion() -> ExternalVersion {
        do {
            return .stored(try storedObject(in: activeStore).object.flatMap(PropertyListValue.init))
        } catch {
            return .unreadable("\(error)")
        }
    }
}
