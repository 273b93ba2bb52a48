/// The member an optional slice or constant reads: optional or not.
enum OptionalMember<Value, SliceValue>: Sendable {
    case value(KeyPath<Value, SliceValue> & Sendable)
    case optional(KeyPath<Value, SliceValue?> & Sendable)

    func read(from parent: Value?) -> SliceValue? {
        guard let parent else { return nil }
        switch self {
        case let .value(keyPath): return parent[keyPath: keyPath]
        case let .optional(keyPath): return parent[keyPath: keyPath]
        }
    }

    func write(_ newValue: SliceValue?, into parent: inout Value?) {
        guard parent != nil else { return }
        switch self {
        case let .value(keyPath):
            guard let newValue, let writable = keyPath as? WritableKeyPath<Value, SliceValue> else { return }
            parent![keyPath: writable] = newValue
        case let .optional(keyPath):
            guard let writable = keyPath as? WritableKeyPath<Value, SliceValue?> else { return }
            parent![keyPath: writable] = newValue
        }
    }
}
