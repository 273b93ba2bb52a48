/// What `@AppState`, `@StoredState`, `@FileState` and `@SyncState` share: the declaring
/// property, evaluated on the current application at each access, and the value read, written
/// and mutated in place through the handle it returns.
///
/// Each access resolves the handle anew, so the wrappers follow promotions, isolation scopes and
/// resets.
@usableFromInline
struct WrappedDeclaration<Handle: MutableApplicationState>: @unchecked Sendable {
    // Safe: `declaration` is immutable and is either a `@Sendable` function or a projection of
    // an immutable key path; it isn't typed `@Sendable` only because a closure over the key path
    // would capture the generic `Handle` metatype.

    /// Evaluates the declaring property on an application.
    @usableFromInline let declaration: (Application) -> Handle

    /// Evaluates the property at `keyPath` (the path a key path held in a variable takes).
    @usableFromInline
    init(_ keyPath: KeyPath<Application, Handle>) {
        self.declaration = { $0[keyPath: keyPath] }
    }

    /// Calls `declaration`: for a key-path literal, Swift passes a function that calls the
    /// property directly, so an access costs no key-path interpretation at run time.
    @usableFromInline
    init(_ declaration: @escaping @Sendable (Application) -> Handle) {
        self.declaration = declaration
    }

    /// The handle's value in the current application; setting and mutating in place write
    /// through the handle (see each handle's `value`).
    @inlinable
    var value: Handle.Value {
        get { Application.withCurrent { declaration($0).value } }
        nonmutating set {
            var state = Application.withCurrent { declaration($0) }
            state.value = newValue
        }
        nonmutating _modify {
            var state = Application.withCurrent { declaration($0) }
            yield &state.value
        }
    }
}
