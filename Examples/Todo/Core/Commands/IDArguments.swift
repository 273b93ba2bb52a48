/// Parses the `<id>…` arguments of `done` and `remove`.
enum IDArguments {
    static func parse(_ arguments: [String], command: String) throws -> [Int] {
        guard !arguments.isEmpty else { throw TodoError.missingArgument(command: command, argument: "at least one id") }
        return try arguments.map { argument in
            guard let id = Int(argument), id > 0 else {
                throw TodoError.invalidArgument("'\(argument)' is not a task id (ids are positive numbers)")
            }
            return id
        }
    }
}
