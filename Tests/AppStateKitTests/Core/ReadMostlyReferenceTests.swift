import Foundation
import Synchronization
import Testing
@testable import AppStateKit

@Suite("Lock-free read-mostly reference", .isolatedApplication)
struct ReadMostlyReferenceTests {
    private final class Counted: Sendable {
        static let released = Atomic<Int>(0)
        let number: Int
        /// Set at creation, so a reader can tell a live object's contents.
        let canary: UInt64 = 0xC0FF_EE00_C0FF_EE00

        init(_ number: Int) {
            self.number = number
        }

        deinit {
            Counted.released.add(1, ordering: .relaxed)
        }
    }

    private final class Probe {}

    @Test("reads see nothing, then the latest object; a replaced object no read uses is released at once")
    func replacesAndReleases() {
        let reference = ReadMostlyReference<Probe>()
        #expect(reference.withObject(none: nil) { $0 } == nil)
        var first: Probe? = Probe()
        weak let weakFirst = first
        reference.replace(with: first)
        #expect(reference.withObject(none: false) { $0 === first })
        first = nil
        #expect(weakFirst != nil)
        reference.replace(with: Probe())
        #expect(weakFirst == nil)
        reference.replace(with: nil)
        #expect(reference.withObject(none: nil) { $0 } == nil)
    }

    @Test("an object replaced while a read uses it stays alive until a replacement finds no read in flight")
    func keepsWhatAReadUses() {
        let reference = ReadMostlyReference<Probe>()
        reference.replace(with: Probe())
        weak var weakOld: Probe?
        reference.withObject(none: ()) { old in
            weakOld = old
            reference.replace(with: Probe())
        }
        #expect(weakOld != nil)
        reference.replace(with: Probe())
        #expect(weakOld == nil)
    }

    @Test("a replacement waits only for the readers that started before it: a newer reader still in flight doesn't keep the replaced object")
    func releasesWhileNewerReadersRead() {
        let reference = ReadMostlyReference<Probe>(patience: .max)
        weak var weakOld: Probe?
        do {
            let old = Probe()
            weakOld = old
            reference.replace(with: old)
        }
        let (firstIn, firstGo, secondIn, secondGo, replaced) = (
            DispatchSemaphore(value: 0), DispatchSemaphore(value: 0), DispatchSemaphore(value: 0),
            DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)
        )
        Thread.detachNewThread {
            reference.withObject(none: ()) { _ in
                firstIn.signal()
                firstGo.wait()
            }
        }
        firstIn.wait()
        let epoch = reference.epochForTesting
        Thread.detachNewThread {
            reference.replace(with: Probe())
            replaced.signal()
        }
        // The replacement's grace period has begun: readers from now on use the other counter.
        while reference.epochForTesting == epoch { sched_yield() }
        Thread.detachNewThread {
            reference.withObject(none: ()) { _ in
                secondIn.signal()
                secondGo.wait()
            }
        }
        secondIn.wait()
        #expect(weakOld != nil, "the first reader still uses it")
        firstGo.signal()
        replaced.wait()
        #expect(weakOld == nil, "released once the readers from before the replacement left, while a newer one still reads")
        secondGo.signal()
    }

    @Test("readers on several threads only ever see live objects, and every object is released in the end")
    func concurrentReadsAndReplacements() async {
        let before = Counted.released.load(ordering: .relaxed)
        var reference: ReadMostlyReference<Counted>? = ReadMostlyReference<Counted>()
        let shared = reference!
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    var allLive = true
                    for _ in 0..<30_000 {
                        let canary = shared.withObject(none: 0xC0FF_EE00_C0FF_EE00) { $0.canary }
                        allLive = allLive && canary == 0xC0FF_EE00_C0FF_EE00
                    }
                    return allLive
                }
            }
            group.addTask {
                for number in 0..<2_000 { shared.replace(with: Counted(number)) }
                return true
            }
            for await allLive in group { #expect(allLive) }
        }
        #expect(shared.withObject(none: nil) { $0.number } == 1_999)
        // With the readers gone, one more replacement releases everything replaced before.
        shared.replace(with: Counted(2_000))
        #expect(Counted.released.load(ordering: .relaxed) - before == 2_000, "every replaced object is released while the reference lives")
        reference = nil
        _ = consume shared
        #expect(Counted.released.load(ordering: .relaxed) - before == 2_001)
    }
}
