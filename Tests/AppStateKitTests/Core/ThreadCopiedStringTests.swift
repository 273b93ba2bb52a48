import Foundation
import Synchronization
import Testing
@testable import AppStateKit

@Suite("Per-thread copies of a string setting", .isolatedApplication)
struct ThreadCopiedStringTests {
    @Test("unset until set; setIfUnset keeps the first value; set replaces it")
    func setting() {
        let setting = ThreadCopiedString()
        #expect(setting.value == nil)
        #expect(setting.setIfUnset("/first/path/long-enough-for-heap-storage") == "/first/path/long-enough-for-heap-storage")
        #expect(setting.setIfUnset("/second") == "/first/path/long-enough-for-heap-storage")
        #expect(setting.value == "/first/path/long-enough-for-heap-storage")
        setting.set("/third")
        #expect(setting.value == "/third")
    }

    @Test("a thread holding a copy reads a change made on another thread")
    func changeReachesThreadWithCopy() {
        let setting = ThreadCopiedString()
        setting.set("/before/a/path/longer-than-fifteen-bytes")
        let reads = LockedBox<[String?]>([])
        let firstRead = DispatchSemaphore(value: 0), changed = DispatchSemaphore(value: 0), done = DispatchSemaphore(value: 0)
        Thread {
            reads.withLock { $0.append(setting.value) }
            firstRead.signal()
            changed.wait()
            reads.withLock { $0.append(setting.value) }
            done.signal()
        }.start()
        firstRead.wait()
        setting.set("/after/a/path/longer-than-fifteen-bytes")
        changed.signal()
        done.wait()
        #expect(reads.withLock { $0 } == ["/before/a/path/longer-than-fifteen-bytes", "/after/a/path/longer-than-fifteen-bytes"])
    }

    @Test("threads reading while another sets only ever read a value that was set")
    func concurrentReadsAndSets() {
        let setting = ThreadCopiedString()
        let values = (0..<4).map { "/data/path/number-\($0)/that-needs-heap-storage" }
        setting.set(values[0])
        let stop = Atomic<Bool>(false)
        let unexpected = Atomic<Int>(0)
        let readers = (0..<4).map { _ in
            Thread {
                while !stop.load(ordering: .relaxed) {
                    if let value = setting.value, !values.contains(value) { unexpected.add(1, ordering: .relaxed) }
                }
            }
        }
        readers.forEach { $0.start() }
        for round in 0..<2_000 { setting.set(values[round % values.count]) }
        stop.store(true, ordering: .relaxed)
        while readers.contains(where: { !$0.isFinished }) { usleep(1_000) }
        #expect(unexpected.load(ordering: .relaxed) == 0)
        #expect(setting.value == values[1_999 % values.count])
    }
}
