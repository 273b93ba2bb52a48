import Foundation

/// A ``FileManaging`` that maps every absolute path into a private root directory, so file
/// states in an isolated application never read or write the user's files.
///
/// `/home/me/.local/share/tool/list.json` becomes `<root>/home/me/.local/share/tool/list.json`.
struct SandboxFileManager: FileManaging {
    let root: String

    func mapped(_ path: String) -> String {
        let absolute = path.hasPrefix("/") ? path : "/" + path
        return root + absolute
    }

    func removeItem(atPath path: String) throws {
        try FileManager.default.removeItem(atPath: mapped(path))
    }

    func contents(ofFile path: String) throws -> Data? {
        try AtomicFileWriter.read(mapped(path))
    }

    func writeAtomically(_ data: Data, toFile path: String) throws {
        try AtomicFileWriter.write(data, to: mapped(path))
    }

    func stamp(ofFile path: String) -> FileStamp? {
        FileStamp.of(path: mapped(path))
    }

    func existingStamp(ofFile path: String) throws -> FileStamp? {
        try FileStamp.ofExistingFile(atPath: mapped(path))
    }

    func moveAside(_ path: String) throws -> String {
        try AtomicFileWriter.moveAside(mapped(path))
    }

    func removeFile(_ path: String) throws {
        try FileManager.default.removeFile(mapped(path))
    }
}
