import Dispatch
import Foundation
import AppStateKitTesting
import Testing
@testable import AppStateKit
@testable import AppStateKitCore
@testable import AppStateKitPersistence
@testable import AppStateKitSecrets
@testable import AppStateKitSync

private extension Application {
    var anyThreadCount: State<Int> { state(initial: 0) }
    var anyThreadService: Dependency<String> { dependency("service") }
}

private actor ThreadRecorder {
    func bump() -> Int {
        // Synchronous registry calls from inside an actor: no hop to the main actor needed.
        Application.update(\.anyThreadCount) { $0 += 1; return $0 }
    }
}

@Suite("Concurrency contract", .isolatedApplication)
struct ConcurrencyContractTests {
    @Test("every entry point is callable synchronously from threads, queues, tasks and actors")
    func callableFromAnywhere() async {
        // Threads and queues don't inherit task-locals: carry this test's isolated application.
        let scope = Application.currentContext
        let queue = DispatchQueue(label: "any-thread", attributes: .concurrent)
        let group = DispatchGroup()
        for _ in 0..<100 {
            queue.async(group: group) {
                scope.run {
                    Application.update(\.anyThreadCount) { $0 += 1 }
                    _ = Application.dependency(\.anyThreadService)
                }
            }
        }
        let finished = DispatchSemaphore(value: 0)
        let thread = Thread {
            scope.run {
                for _ in 0..<100 { Application.update(\.anyThreadCount) { $0 += 1 } }
            }
            finished.signal()
        }
        thread.start()
        let recorder = ThreadRecorder()
        for _ in 0..<100 { _ = await recorder.bump() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                group.wait()
                finished.wait()
                continuation.resume()
            }
        }
        #expect(Application.state(\.anyThreadCount).value == 300)
    }
}
