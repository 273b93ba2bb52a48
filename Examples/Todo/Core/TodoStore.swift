import AppStateKit
import Foundation

/// Reads and changes the list through its FileState, failing clearly instead of guessing when
/// the file can't be read.
enum TodoStore {
    static func read() throws -> TodoList {
        let state = Application.fileState(\.todoList)
        do {
            let list = try state.read()
            Application.update(\.todoStatistics) { $0.itemsRead += list.items.count }
            return list
        } catch {
            throw TodoError.unreadableData(path: state.path, reason: reason(error))
        }
    }

    /// Runs `body` on the list and saves the result, holding the cross-process list lock.
    static func modify<Result>(_ body: (inout TodoList) throws -> Result) throws -> Result {
        let location = Application.state(\.todoLocation).value
        return try ListLock.withLock(for: location.path) {
            var list = try read()
            let result = try body(&list)
            do {
                try Application.fileState(\.todoList).write(list)
            } catch {
                throw TodoError.writeFailed(path: location.path, reason: reason(error))
            }
            Application.update(\.todoStatistics) { $0.itemsWritten += list.items.count }
            return result
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let persistence = error as? PersistenceError { return persistence.detail }
        return "\(error)"
    }
}
