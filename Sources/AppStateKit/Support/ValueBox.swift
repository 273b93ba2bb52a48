/// An immutable box, so a value can be handed between threads by reference and a reader can
/// keep a snapshot of it (a dependency's current instance, kept in the registry's table).
@usableFromInline
final class ValueBox<Value: Sendable>: Sendable {
    @usableFromInline let value: Value

    @usableFromInline
    init(_ value: Value) {
        self.value = value
    }
}
