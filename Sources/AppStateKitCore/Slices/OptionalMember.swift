/// The member an optional slice or constant reads: optional or not.
///
/// Not `Sendable`: a key path to an actor-isolated member isn't. The wrappers that hold one are
/// `Sendable` only when it was made from `Sendable` key paths.
enum OptionalMember<Value, SliceValue> {
    case value(KeyPath<Value, SliceValue>)
    case optional(KeyPath<Value, SliceValue?>)

    func read(from parent: Value?) -> SliceValue? {
        switch self {
        case let .value(keyPath): parent?[keyPath: keyPath]
        case let .optional(keyPath): parent?[keyPath: keyPath] ?? nil
        }
    }

    /// Writes with `Optional`'s `sliceMember` rules; a read-only member (a constant's) is left alone.
    func write(_ newValue: SliceValue?, into parent: inout Value?) {
        switch self {
        case let .value(keyPath):
            guard let writable = keyPath as? WritableKeyPath<Value, SliceValue> else { return }
            parent[sliceMember: writable] = newValue
        case let .optional(keyPath):
            guard let writable = keyPath as? WritableKeyPath<Value, SliceValue?> else { return }
            parent[sliceMember: writable] = newValue
        }
    }
}
