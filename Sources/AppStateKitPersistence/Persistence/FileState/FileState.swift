import AppStateKitCore
/// Reads and writes an ``Application/FileState`` as if it were a stored property: ``AppState``
/// under AppState's name for it.
///
/// ```swift
/// struct TaskList {
///     @FileState(\.tasks) var tasks
///     func add(_ title: String) { tasks.append(TodoItem(title: title)) }   // written atomically
/// }
/// ```
public typealias FileState<Value: Codable & Sendable> = AppState<Value, Application.FileState<Value>>
