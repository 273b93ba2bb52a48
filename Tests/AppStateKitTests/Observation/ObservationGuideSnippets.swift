// The snippets of Documentation/Observation.md, verbatim, compiled and run. Keep the two in step.
import AppStateKit
import AppStateKitTesting
import Foundation
import Observation
import Testing

/// The guide's `print` calls stay verbatim; in this file they print only as test diagnostics
/// (APPSTATEKIT_TEST_DIAGNOSTICS, see TestDiagnostics.swift), so a green run stays quiet.
private func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    diagnostic(items.map { "\($0)" }.joined(separator: separator))
}

// MARK: - "With the Observation framework"

extension Application {
    var unreadCount: State<Int> { state(initial: 0) }
}

/// Draws the badge now, and again after every change of `unreadCount`.
func keepBadgeCurrent(draw: @escaping @Sendable (Int) -> Void) {
    let unread = withObservationTracking {
        Application.state(\.unreadCount).value
    } onChange: {
        // Called once, on the writing thread, just before the write lands.
        // Re-arm from a task, which reads the new value.
        Task { keepBadgeCurrent(draw: draw) }
    }
    draw(unread)
}

// MARK: - "Async change streams"

func printUnreadCounts() async {
    for await count in Application.values(of: \.unreadCount) {
        print("unread: \(count)")
    }
}

// MARK: - "Server example: reloading configuration"

struct GreeterConfig: Codable, Equatable, Sendable {
    var requestsPerMinute = 600
    var maintenanceMode = false
}

extension Application {
    /// Edited by operators (or a deploy tool) while the server runs.
    var greeterConfig: FileState<GreeterConfig> {
        fileState(initial: GreeterConfig(), path: "/etc/greeter", filename: "config.json", isBase64Encoded: false)
    }
}

actor RateLimiter {
    private(set) var requestsPerMinute = 0

    func setLimit(_ limit: Int) {
        requestsPerMinute = limit
    }
}

/// Applies the configuration now and after every change, until the task is cancelled.
func applyConfiguration(to limiter: RateLimiter) async {
    for await config in Application.values(of: \.greeterConfig, pollInterval: .seconds(2)) {
        await limiter.setLimit(config.maintenanceMode ? 0 : config.requestsPerMinute)
    }
}

/// The handler of an admin endpoint: the reloader applies the new configuration at once.
func updateConfiguration(_ config: GreeterConfig) throws {
    try Application.fileState(\.greeterConfig).write(config)
}

/// A SIGHUP handler, for operators who want changes applied before the next poll.
func reloadNow() {
    Application.notifyChange()
}

// MARK: - "CLI example: a live progress line"

extension Application {
    var filesConverted: State<Int> { state(initial: 0) }
}

/// Converts `files` in parallel while one line shows how many are done.
func convertAll(_ files: [String], convert: @escaping @Sendable (String) async -> Void) async {
    let progress = Task {
        for await done in Application.values(of: \.filesConverted) {
            print("\rconverted \(done)/\(files.count)", terminator: done == files.count ? "\n" : "")
            if done == files.count { break }
        }
    }
    await withTaskGroup(of: Void.self) { group in
        for file in files {
            group.addTask {
                await convert(file)
                Application.update(\.filesConverted) { $0 += 1 }
            }
        }
    }
    await progress.value  // The line always ends on "converted n/n".
}

// MARK: - "Several entries at once"

func printTotals() async {
    if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
        let totals = Observations {
            Application.state(\.unreadCount).value + Application.state(\.filesConverted).value
        }
        for await total in totals {
            print("total: \(total)")
        }
    }
}

// MARK: - The snippets, run

@Suite("Observation guide snippets", .isolatedApplication)
struct ObservationGuideSnippets {
    @Test func badge() async {
        let drawn = Locked<[Int]>([])
        keepBadgeCurrent { count in drawn.withLock { $0.append(count) } }
        Application.update(\.unreadCount) { $0 = 3 }
        #expect(await eventually { drawn.withLock { $0 } == [0, 3] })
        Application.update(\.unreadCount) { $0 = 4 }
        #expect(await eventually { drawn.withLock { $0 } == [0, 3, 4] })
    }

