import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

/// Issue 46 items 2, 7: `appstatekit file` on FileState files, running the built binary.
@Suite("appstatekit file", .isolatedApplication)
struct FileToolTests {
    /// An editor script that runs `body` with the copy's path in `$1`.
    private func editor(_ sandbox: Sandbox, _ body: String) throws -> String {
        let script = sandbox.path("editor-\(UUID().uuidString).sh")
        try "#!/bin/sh\n\(body)\n".write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o700)
        return script
    }

    private func settingsFile(_ sandbox: Sandbox, base64: Bool) throws -> String {
        let path = sandbox.path("data/settings.json")
        try FileManager.default.createDirectory(atPath: sandbox.path("data"), withIntermediateDirectories: true)
        let json = #"{"mode":"light","size":12}"#
        try Data((base64 ? Data(json.utf8).base64EncodedString() : json).utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("an edit that is not JSON is refused: exit 1, the file byte for byte unchanged, nothing kept aside")
    func invalidEditRefused() throws {
        let sandbox = try Sandbox()
        let path = try settingsFile(sandbox, base64: false)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let script = try editor(sandbox, #"printf '{"mode": "dark",' > "$1""#)
        let result = try sandbox.run(["file", "edit", path], environment: ["EDITOR": script])
        #expect(result.status == 1)
        #expect(result.stderr.contains(path) && result.stderr.contains("unchanged"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + ".previous"))
        #expect(try sandbox.run(["file", "edit", path], environment: ["EDITOR": "false"]).status == 1, "an editor that fails changes nothing")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test("a valid edit replaces the file (keeping its encoding) and keeps the previous version at <path>.previous", arguments: [false, true])
    func validEdit(base64: Bool) throws {
        let sandbox = try Sandbox()
        let path = try settingsFile(sandbox, base64: base64)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let script = try editor(sandbox, #"sed 's/light/dark/' "$1" > "$1.new" && mv "$1.new" "$1""#)
        let result = try sandbox.run(["file", "edit", path, "--json"], environment: ["EDITOR": script])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try result.json()["previous"] as? String == path + ".previous")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path + ".previous")) == before)
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        let json = base64 ? try #require(Data(base64Encoded: after)) : after
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["mode"] as? String == "dark")
        #expect(object["size"] as? Int == 12)

        let show = try sandbox.run(["file", "show", path, "--json"])
        #expect(try show.json()["base64"] as? Bool == base64)
        #expect((try show.json()["value"] as? [String: Any])?["mode"] as? String == "dark")
    }

    @Test("editing through a symbolic link replaces the file it points to and keeps that file's previous version")
    func editThroughLink() throws {
        let sandbox = try Sandbox()
        let target = try settingsFile(sandbox, base64: false)
        let before = try Data(contentsOf: URL(fileURLWithPath: target))
        let link = sandbox.path("settings-link.json")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let script = try editor(sandbox, #"sed 's/light/dark/' "$1" > "$1.new" && mv "$1.new" "$1""#)
        let result = try sandbox.run(["file", "edit", link], environment: ["EDITOR": script])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: link + ".previous")) == before)
        #expect(try String(contentsOfFile: target, encoding: .utf8).contains("dark"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target, "the link is still a link")
    }

    @Test("check: 0 for JSON or base64 JSON, 2 naming the path for damage, 1 for no file")
    func check() throws {
        let sandbox = try Sandbox()
        let path = try settingsFile(sandbox, base64: true)
        #expect(try sandbox.run(["file", "check", path]).status == 0)
        try Data(#"{"mode": "#.utf8).write(to: URL(fileURLWithPath: path))
        let damaged = try sandbox.run(["file", "check", path])
        #expect(damaged.status == 2)
        #expect(damaged.stdout.contains(path))
        #expect(try sandbox.run(["file", "check", sandbox.path("none.json")]).status == 1)
        #expect(try sandbox.run(["file", "show", sandbox.path("none.json")]).stderr.contains("none.json"))
    }
}
