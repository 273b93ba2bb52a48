// The app's data and services, declared as AppState 3.0's guides show. Only the import names
// AppStateKit.
import AppStateKit
import Foundation
import Observation

public struct TaskItem: Codable, Equatable, Sendable, Identifiable {
    public var id: Int
    public var title: String
    public var isDone: Bool

    public init(id: Int, title: String, isDone: Bool = false) {
        self.id = id
        self.title = title
        self.isDone = isDone
    }
}

public struct BoardSettings: Equatable, Sendable {
    public var theme: String = "light"
    public var pageSize: Int = 20
    public var nickname: String? = nil
    public let version: String = "3.0"

    public init() {}
}

public struct Session: Equatable, Sendable {
    public var userID: String
    public var displayName: String
    public var avatar: String?

    public init(userID: String, displayName: String, avatar: String? = nil) {
        self.userID = userID
        self.displayName = displayName
        self.avatar = avatar
    }
}

public protocol TaskFetching: Sendable {
    func fetchTitles() async -> [String]
}

public struct RemoteTaskFetcher: TaskFetching {
    public init() {}
    public func fetchTitles() async -> [String] { ["from the network"] }
}

/// The screen's view model: main-actor isolated and observable, as SwiftUI apps write it.
@MainActor @Observable
public final class BoardViewModel {
    public var username: String? = nil
    public var isLoading: Bool = false
    public var selectedTaskID: Int? = nil
    public let title: String = "Task Board"

    public init() {}

    public func load() async {
        isLoading = true
        let titles = await Application.dependency(\.taskFetcher).fetchTitles()
        isLoading = false
        var tasks = Application.state(\.tasks)
        tasks.value = titles.enumerated().map { TaskItem(id: $0.offset, title: $0.element) }
    }
}

/// A main-actor class with a synthesised initializer, like AppState's own test view model.
@MainActor
public final class HeaderModel: Sendable {
    public var subtitle: String = "Today"
    public let appName: String = "TaskBoard"
}

extension Application {
    public var tasks: State<[TaskItem]> { state(initial: []) }
    public var settings: State<BoardSettings> { state(initial: BoardSettings()) }
    public var session: State<Session?> { state(initial: nil) }
    public var taskFetcher: Dependency<TaskFetching> { dependency(RemoteTaskFetcher()) }

    /// Declared on the main actor, where the model's initializer runs.
    @MainActor
    public var boardViewModel: Dependency<BoardViewModel> { dependency(BoardViewModel()) }
    public var headerModel: Dependency<HeaderModel> { dependency(HeaderModel()) }

    public var hasSeenOnboarding: StoredState<Bool> { storedState(initial: false, id: "hasSeenOnboarding") }
    public var lastOpenedTask: StoredState<Int?> { storedState(id: "lastOpenedTask") }
    public var archivedTasks: FileState<[TaskItem]> { fileState(initial: [], filename: "archivedTasks") }
    public var draft: FileState<String?> { fileState(filename: "draft") }
    public var isSyncEnabled: SyncState<Bool> { syncState(initial: false, id: "isSyncEnabled") }
    public var sharedNote: SyncState<String?> { syncState(id: "sharedNote") }
    public var apiToken: SecureState { secureState(id: "apiToken") }
}