    @Test func printingStream() async {
        let printer = Task { await printUnreadCounts() }
        #expect(await eventually { Application.changeStreamCount(of: \.unreadCount) == 1 })
        printer.cancel()
        #expect(await withDeadline { await printer.value } != nil)
        #expect(Application.changeStreamCount(of: \.unreadCount) == 0)
    }

    @Test func configurationReload() async throws {
        let limiter = RateLimiter()
        let reloader = Task { await applyConfiguration(to: limiter) }
        #expect(await eventually { await limiter.requestsPerMinute == 600 })

        try updateConfiguration(GreeterConfig(requestsPerMinute: 60))
        #expect(await eventually { await limiter.requestsPerMinute == 60 })

        // An operator edits the file: seen at the next poll, or at once after `reloadNow()`.
        let edited = try JSONEncoder().encode(GreeterConfig(requestsPerMinute: 60, maintenanceMode: true))
        try Application.dependency(\.fileManager).atomicFiles.writeAtomically(edited, toFile: Application.fileState(\.greeterConfig).path)
        reloadNow()
        #expect(await eventually { await limiter.requestsPerMinute == 0 })

        reloader.cancel()
        #expect(await withDeadline { await reloader.value } != nil)
        #expect(Application.changeStreamCount(of: \.greeterConfig) == 0)
    }

    /// The reloader polls on a manual clock: the operator's edit is seen when the clock passes
    /// the 2-second interval, not before, and the test never waits for real time.
    @Test func configurationReloadByPolling() async throws {
        let clock = TestClock()
        let limiter = RateLimiter()
        let reloader = WaitClock.$current.withValue(WaitClock(clock)) {
            Task { await applyConfiguration(to: limiter) }
        }
        #expect(await eventually { await limiter.requestsPerMinute == 600 })
        #expect(await eventually { clock.sleeperCount == 1 })  // waiting for a change or the next poll
        let edited = try JSONEncoder().encode(GreeterConfig(requestsPerMinute: 6))
        try Application.dependency(\.fileManager).atomicFiles.writeAtomically(edited, toFile: Application.fileState(\.greeterConfig).path)

        await clock.advance(by: .seconds(1))
        #expect(clock.sleeperCount == 1)  // half an interval: no poll yet
        #expect(await limiter.requestsPerMinute == 600)
        await clock.advance(by: .seconds(1))
        #expect(await eventually { await limiter.requestsPerMinute == 6 })  // the poll at 2 s saw the edit
        reloader.cancel()
        #expect(await withDeadline { await reloader.value } != nil)
    }

    @Test func progressLine() async {
        let converted = Locked<[String]>([])
        let files = ["a.png", "b.png", "c.png", "d.png"]
        let finished = await withDeadline {
            await convertAll(files) { file in converted.withLock { $0.append(file) } }
            return true
        }
        #expect(finished == true)
        #expect(converted.withLock { $0.sorted() } == files)
        #expect(Application.state(\.filesConverted).value == files.count)
        #expect(Application.changeStreamCount(of: \.filesConverted) == 0)
    }

    @Test func totals() async {
        let printer = Task { await printTotals() }
        Application.update(\.filesConverted) { $0 = 2 }
        printer.cancel()
        #expect(await withDeadline { await printer.value } != nil)

        // What the loop prints: the sum of both entries, again after a change to either.
        let totals = await withDeadline {
            let scope = Application.currentContext
            let observed = Observations {
                scope.run { Application.state(\.unreadCount).value + Application.state(\.filesConverted).value }
            }
            var iterator = observed.makeAsyncIterator()
            var totals = [await iterator.next()]
            Application.update(\.unreadCount) { $0 = 3 }
            totals.append(await iterator.next())
            return totals
        }
        #expect(totals == [2, 5])
    }
}
