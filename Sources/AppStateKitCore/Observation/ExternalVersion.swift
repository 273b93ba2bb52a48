/// What identifies the version of a value another process can change (equal versions: no
/// change), which change streams of stored and file states take on each poll to notice writes
/// that bypass this process's entries. The versions themselves belong to the persistence module
/// (a file's stamp, a stored raw value); Core only compares them.
package struct ExternalVersion: Equatable, Sendable {
    private let value: any Sendable
    private let isEqual: @Sendable (any Sendable) -> Bool

    /// A version equal to another only when both wrap equal values of the same type.
    package init<Value: Equatable & Sendable>(_ value: Value) {
        self.value = value
        isEqual = { ($0 as? Value) == value }
    }

    package static func == (lhs: ExternalVersion, rhs: ExternalVersion) -> Bool {
        lhs.isEqual(rhs.value)
    }
}

/// An entry whose value another process can change: a stored or file state.
package protocol ExternallyChangeable: RegistryEntry, Sendable {
    /// The current version; cheap (one `stat`, or one store lookup). A read after it sees at
    /// least this version.
    func externalVersion() -> ExternalVersion
}
