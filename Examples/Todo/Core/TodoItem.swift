import Foundation

/// One task on the list.
public struct TodoItem: Codable, Equatable, Sendable {
    /// A small number, unique within the list, that commands refer to.
    public var id: Int
    public var title: String
    public var createdAt: Date
    public var completedAt: Date?

    public var isDone: Bool { completedAt != nil }

    public init(id: Int, title: String, createdAt: Date, completedAt: Date? = nil) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.completedAt = completedAt
    }
}

/// The whole list, as stored in its file.
public struct TodoList: Codable, Equatable, Sendable {
    public var items: [TodoItem]

    public init(items: [TodoItem] = []) {
        self.items = items
    }
}
