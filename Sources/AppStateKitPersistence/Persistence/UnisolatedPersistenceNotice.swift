import AppStateKitCore
import Foundation
import Synchronization

/// Tells a test that forgot `.isolatedApplication` where its persisted state goes: the first real
/// default (`\.userDefaults`, `\.fileManager`, `\.syncStore`) created while a test runs outside
/// an isolated application is reported once per process, with the trait that avoids it.
/// AppStateKitTesting says a test is running (``install(runningTest:)``); the library never guesses.
package enum UnisolatedPersistenceNotice {
    private static let runningTest = LockedBox<(@Sendable () -> String?)?>(nil)
    private static let given = Atomic<Bool>(false)

    /// Installs the function naming the test the calling task runs (`nil`: none); the first stays.
    package static func install(runningTest: @escaping @Sendable () -> String?) {
        self.runningTest.withLock { if $0 == nil { $0 = runningTest } }
    }

    /// Lets the next notice be given again (for the test of the notice itself).
    package static func allowAnotherNotice() {
        given.store(false, ordering: .relaxed)
    }

    static func noted(_ store: FileKeyValueStore) -> FileKeyValueStore {
        noted(store, uses: "the real StoredState store \(store.path)")
    }

    /// Names the default FileState directory without fixing the storage name (a test may set it).
    static func noted(_ manager: FileManager) -> FileManager {
        noted(manager, uses: "the real file system for FileState (a file state declared without a path is written in \(DefaultFileStatePath.pathWithoutFixingName()))")
    }

    /// `collaborator`, a real default just created; reports `location` once per process if a
    /// test is running outside an isolated application.
    package static func noted<Collaborator>(_ collaborator: Collaborator, uses location: @autoclosure () -> String) -> Collaborator {
        // In an isolated application's task, a real collaborator is a standalone
        // `Application()`'s, which the test made on purpose.
        guard !given.load(ordering: .relaxed), TaskContext.current.isolatedApplication == nil, let runningTest = runningTest.withLock({ $0 }), let test = runningTest(),
            given.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
        else { return collaborator }
        Diagnostics.report(error: "AppStateKit: the test \(test) runs outside an isolated application and uses \(location()): what it stores there carries over into the next run. Run the test or its suite under .isolatedApplication (AppStateKitTesting) to keep stored, file and sync state private to it (reported once per process)")
        return collaborator
    }
}
