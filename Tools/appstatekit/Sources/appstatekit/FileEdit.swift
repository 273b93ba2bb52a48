import AppStateKit
import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `file edit PATH`: `$EDITOR` on a copy; the file is replaced atomically only by JSON that
/// decodes, the previous version kept at `<path>.previous`.
struct FileEdit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit", abstract: "Edit a FileState file safely with $EDITOR (vi when unset).",
        discussion: """
            The editor opens a pretty-printed copy in a private temporary directory. When it exits, the file is replaced \
            atomically (the library's writer: temporary file, fsync, rename) only if the copy decodes as JSON and the file \
            was not changed meanwhile; the previous version is kept at <path>.previous, and a base64-encoded file stays \
            base64-encoded. Otherwise nothing is written, the exit status is 1, and the edited copy's path is printed.
            """
    )

    @Argument(help: "The file.") var path: String
    @OptionGroup var output: OutputOptions

    func run() async throws {
        try await reportingFailures {
            try OwnerGuard.check(path, what: "the file")
            let original = try FileStateFile.read(path)
            let (directory, name) = FileStateFile.split(path)
            let workspace = try Self.privateDirectory()
            let copy = (workspace as NSString).appendingPathComponent(name.hasSuffix(".json") ? name : name + ".json")
            try Data(Output.prettyText(original.value).utf8).write(to: URL(fileURLWithPath: copy))
            let status = try Self.runEditor(on: copy)
            guard status == 0 else {
                throw ToolError("the editor exited with status \(status); \(path) is unchanged (the edited copy is at \(copy))")
            }
            let edited: JSONValue
            do {
                edited = try FileManager.default.in(path: workspace, filename: (copy as NSString).lastPathComponent)
            } catch {
                throw ToolError("the edit does not decode as JSON, so \(path) is unchanged (\(error)); the edited copy is at \(copy)")
            }
            guard edited != original.value else {
                try? FileManager.default.removeItem(atPath: workspace)
                report(changed: false, previous: nil)
                return
            }
            guard try FileStateFile.rawBytes(path) == original.bytes else {
                throw ToolError("\(path) changed while it was being edited, so the edit was not written; the edited copy is at \(copy)")
            }
            let previous = path + ".previous"
            try Self.keepAside(path, at: previous)
            try FileManager.default.out(edited, path: directory, filename: name, base64Encoded: original.base64)
            try? FileManager.default.removeItem(atPath: workspace)
            report(changed: true, previous: previous)
        }
    }

    private func report(changed: Bool, previous: String?) {
        if output.json {
            Output.printJSON(["path": .string(path), "changed": .bool(changed), "previous": previous.map(JSONValue.string) ?? .null])
        } else if let previous {
            Output.printLine("replaced \(path); the previous version is at \(previous)")
        } else {
            Output.printLine("no change; \(path) was not written")
        }
    }

    /// A new `0700` directory under `$TMPDIR`.
    static func privateDirectory() throws -> String {
        var template = Array((NSTemporaryDirectory() as NSString).appendingPathComponent("appstatekit-edit.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw ToolError("can't create a temporary directory in \(NSTemporaryDirectory()) (errno \(errno))") }
        return String(cString: made)
    }

    /// Runs `$EDITOR` (through the shell, so it may carry arguments), else `vi`, on `file`, with
    /// the terminal; returns its exit status.
    static func runEditor(on file: String) throws -> Int32 {
        let editor = ProcessInfo.processInfo.environment["VISUAL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ProcessInfo.processInfo.environment["EDITOR"].flatMap { $0.isEmpty ? nil : $0 } ?? "vi"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "\(editor) \"$1\"", "appstatekit-edit", file]
        do {
            try process.run()
        } catch {
            throw ToolError("can't start the editor \(editor): \(error.localizedDescription)")
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Makes `previous` the current version of `path`: a hard link to it (the atomic
    /// replacement then leaves it alone), or a copy where links are not possible.
    static func keepAside(_ path: String, at previous: String) throws {
        if unlink(previous) != 0, errno != ENOENT {
            throw ToolError("can't replace the previous version at \(previous) (errno \(errno)); \(path) is unchanged")
        }
        // The file a symbolic link points to (the writer replaces that file, not the link).
        if linkat(AT_FDCWD, path, AT_FDCWD, previous, AT_SYMLINK_FOLLOW) == 0 { return }
        do {
            try FileManager.default.copyItem(atPath: URL(fileURLWithPath: path).resolvingSymlinksInPath().path, toPath: previous)
        } catch {
            throw ToolError("can't keep the previous version at \(previous): \(error.localizedDescription); \(path) is unchanged")
        }
    }
}
