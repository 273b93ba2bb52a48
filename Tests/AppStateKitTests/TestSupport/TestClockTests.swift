import AppStateKit
import AppStateKitTesting
import Testing

extension Application {
    fileprivate var testedClock: Dependency<any Clock<Duration>> { dependency(ContinuousClock()) }
}

/// AppStateKitTesting's clocks: `TestClock` moves only when advanced, `ImmediateClock` never waits.
@Suite("Test clocks", .isolatedApplication)
struct TestClockTests {
    @Test("a TestClock sleep ends only when the clock is advanced to its deadline")
    func sleepEndsOnAdvance() async throws {
        let clock = TestClock()
        let woke = Locked(false)
        let sleeper = Task {
            try await clock.sleep(for: .seconds(10))
            woke.withLock { $0 = true }
        }
        while clock.sleeperCount == 0 { await Task.yield() }
        await clock.advance(by: .seconds(9))
        #expect(clock.sleeperCount == 1)
        #expect(!woke.withLock { $0 })
        await clock.advance(by: .seconds(1))
        try await sleeper.value
        #expect(woke.withLock { $0 })
        #expect(clock.now == TestClock.Instant(offset: .seconds(10)))
        #expect(clock.sleeperCount == 0)
    }

    @Test("advancing past several deadlines wakes them earliest first; advance(to:) never goes back")
    func wakesInDeadlineOrder() async throws {
        let clock = TestClock()
        let order = Locked<[Int]>([])
        let sleepers = [3, 1, 2].map { seconds in
            Task {
                try await clock.sleep(until: TestClock.Instant(offset: .seconds(seconds)))
                order.withLock { $0.append(seconds) }
            }
        }
        while clock.sleeperCount < 3 { await Task.yield() }
        await clock.advance(to: TestClock.Instant(offset: .seconds(5)))
        for sleeper in sleepers { try await sleeper.value }
        #expect(Set(order.withLock { $0 }) == [1, 2, 3])
        await clock.advance(to: TestClock.Instant(offset: .seconds(1)))
        #expect(clock.now == TestClock.Instant(offset: .seconds(5)))
    }

    @Test("a sleep until a deadline already reached returns at once; a cancelled sleep throws CancellationError")
    func pastDeadlinesAndCancellation() async throws {
        let clock = TestClock()
        await clock.advance(by: .seconds(2))
        try await clock.sleep(until: TestClock.Instant(offset: .seconds(1)))
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        while clock.sleeperCount == 0 { await Task.yield() }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("as an `any Clock<Duration>` dependency: measure and sleep(for:) follow the test's advances")
    func asDependency() async throws {
        let clock = TestClock()
        let elapsed = try await Application.withOverrides { $0.override(\.testedClock, with: clock) } operation: { () async throws -> Duration in
            let measured = Task {
                try await Application.dependency(\.testedClock).measure {
                    try await Application.dependency(\.testedClock).sleep(for: .milliseconds(1500))
                }
            }
            while clock.sleeperCount == 0 { await Task.yield() }
            await clock.advance(by: .milliseconds(1500))
            return try await measured.value
        }
        #expect(elapsed == .milliseconds(1500))
    }

    @Test("an ImmediateClock's sleeps return at once and move now to their deadline")
    func immediateClock() async throws {
        let clock = ImmediateClock()
        let elapsed = try await Application.withOverrides { $0.override(\.testedClock, with: clock) } operation: { () async throws -> Duration in
            try await Application.dependency(\.testedClock).measure {
                for _ in 0..<3 { try await Application.dependency(\.testedClock).sleep(for: .seconds(5)) }
            }
        }
        #expect(elapsed == .seconds(15))
        #expect(clock.now == ImmediateClock.Instant(offset: .seconds(15)))
        let cancelled = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await clock.sleep(for: .seconds(1))
        }
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(clock.now == ImmediateClock.Instant(offset: .seconds(15)))
    }
}
