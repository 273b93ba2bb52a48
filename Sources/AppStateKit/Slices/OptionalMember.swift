/// The member an optional slice or constant reads: optional or not.
enum OptionalMember<Value, SliceValue>: Sendable {
    case value(KeyPath<Value, SliceValue> & Sendable)
    case optional(KeyPath<Value, SliceValue?> & Sendable)

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
