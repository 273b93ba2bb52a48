extension Application {
    /// A view of one member of a dependency.
    ///
    /// Read-only from a `KeyPath`; from a `WritableKeyPath` a write goes to the current instance
    /// (the newest override, or the original).
    ///
    /// ```swift
    /// let baseURL = Application.dependencySlice(\.config, \.baseURL).value
    /// ```
    public struct DependencySlice<Value: Sendable, SliceValue, SliceKeyPath: KeyPath<Value, SliceValue>> {
        let dependencyKeyPath: KeyPath<Application, Dependency<Value>>
        let valueKeyPath: SliceKeyPath

        init(_ dependencyKeyPath: KeyPath<Application, Dependency<Value>>, _ valueKeyPath: SliceKeyPath) {
            self.dependencyKeyPath = dependencyKeyPath
            self.valueKeyPath = valueKeyPath
        }

        /// The member's current value.
        public var value: SliceValue {
            Application.dependency(dependencyKeyPath)[keyPath: valueKeyPath]
        }
    }

    /// A read-only slice of a dependency.
    public static func dependencySlice<Value: Sendable, SliceValue>(
        _ dependencyKeyPath: KeyPath<Application, Dependency<Value>>,
        _ valueKeyPath: KeyPath<Value, SliceValue>
    ) -> DependencySlice<Value, SliceValue, KeyPath<Value, SliceValue>> {
        DependencySlice(dependencyKeyPath, valueKeyPath)
    }

    /// A writable slice of a dependency.
    public static func dependencySlice<Value: Sendable, SliceValue>(
        _ dependencyKeyPath: KeyPath<Application, Dependency<Value>>,
        _ valueKeyPath: WritableKeyPath<Value, SliceValue>
    ) -> DependencySlice<Value, SliceValue, WritableKeyPath<Value, SliceValue>> {
        DependencySlice(dependencyKeyPath, valueKeyPath)
    }
}

extension Application.DependencySlice where SliceKeyPath == WritableKeyPath<Value, SliceValue> {
    /// The member's current value; setting it writes to the current instance.
    public var value: SliceValue {
        get { Application.dependency(dependencyKeyPath)[keyPath: valueKeyPath] }
        set {
            let handle = Application.current[keyPath: dependencyKeyPath]
            if let entry = handle.entry {
                entry.modifyCurrent { $0[keyPath: valueKeyPath] = newValue }
            } else {
                // A scoped override provides the instance: only reference types can be written.
                var instance = handle.value
                instance[keyPath: valueKeyPath] = newValue
            }
        }
    }
}
