/// How `todo` numbers new tasks; tests can replace it.
public protocol IDGenerator: Sendable {
    /// An id not used by any item of `list`.
    func nextID(for list: TodoList) -> Int
}

/// One more than the largest id in use, so ids stay small and stable.
public struct SequentialIDGenerator: IDGenerator {
    public init() {}
    public func nextID(for list: TodoList) -> Int {
        (list.items.map(\.id).max() ?? 0) + 1
    }
}
