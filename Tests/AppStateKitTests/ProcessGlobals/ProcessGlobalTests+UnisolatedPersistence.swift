import AppStateKit
import AppStateKitTesting
import Foundation
import Testing

extension ProcessGlobalTests {
    /// Issue 34, item 5: a test outside an isolated application that makes the real default
    /// StoredState store is told so once, naming the store's path and `.isolatedApplication`.
    /// Outside an isolated application by design (it tests what happens there); each test creates
    /// the real default collaborators only (a store object, `FileManager.default`), which touches
    /// no file.
    @Suite("Persisted state outside an isolated application")
    struct UnisolatedPersistenceTests {
        @Test("the first real default store a test makes is reported once, naming the test, the store's path and the trait; an isolated application's store is in memory")
        func reportedOnce() {
            UnisolatedPersistenceNotice.allowAnotherNotice()
            let isolatedLogs = capturingLogs {
                Application.withIsolatedApplication {
                    #expect(!(Application.dependency(\.userDefaults) is FileKeyValueStore))
                }
            }
            #expect(isolatedLogs.isEmpty)

            var paths: [String] = []
            let logs = capturingLogs {
                for _ in 0..<3 {
                    let store = Application().userDefaults.value as? FileKeyValueStore
                    paths.append(store?.path ?? "not a FileKeyValueStore")
                }
            }
            #expect(paths.count == 3 && paths.allSatisfy { $0 == FileKeyValueStore.defaultPath })
            #expect(logs == [
                "AppStateKit: the test \"the first real default store a test makes is reported once, naming the test, the store's path and the trait; an isolated application's store is in memory\" runs outside an isolated application and uses the real StoredState store \(FileKeyValueStore.defaultPath): what it stores there carries over into the next run. Run the test or its suite under .isolatedApplication (AppStateKitTesting) to keep stored, file and sync state private to it (reported once per process)",
            ])
        }

        @Test("the first real file manager a test's FileState resolves is reported once, naming the test, the default directory and the trait; an isolated application never makes it")
        func fileStateReportedOnce() {
            UnisolatedPersistenceNotice.allowAnotherNotice()
            let isolatedLogs = capturingLogs {
                Application.withIsolatedApplication {
                    #expect(!(Application.dependency(\.fileManager) is FileManager))
                }
            }
            #expect(isolatedLogs.isEmpty)

            var managers: [Bool] = []
            let logs = capturingLogs {
                for _ in 0..<3 { managers.append(Application().fileManager.value is FileManager) }
                // One notice per process, whichever kind of state came first.
                _ = Application().userDefaults.value
                _ = Application().syncStore.value
            }
            #expect(managers == [true, true, true])
            #expect(logs == [
                "AppStateKit: the test \"the first real file manager a test's FileState resolves is reported once, naming the test, the default directory and the trait; an isolated application never makes it\" runs outside an isolated application and uses the real file system for FileState (a file state declared without a path is written in \(FileManager.defaultFileStatePath)): what it stores there carries over into the next run. Run the test or its suite under .isolatedApplication (AppStateKitTesting) to keep stored, file and sync state private to it (reported once per process)",
            ])
        }

        @Test("the first real sync store a test makes is reported once, naming the test, its sync.json and the trait; an isolated application's store is in memory")
        func syncStateReportedOnce() {
            UnisolatedPersistenceNotice.allowAnotherNotice()
            let isolatedLogs = capturingLogs {
                Application.withIsolatedApplication {
                    #expect(!(Application.dependency(\.syncStore) is LocalSyncStore))
                }
            }
            #expect(isolatedLogs.isEmpty)

            var paths: [String] = []
            let logs = capturingLogs {
                for _ in 0..<2 { paths.append((Application().syncStore.value as? LocalSyncStore)?.path ?? "not a LocalSyncStore") }
                _ = Application().fileManager.value
            }
            #expect(paths == [LocalSyncStore.defaultPath, LocalSyncStore.defaultPath])
            #expect(logs == [
                "AppStateKit: the test \"the first real sync store a test makes is reported once, naming the test, its sync.json and the trait; an isolated application's store is in memory\" runs outside an isolated application and uses the real SyncState store \(LocalSyncStore.defaultPath): what it stores there carries over into the next run. Run the test or its suite under .isolatedApplication (AppStateKitTesting) to keep stored, file and sync state private to it (reported once per process)",
            ])
        }
    }
}
