/// Reads and writes a ``Application/FileState`` as if it were a stored property.
///
/// ```swift
/// struct TaskList {
///     @FileState(\.tasks) var tasks
///     func add(_ title: String) { tasks.append(TodoItem(title: title)) }   // written atomically
/// }
/// ```
@propertyWrapper
public struct FileState<Value: Codable & Sendable>: Sendable {
    /// The declaring property, evaluated on the current application at each access.
    private let declaration: WrappedDeclaration<Application.FileState<Value>>

    /// Creates the wrapper for the file state at `keyPath`.
    ///
    /// A key-path literal (`@FileState(\.settings)`) selects the initializer that takes a
    /// function instead, which reads faster; this one serves key paths held in variables.
    @_disfavoredOverload
    public init(_ keyPath: KeyPath<Application, Application.FileState<Value>>) {
        self.declaration = WrappedDeclaration(keyPath)
    }

    /// Creates the wrapper from the declaring property as a function.
    ///
    /// This is what `@FileState(\.settings)` calls: Swift turns the key-path literal into a function
    /// that calls the `settings` property directly.
    @_documentation(visibility: private)
    public init(_ declaration: @escaping @Sendable (Application) -> Application.FileState<Value>) {
        self.declaration = WrappedDeclaration(declaration)
    }

    /// The file's value; setting it writes the file.
    ///
    /// A mutation in place (`count += 1`, `items.append(item)`) reads, mutates and writes as one
    /// step in this process: see ``Application/FileState/value``.
    public var wrappedValue: Value {
        get { declaration.value }
        nonmutating set { declaration.value = newValue }
        nonmutating _modify { yield &declaration.value }
    }
}
