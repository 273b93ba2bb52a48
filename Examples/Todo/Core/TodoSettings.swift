/// How `todo list` orders tasks.
public enum SortOrder: String, Codable, Sendable, CaseIterable {
    case created
    case title
}
