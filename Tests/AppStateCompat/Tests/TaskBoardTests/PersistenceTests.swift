// StoredState, FileState, SyncState and SecureState used as AppState's guides show them.
// (.ci/steps/17-appstate-compat.sh runs the tests with HOME and XDG_DATA_HOME in a scratch
// directory, so nothing here touches the real ones.)
import AppStateKit
import Testing
@testable import TaskBoard

@MainActor
@Suite(.serialized)
struct PersistenceTests {
    @Test func storedStateThroughTheWrapperAndTheHandle() {
        Application.reset(storedState: \.hasSeenOnboarding)
        let view = BoardView()
        #expect(view.hasSeenOnboarding == false)
        view.hasSeenOnboarding = true
        #expect(Application.storedState(\.hasSeenOnboarding).value == true)
        view.lastOpenedTask = 4
        #expect(Application.storedState(\.lastOpenedTask).value == 4)
        view.lastOpenedTask = nil
        #expect(Application.storedState(\.lastOpenedTask).value == nil)
        Application.reset(storedState: \.hasSeenOnboarding)
        #expect(view.hasSeenOnboarding == false)
    }

    @Test func fileStateKeepsArchivedTasks() {
        Application.reset(fileState: \.archivedTasks)
        let view = BoardView()
        view.archivedTasks += [TaskItem(id: 99, title: "done already", isDone: true)]
        #expect(Application.fileState(\.archivedTasks).value.map(\.title).contains("done already"))
        view.draft = "half a thought"
        #expect(Application.fileState(\.draft).value == "half a thought")
        view.draft = nil
        #expect(Application.fileState(\.draft).value == nil)
    }

    @Test func syncStateThroughTheWrapper() {
        Application.reset(syncState: \.isSyncEnabled)
        let view = BoardView()
        #expect(view.isSyncEnabled == false)
        view.isSyncEnabled = true
        #expect(Application.syncState(\.isSyncEnabled).value == true)
        view.sharedNote = "standup at ten"
        #expect(Application.syncState(\.sharedNote).value == "standup at ten")
        view.sharedNote = nil
        #expect(Application.syncState(\.sharedNote).value == nil)
    }

    @Test func secureStateThroughTheWrapper() {
        Application.reset(secureState: \.apiToken)
        let view = BoardView()
        #expect(view.apiToken == nil)
        view.apiToken = "s3cr3t"
        #expect(Application.secureState(\.apiToken).value == "s3cr3t")
        Application.reset(secureState: \.apiToken)
        #expect(view.apiToken == nil)
    }
}
