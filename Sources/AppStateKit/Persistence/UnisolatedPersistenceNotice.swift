import Synchronization

/// Tells a test that forgot `.isolatedApplication` where its persisted state goes.
///
/// A test outside an isolated application that touches a `StoredState` writes to the real
/// default store (`~/.config/<test bundle>/defaults.json`), and what it stores there carries
/// over into the next run. The first time the real default store is created while a test is
/// running, this reports it once per process through the logger, naming the store's path and
/// the trait that avoids it.
///
/// The library can't know that a test is running, and doesn't guess from the process: the
/// testing product tells it. AppStateKitTesting installs ``install(runningTest:)`` (the name of
/// Swift Testing's `Test.current`) when a test names one of its traits, which Swift Testing evaluates while it
/// discovers the tests, before any runs. Without AppStateKitTesting nothing is reported.
package enum UnisolatedPersistenceNotice {
    private static let runningTest = LockedBox<(@Sendable () -> String?)?>(nil)
    private static let given = Atomic<Bool>(false)

    /// Installs the function that names the test the calling task runs, or returns nil when it
    /// runs none (once; later calls keep the first).
    package static func install(runningTest: @escaping @Sendable () -> String?) {
        self.runningTest.withLock { if $0 == nil { $0 = runningTest } }
    }

    /// Lets the next notice be given again (for the test of the notice itself).
    package static func allowAnotherNotice() {
        given.store(false, ordering: .relaxed)
    }

    /// `store`, the default key-value store just created; reports it if a test is running.
    static func noted(_ store: FileKeyValueStore) -> FileKeyValueStore {
        // In an isolated application's task, a real store is a standalone `Application()`'s,
        // which the test made on purpose.
        guard !given.load(ordering: .relaxed), TaskContext.current.isolatedApplication == nil, let runningTest = runningTest.withLock({ $0 }), let test = runningTest(),
            given.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
        else { return store }
        Diagnostics.report(error: "AppStateKit: the test \(test) runs outside an isolated application and uses the real StoredState store \(store.path): what it stores there carries over into the next run. Run the test or its suite under .isolatedApplication (AppStateKitTesting) to keep stored and file state private to it (reported once per process)")
        return store
    }
}
