/// A handle to a mutable registry entry: ``Application/State``, ``Application/StoredState`` or
/// ``Application/FileState``.
///
/// Generic APIs such as ``Application/state(_:)``, ``Application/reset(_:)`` and the
/// ``AppState`` property wrapper take any conforming handle.
public protocol MutableApplicationState {
    /// The type of the value the entry holds.
    associatedtype Value

    /// The entry's current value; setting it writes to the shared entry. The library's handles
    /// also mutate it in place as one atomic step (`handle.value += 1`).
    var value: Value { get set }

    /// Restores the entry's initial value.
    mutating func reset()

    /// Reads, mutates and writes the value as one step: atomic within the process for the
    /// library's handles, whose `body` runs with the entry locked and must not touch it again.
    mutating func modify<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result
}

extension MutableApplicationState {
    /// Mutates ``value`` in place with `body`: atomic for ``Application/State``, whose `value`
    /// mutates in place under the entry's lock; a type of your own whose `value` has only `get`
    /// and `set` gets a read, the mutation of a copy, and a write.
    @inlinable
    public mutating func modify<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try body(&value)
    }
}
