import AppStateKit
import AppStateKitTesting
import Testing

extension ProcessGlobalTests {
    /// Issue 34, item 5: a test outside an isolated application that makes the real default
    /// StoredState store is told so once, naming the store's path and `.isolatedApplication`.
    /// Outside an isolated application by design (it tests what happens there); it creates the
    /// store object only, which touches no file.
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
                "AppStateKit: the test \"the first real default store a test makes is reported once, naming the test, the store's path and the trait; an isolated application's store is in memory\" runs outside an isolated application and uses the real StoredState store \(FileKeyValueStore.defaultPath): what it stores there carries over into the next run. Run the test or its suite under .isolatedApplication (AppStateKitTesting) to keep stored and file state private to it (reported once per process)",
            ])
        }
    }
}
