extension Application {
    /// A view of one member of a dependency.
    ///
    /// Read-only from a `KeyPath`; from a `WritableKeyPath` a write goes to the current instance
    /// (the newest override, or the original). Under a scoped override
    /// (``Application/withOverrides(_:operation:)-(_,()->R)``) a write lands only if the override
    /// is a class instance; a value-type override can't change, and the write is reported
    /// through the logger naming the dependency.
    ///
    /// ```swift
    /// let baseURL = Application.dependencySlice(\.config, \.baseURL).value
    /// ```
    public struct DependencySlice<Value: Sendable, SliceValue, SliceKeyPath: KeyPath<Value, SliceValue>> {
        let dependencyKeyPath: KeyPath<Application, Dependency<Value>>
        let valueKeyPath: SliceKeyPath

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
        DependencySlice(dependencyKeyPath: dependencyKeyPath, valueKeyPath: valueKeyPath)
    }

    /// A writable slice of a dependency.
    public static func dependencySlice<Value: Sendable, SliceValue>(
        _ dependencyKeyPath: KeyPath<Application, Dependency<Value>>,
        _ valueKeyPath: WritableKeyPath<Value, SliceValue>
    ) -> DependencySlice<Value, SliceValue, WritableKeyPath<Value, SliceValue>> {
        DependencySlice(dependencyKeyPath: dependencyKeyPath, valueKeyPath: valueKeyPath)
    }
}

extension Application.DependencySlice where SliceKeyPath == WritableKeyPath<Value, SliceValue> {
    /// The member's current value; setting it writes to the current instance.
    public var value: SliceValue {
        get { Application.dependency(dependencyKeyPath)[keyPath: valueKeyPath] }
        set {
            let application = Application.current
            let handle = application[keyPath: dependencyKeyPath]
            if let entry = handle.entry(in: application) {
                entry.modifyCurrent { $0[keyPath: valueKeyPath] = newValue }
            } else {
                // A scoped override provides the instance: a class instance takes the write, a
                // value's is reported (see the type's documentation).
                var instance = handle.value
                instance[keyPath: valueKeyPath] = newValue
                if !(type(of: handle.value as Any) is AnyObject.Type) {
                    Application.reportDroppedSliceWrite(of: dependencyKeyPath, instance: handle.value)
                }
            }
        }
    }
}

extension Application {
    /// Reports a dependency-slice write that a scoped override of a value type can't take.
    static func reportDroppedSliceWrite<Value: Sendable>(of keyPath: KeyPath<Application, Dependency<Value>>, instance: Value) {
        let name = KeyCapture.declaredKey(of: keyPath, replacement: instance)?.readable ?? "\(keyPath)"
        Diagnostics.report(error: """
            AppStateKit: a write through a dependency slice of \(name) was dropped: a scoped override provides it as \
            a \(Value.self), a value the scope can't change. Override it with a class instance, or change it for \
            everyone with Application.override(_:with:).
            """)
    }
}
