/// Reads and writes a state, stored state, file state, sync state or secure state as if it were a
/// stored property.
///
/// ```swift
/// struct Greeter {
///     @AppState(\.username) var username
///     func greet() -> String { "Hello, \(username)" }
///     func rename(_ name: String) { username = name }   // writes the shared entry
/// }
/// ```
///
/// Each access evaluates the key path on the application serving the calling task, so the wrapper
/// follows promotions, isolation scopes and resets. Usable in structs, classes and actors, from any
/// thread. ``StoredState``, ``FileState``, ``SyncState`` and ``SecureState`` are this wrapper under
/// the names AppState gives it for each kind of entry.
@propertyWrapper
public struct AppState<Value, ApplicationState: MutableApplicationState>: Sendable
where ApplicationState.Value == Value {
    /// Evaluates the declaring property on an application: `keyPath` applied by a closure made
    /// where the wrapper is (see ``init(_:)``).
    // Safe: the closure only applies an immutable key path; its type just doesn't say `Sendable`.
    @usableFromInline nonisolated(unsafe) let declaration: (Application) -> ApplicationState

    /// Creates the wrapper for the entry at `keyPath`.
    @inlinable
    public init(_ keyPath: KeyPath<Application, ApplicationState>) {
        // Inlined where a key-path literal is written, so the optimiser turns the closure into a
        // direct call of the declaring property (a stored key path is interpreted on every read).
        declaration = { $0[keyPath: keyPath] }
    }

    /// The entry's current value; setting it writes the shared entry.
    ///
    /// A mutation in place (`count += 1`, `items.append(item)`) is one step on the entry: see
    /// each handle's `value` (``Application/State/value``, ``Application/StoredState/value``).
    @inlinable
    public var wrappedValue: Value {
        get { Application.withCurrent(declaration).value }
        nonmutating set {
            var handle = Application.withCurrent(declaration)
            handle.value = newValue
        }
        nonmutating _modify {
            var handle = Application.withCurrent(declaration)
            yield &handle.value
        }
    }
}
