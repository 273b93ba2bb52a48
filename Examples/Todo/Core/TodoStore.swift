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

    /// Runs `body` on the list and saves the result as one atomic step across processes
    /// (`FileState.update`: two `todo` runs at once never lose each other's changes).
    ///
    /// `body` may run more than once (when another process changed the list meanwhile), so it
    /// only computes the new list.
    static func modify<Result>(_ body: (inout TodoList) throws -> Result) throws -> Result {
        _ = try read()  // a list that can't be read fails as unreadable before anything is written
        let state = Application.fileState(\.todoList)
        var itemsWritten = 0
        let result: Result
        do {
            result = try state.update { list in
                let result = try body(&list)
                itemsWritten = list.items.count
                return result
            }
        } catch let error as PersistenceError {
            throw TodoError.writeFailed(path: state.path, reason: reason(error))
        }
        Application.update(\.todoStatistics) { $0.itemsWritten += itemsWritten }
        return result
    }

    private static func reason(_ error: any Error) -> String {
        if let persistence = error as? PersistenceError { return persistence.detail }
        return "\(error)"
    }
}
