import Foundation
import AppStateKit
import TodoCore

// One name for the data and settings folders, whatever the binary is called or linked as
// (~/.local/share/todo and ~/.config/todo); set before any StoredState or FileState is used.
Application.storageName = "todo"

exit(TodoCommand.run(arguments: Array(CommandLine.arguments.dropFirst())))
