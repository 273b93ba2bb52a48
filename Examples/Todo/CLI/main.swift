import Foundation
import TodoCore

exit(TodoCommand.run(arguments: Array(CommandLine.arguments.dropFirst())))
