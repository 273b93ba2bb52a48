import AppStateKit
import AppStateKitTesting
import Foundation
import Testing
@testable import TodoCore

/// Standard input holding `lines`.
private struct FixedInput: TodoInput {
    let lines: [String]
    func readLine() -> String? { lines.first }
}

@Suite("todo login", .isolatedApplication)
struct TodoLoginTests {
    let output = RecordingOutput()
    let files = InMemoryFileSystem()

    func run(_ arguments: String..., input: [String] = [], environment: [String: String] = [:]) -> Int32 {
        // The keychain todo's binary uses, over files in memory and the given environment.
        let keychain = Keychain(
            sources: [.credentialsDirectory(), .secretsDirectory(), .environment(), .fileStore(directory: "/home/me/.config/todo/secrets")],
            environment: environment, fileManager: files
        )
        return Application.withOverrides {
            $0.override(\.todoOutput, with: output)
            $0.override(\.todoInput, with: FixedInput(lines: input))
            $0.override(\.keychain, with: keychain)
        } operation: {
            TodoCommand.run(arguments: arguments, environment: [:])
        }
    }

    @Test func loginStatusLogout() {
        #expect(run("login", "--status") == 0)
        #expect(run("login", input: ["  t0k3n-123  "]) == 0)
        #expect(files.text(atPath: "/home/me/.config/todo/secrets/Todo.apiToken") == "t0k3n-123\n")
        #expect(files.permissions(atPath: "/home/me/.config/todo/secrets/Todo.apiToken") == 0o600)
        #expect(run("login", "--status") == 0)
        #expect(run("logout") == 0)
        #expect(!files.itemExists(atPath: "/home/me/.config/todo/secrets/Todo.apiToken"))
        #expect(output.standardOutput == [
            "not logged in",
            "logged in: the API token is saved in the secret store file /home/me/.config/todo/secrets/Todo.apiToken",
            "logged in: the API token comes from the secret store file /home/me/.config/todo/secrets/Todo.apiToken",
            "logged out",
        ])
        #expect(!(output.standardOutput + output.standardError).joined().contains("t0k3n"))
    }

    @Test func tokenFromTheEnvironmentIsNotShadowed() {
        let environment = ["TODO_API_TOKEN": "from-env"]
        #expect(run("login", "--status", environment: environment) == 0)
        #expect(run("login", input: ["other"], environment: environment) == 1)
        #expect(output.standardOutput == ["logged in: the API token comes from the environment variable TODO_API_TOKEN"])
        #expect(output.standardError == [
            "todo: provided by a read-only source for secret \"Todo.apiToken\" in the environment variable TODO_API_TOKEN: the value there is what every read returns, so it can't be written in the keychain's writable store; change it where it is provided",
        ])
        #expect(!files.itemExists(atPath: "/home/me/.config/todo/secrets/Todo.apiToken"))
    }

    @Test func emptyInputAndBadArguments() {
        #expect(run("login", input: []) == 2)
        #expect(run("login", "abc") == 2)
        #expect(output.standardError == [
            "todo: 'login' needs an API token on standard input (echo \"$TOKEN\" | todo login). Run 'todo help' for usage.",
            "todo: 'login' reads the token from standard input and takes only --status",
        ])
    }

    @Test func worldReadableTokenIsRefused() {
        #expect(run("login", input: ["t0k3n"]) == 0)
        files.setPermissions(0o644, atPath: "/home/me/.config/todo/secrets/Todo.apiToken")
        #expect(run("login", "--status") == 1)
        #expect(output.standardError.last?.hasPrefix("todo: insecure permissions for secret \"Todo.apiToken\"") == true)
    }
}

@Suite("todo login end to end")
struct TodoLoginEndToEndTests {
    static func todo(_ arguments: [String], home: String, input: String = "", environment: [String: String] = [:]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = TodoEndToEndTests.executable
        process.arguments = arguments
        process.environment = ["HOME": home, "PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        let standardInput = Pipe()
        let output = Pipe()
        let error = Pipe()
        process.standardInput = standardInput
        process.standardOutput = output
        process.standardError = error
        try process.run()
        standardInput.fileHandleForWriting.write(Data(input.utf8))
        try standardInput.fileHandleForWriting.close()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    @Test func loginKeepsTheTokenInAPrivateFile() throws {
        let home = NSTemporaryDirectory() + "todo-home-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: home) }
        let login = try Self.todo(["login"], home: home, input: "t0k3n-e2e\n")
        #expect(login.status == 0, "\(login.error)")
        let file = home + "/.config/todo/secrets/Todo.apiToken"
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "t0k3n-e2e\n")
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        #expect(try FileManager.default.attributesOfItem(atPath: home + "/.config/todo/secrets")[.posixPermissions] as? Int == 0o700)
        let status = try Self.todo(["login", "--status"], home: home)
        #expect(status.output == "logged in: the API token comes from the secret store file \(file)\n")
        let refused = try Self.todo(["login"], home: home, input: "other\n", environment: ["TODO_API_TOKEN": "env-token"])
        #expect(refused.status == 1)
        #expect(refused.error.contains("environment variable TODO_API_TOKEN"))
        #expect(!(login.output + status.output + refused.output + refused.error).contains("t0k3n"))
        #expect(try Self.todo(["logout"], home: home).status == 0)
        #expect(!FileManager.default.fileExists(atPath: file))
    }
}
