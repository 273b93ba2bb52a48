/// A handle to a mutable registry entry: ``Application/State``, ``Application/StoredState`` or
/// ``Application/FileState``.
///
/// Generic APIs such as ``Application/state(_:)``, ``Application/reset(_:)`` and the
/// ``AppState`` property wrapper take any conforming handle.
public protocol MutableApplicationState {
    /// The type of the value the entry holds.
    associatedtype Value

    /// The entry's current value; setting it writes to the shared entry.
    var value: Value { get set }

    /// Restores the entry's initial value.
    mutating func reset()

    /// Reads, mutates and writes the value as one step.
    ///
    /// ``Application/State`` makes this atomic; the default implementation reads and writes
    /// through ``value``.
    mutating func modify<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result
}

extension MutableApplicationState {
    /// Reads the value, lets `body` mutate a copy, and writes the copy back.
    @inlinable
    public mutating func modify<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        var copy = value
        let result = try body(&copy)
        value = copy
        return result
    }
}
