import Foundation
import Testing
@testable import AppStateKit

/// Records, under a lock, which thread released a probe.
private final class ReleaseRecord: @unchecked Sendable {
    // Safe: `thread` and `isReleased` are only accessed while `lock` is held.
    private let lock = NSLock()
    private var thread: pthread_t?
    private var isReleasedValue = false

    func released(on thread: pthread_t) {
        lock.withLock {
            self.thread = thread
            isReleasedValue = true
        }
    }

    var releasingThread: pthread_t? { lock.withLock { thread } }
    var isReleased: Bool { lock.withLock { isReleasedValue } }
}

/// A dependency that says where it was released.
private final class Probe: Sendable {
    let record: ReleaseRecord
    init(record: ReleaseRecord) { self.record = record }
    deinit { record.released(on: pthread_self()) }
}

@Suite("A thread's memo after the thread exits", .isolatedApplication)
struct ThreadMemoReleaseTests {
    @Test("what only an exited thread's memo kept alive is released, on another thread than the exiting one")
    func releasedOnAnotherThread() {
        let record = ReleaseRecord()
        let worker = ReleaseRecord()
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            // A registry of its own, read once: afterwards only this thread's memo holds it.
            let application = Application()
            _ = application.dependency(Probe(record: record), feature: "MemoRelease", id: "probe").value
            worker.released(on: pthread_self())
            finished.signal()
        }
        thread.start()
        finished.wait()
        // Waits for the thread to exit and its memo to go (bounded, not timed: no assertion on
        // how long it takes).
        let deadline = Date().addingTimeInterval(30)
        while !record.isReleased, Date() < deadline { usleep(1_000) }
        #expect(record.isReleased)
        let releasing = record.releasingThread
        let exiting = worker.releasingThread
        #expect(releasing != nil && exiting != nil && pthread_equal(releasing!, exiting!) == 0)
    }
}
