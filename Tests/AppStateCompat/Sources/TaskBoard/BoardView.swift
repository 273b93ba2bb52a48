// A SwiftUI-shaped screen (SwiftUI itself is Apple-only): a main-actor struct that reads the app
// through every AppState property wrapper.
import AppStateKit

@MainActor
public struct BoardView {
    @AppState(\.tasks) public var tasks: [TaskItem]
    @AppState(\.settings) var settings
    @AppDependency(\.taskFetcher) var fetcher: TaskFetching
    @AppDependency(\.boardViewModel) public var viewModel

    @DependencySlice(\.boardViewModel, \.username) public var username
    @DependencySlice(\.boardViewModel, \.isLoading) var isLoading
    @DependencySlice(\.headerModel, \.subtitle) public var subtitle
    @DependencyConstant(\.boardViewModel, \.title) public var title
    @DependencyConstant(\.headerModel, \.appName) public var appName

    @Slice(\.settings, \.theme) public var theme
    @Slice(\.settings, \.pageSize) var pageSize
    @Constant(\.settings, \.version) public var version
    @OptionalSlice(\.session, \.displayName) public var displayName
    @OptionalSlice(\.session, \.avatar) public var avatar
    @OptionalConstant(\.session, \.userID) public var userID

    @StoredState(\.hasSeenOnboarding) public var hasSeenOnboarding: Bool
    @StoredState(\.lastOpenedTask) public var lastOpenedTask
    @FileState(\.archivedTasks) public var archivedTasks
    @FileState(\.draft) public var draft
    @SyncState(\.isSyncEnabled) public var isSyncEnabled
    @SyncState(\.sharedNote) public var sharedNote
    @SecureState(\.apiToken) public var apiToken: String?

    public init() {}

    /// What the screen shows in its header.
    public var header: String {
        "\(appName) — \(title) — \(username ?? "guest") (\(subtitle))"
    }

    public func add(_ title: String) {
        tasks.append(TaskItem(id: tasks.count, title: title))
    }

    public func toggleTheme() {
        theme = theme == "light" ? "dark" : "light"
    }

    public func signIn(as name: String) {
        username = name
        var session = Application.state(\.session)
        session.value = Session(userID: name.lowercased(), displayName: name)
    }

    public func archiveDone() {
        archivedTasks += tasks.filter(\.isDone)
        tasks.removeAll(where: \.isDone)
    }

    public var selectedTitle: String? {
        let selected = Application.dependencySlice(\.boardViewModel, \.selectedTaskID).value
        return tasks.first { $0.id == selected }?.title
    }
}
