// AppState-style XCTest: a @MainActor test class, promotion in setUp, overrides awaited-cancelled.
import AppStateKit
import XCTest
@testable import TaskBoard

struct FixedTaskFetcher: TaskFetching {
    let titles: [String]
    func fetchTitles() async -> [String] { titles }
}

@MainActor
final class BoardViewXCTests: XCTestCase {
    override func setUp() async throws {
        Application
            .logging(isEnabled: false)
            .promote(\.taskFetcher, with: FixedTaskFetcher(titles: ["write", "review"]))
        Application.reset(\.tasks)
        Application.reset(\.settings)
        Application.reset(\.session)
    }

    override func tearDown() async throws {
        Application.promote(\.taskFetcher, with: RemoteTaskFetcher())
    }

    func testViewModelLoadsThroughThePromotedDependency() async {
        let view = BoardView()
        await view.viewModel.load()
        XCTAssertEqual(view.tasks.map(\.title), ["write", "review"])
        XCTAssertFalse(view.viewModel.isLoading)
    }

    func testDependencySlicesWriteTheViewModel() {
        let view = BoardView()
        view.signIn(as: "Leif")
        XCTAssertEqual(Application.dependency(\.boardViewModel).username, "Leif")
        XCTAssertEqual(view.header, "TaskBoard — Task Board — Leif (Today)")
        view.subtitle = "Tomorrow"
        XCTAssertEqual(Application.dependency(\.headerModel).subtitle, "Tomorrow")
        Application.dependency(\.boardViewModel).selectedTaskID = 0
        view.add("ship")
        XCTAssertEqual(view.selectedTitle, "ship")
    }

    func testSlicesAndConstants() {
        let view = BoardView()
        XCTAssertEqual(view.theme, "light")
        view.toggleTheme()
        XCTAssertEqual(Application.state(\.settings).value.theme, "dark")
        XCTAssertEqual(view.version, "3.0")
        XCTAssertNil(view.displayName)
        XCTAssertNil(view.userID)
        view.signIn(as: "Ada")
        XCTAssertEqual(view.displayName, "Ada")
        XCTAssertEqual(view.userID, "ada")
        view.avatar = "🦊"
        XCTAssertEqual(Application.state(\.session).value?.avatar, "🦊")
    }

    func testOverrideAwaitedCancel() async {
        let override = Application.override(\.taskFetcher, with: FixedTaskFetcher(titles: ["mock"]))
        let titles = await Application.dependency(\.taskFetcher).fetchTitles()
        XCTAssertEqual(titles, ["mock"])
        await override.cancel()
        let restored = await Application.dependency(\.taskFetcher).fetchTitles()
        XCTAssertEqual(restored, ["write", "review"])
    }

    func testOverridesCancelledFromTaskGroupChildren() async {
        var overrides: [Application.DependencyOverride] = []
        for index in 0..<3 {
            overrides.append(Application.override(\.taskFetcher, with: FixedTaskFetcher(titles: ["mock \(index)"])))
        }
        let newest = await Application.dependency(\.taskFetcher).fetchTitles()
        XCTAssertEqual(newest, ["mock 2"])
        await withTaskGroup(of: Void.self) { group in
            for override in overrides {
                group.addTask { await override.cancel() }
            }
        }
        let restored = await Application.dependency(\.taskFetcher).fetchTitles()
        XCTAssertEqual(restored, ["write", "review"])
    }
}
