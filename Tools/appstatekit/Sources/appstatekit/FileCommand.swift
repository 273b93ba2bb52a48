import AppStateKit
import ArgumentParser
import Foundation

/// `appstatekit file`: a FileState file (JSON, or AppState's base64-encoded JSON).
struct FileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "file",
        abstract: "See, check and safely edit a FileState file (JSON or base64-encoded JSON).",
        subcommands: [FileShow.self, FileCheck.self, FileEdit.self]
    )
}

/// Reading a FileState file the way the library does (its size limit, nesting limit, both
/// encodings).
enum FileStateFile {
    /// The file's value and whether it is stored base64-encoded.
    static func read(_ path: String) throws -> (value: JSONValue, base64: Bool, bytes: Data) {
        let (directory, name) = split(path)
        let value: JSONValue = try FileManager.default.in(path: directory, filename: name)
        let bytes = try rawBytes(path)
        return (value, (try? JSONValue.parse(bytes)) == nil, bytes)
    }

    /// The file's bytes, refusing one over `FileManager.maximumFileStateSize`.
    static func rawBytes(_ path: String) throws -> Data {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw ToolError("can't open \(path): \(error.localizedDescription)")
        }
        defer { try? handle.close() }
        let limit = FileManager.maximumFileStateSize
        let data = try handle.read(upToCount: limit + 1) ?? Data()
        if data.count > limit { throw ToolError("\(path) is larger than the FileState limit of \(limit) bytes") }
        return data
    }

    static func split(_ path: String) -> (directory: String, name: String) {
        let url = URL(fileURLWithPath: path)
        return (url.deletingLastPathComponent().path, url.lastPathComponent)
    }
}

/// `file show PATH`.
struct FileShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Print a FileState file's value as pretty JSON (decoding base64).")

    @Argument(help: "The file.") var path: String
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reportingFailures {
            let file = try FileStateFile.read(path)
            if output.json {
                Output.printJSON(["path": .string(path), "base64": .bool(file.base64), "value": file.value])
            } else {
                FileHandle.standardOutput.write(Data(Output.prettyText(file.value).utf8))
            }
        }
    }
}

/// `file check PATH`: exit status 2 when the file does not decode.
struct FileCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check", abstract: "Check that a FileState file decodes as JSON.",
        discussion: "Exit status 2 when it does not (the problem is printed), 1 when it can't be read at all."
    )

    @Argument(help: "The file.") var path: String
    @OptionGroup var output: OutputOptions

    func run() async throws {
        var problem: String?
        var base64 = false
        try await reportingFailures {
            do {
                base64 = try FileStateFile.read(path).base64
            } catch let error as PersistenceError where error.kind == .corruptData {
                problem = error.description
            }
        }
        if output.json {
            Output.printJSON(["path": .string(path), "ok": .bool(problem == nil), "base64": .bool(base64), "problem": problem.map(JSONValue.string) ?? .null])
        } else {
            Output.printLine(problem ?? "\(path): decodes as JSON\(base64 ? " (base64-encoded)" : "")")
        }
        if problem != nil { throw ToolExit.problemsFound }
    }
}
