import AppStateKitCore
import AppStateKitPersistence
extension EntryKind {
    @usableFromInline enum SecureStateMarker {}

    /// ``Application/SecureState``.
    @inlinable static var secureState: EntryKind { EntryKind(identifier: ObjectIdentifier(SecureStateMarker.self)) }
}
