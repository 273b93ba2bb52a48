import AppStateKit
import Foundation

/// `todo login`, `todo login --status` and `todo logout`: keep an optional API token in the
/// `\.keychain` (by default `~/.config/todo/secrets/Todo.apiToken`, mode 0600), or take it from
/// `TODO_API_TOKEN`, `$CREDENTIALS_DIRECTORY/Todo.apiToken` or `/run/secrets/Todo.apiToken`.
/// The token is never printed.
enum LoginCommand {
    /// `todo login` reads the token from standard input; `todo login --status` says whether one
    /// is set and where it comes from.
    static func login(_ arguments: [String]) throws {
        let output = Application.dependency(\.todoOutput)
        let token = Application.secureState(\.todoAPIToken)
        if arguments == ["--status"] {
            guard let origin = try secret({ try token.origin() }) else {
                output.print("not logged in")
                return
            }
            output.print("logged in: the API token comes from \(origin)")
            return
        }
        guard arguments.isEmpty else {
            throw TodoError.invalidArgument("'login' reads the token from standard input and takes only --status")
        }
        let line = Application.dependency(\.todoInput).readLine()?.trimmingCharacters(in: .whitespaces) ?? ""
        guard !line.isEmpty else {
            throw TodoError.missingArgument(command: "login", argument: "an API token on standard input (echo \"$TOKEN\" | todo login)")
        }
        try secret { try token.write(line) }
        let origin = try secret { try token.origin() } ?? "the keychain"
        output.print("logged in: the API token is saved in \(origin)")
    }

    /// `todo logout` removes the saved token.
    static func logout(_ arguments: [String]) throws {
        guard arguments.isEmpty else { throw TodoError.invalidArgument("'logout' takes no arguments") }
        let token = Application.secureState(\.todoAPIToken)
        try secret { try token.write(nil) }
        Application.dependency(\.todoOutput).print("logged out")
    }

    /// `body`'s result, a ``SecureStateError`` it throws turned into a ``TodoError``.
    private static func secret<Result>(_ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as SecureStateError {
            throw TodoError.secret(error.description)
        }
    }
}
