/// Reads and writes a ``Application/FileState`` as if it were a stored property.
///
/// ```swift
/// struct TaskList {
///     @FileState(\.tasks) var tasks
///     func add(_ title: String) { tasks.append(TodoItem(title: title)) }   // written atomically
/// }
/// ```
@propertyWrapper
public struct FileState<Value: Codable & Sendable>: @unchecked Sendable {
    // Safe: the only stored property is an immutable key path.
    private let keyPath: KeyPath<Application, Application.FileState<Value>>

    /// Creates the wrapper for the file state at `keyPath`.
    public init(_ keyPath: KeyPath<Application, Application.FileState<Value>>) {
        self.keyPath = keyPath
    }

    /// The file's value; setting it writes the file.
    public var wrappedValue: Value {
        get { Application.fileState(keyPath).value }
        nonmutating set {
            var state = Application.fileState(keyPath)
            state.value = newValue
        }
    }
}
