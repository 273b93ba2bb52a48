import AppStateKit
import Foundation

extension Application {
    var benchService: Dependency<BenchService> { dependency(BenchService()) }
    var benchCounter: State<Int> { state(initial: 0) }
    var benchSettings: Dependency<BenchSettings> { dependency(BenchSettings()) }
    // Second entries, so two threads can each read their own (the "distinct entries" cases).
    var benchCounter2: State<Int> { state(initial: 0) }
    var benchSettings2: Dependency<BenchSettings> { dependency(BenchSettings()) }
}

/// A value-type dependency: reading it writes no reference count, so it shows how the lookup
/// itself scales across threads (a class instance's count is written by every reader).
struct BenchSettings: Sendable {
    var port = 8080
    var workers = 4
}

struct WrapperHolder: Sendable {
    @AppDependency(\.benchService) var service
    @AppState(\.benchCounter) var counter
}

enum AppStateKitCases {
    static func resolve() -> [BenchmarkCase] {
        let holder = opaque(WrapperHolder())
        return [
            BenchmarkCase(name: "AppStateKit Application.dependency", group: "resolve") { n in
                for _ in 0..<n { blackHole(Application.dependency(\.benchService)) }
            },
            BenchmarkCase(name: "AppStateKit @AppDependency", group: "resolve") { n in
                for _ in 0..<n { blackHole(holder.service) }
            },
            BenchmarkCase(name: "AppStateKit Application.dependency (struct value)", group: "resolve") { n in
                for _ in 0..<n { blackHole(Application.dependency(\.benchSettings)) }
            },
        ]
    }

    /// The single-thread cases that `resolveOnTwoThreads()` is compared with, run in its section.
    static func resolveOnOneThread() -> [BenchmarkCase] {
        resolve().filter { $0.name.hasPrefix("AppStateKit Application.dependency") }
    }

    static func resolveOnTwoThreads() -> [BenchmarkCase] {
        [
            BenchmarkCase(name: "AppStateKit Application.dependency ×2 threads", group: "resolve-2t") { n in
                onThreads(2, n) { count in for _ in 0..<count { blackHole(Application.dependency(\.benchService)) } }
            },
            BenchmarkCase(name: "AppStateKit Application.dependency (struct value) ×2 threads", group: "resolve-2t") { n in
                onThreads(2, n) { count in for _ in 0..<count { blackHole(Application.dependency(\.benchSettings)) } }
            },
            BenchmarkCase(name: "AppStateKit Application.dependency (struct value, distinct entries) ×2 threads", group: "resolve-2t") { n in
                onThreads(2, n) { count, thread in
                    if thread == 0 {
                        for _ in 0..<count { blackHole(Application.dependency(\.benchSettings)) }
                    } else {
                        for _ in 0..<count { blackHole(Application.dependency(\.benchSettings2)) }
                    }
                }
            },
        ]
    }

    /// A State read on one thread and on two at once: the same entry from both threads (the case
    /// that counts: a hot config or flag), and each thread its own entry beside it.
    static func stateReadScaling() -> [BenchmarkCase] {
        [
            BenchmarkCase(name: "AppStateKit State read", group: "state-2t") { n in
                for _ in 0..<n { blackHole(Application.state(\.benchCounter).value) }
            },
            BenchmarkCase(name: "AppStateKit State read ×2 threads", group: "state-2t") { n in
                onThreads(2, n) { count in for _ in 0..<count { blackHole(Application.state(\.benchCounter).value) } }
            },
            BenchmarkCase(name: "AppStateKit State read (distinct entries) ×2 threads", group: "state-2t") { n in
                onThreads(2, n) { count, thread in
                    if thread == 0 {
                        for _ in 0..<count { blackHole(Application.state(\.benchCounter).value) }
                    } else {
                        for _ in 0..<count { blackHole(Application.state(\.benchCounter2).value) }
                    }
                }
            },
        ]
    }

    static func state() -> [BenchmarkCase] {
        let holder = opaque(WrapperHolder())
        return [
            BenchmarkCase(name: "AppStateKit State read", group: "state") { n in
                for _ in 0..<n { blackHole(Application.state(\.benchCounter).value) }
            },
            BenchmarkCase(name: "AppStateKit @AppState read", group: "state") { n in
                for _ in 0..<n { blackHole(holder.counter) }
            },
            BenchmarkCase(name: "AppStateKit State write", group: "state") { n in
                for index in 0..<n {
                    var counter = Application.state(\.benchCounter)
                    counter.value = index
                }
            },
            BenchmarkCase(name: "AppStateKit update += 1", group: "state") { n in
                for _ in 0..<n { Application.update(\.benchCounter) { $0 += 1 } }
            },
        ]
    }

    static func scopedOverride() -> [BenchmarkCase] {
        let mock = BenchService()
        return [
            BenchmarkCase(name: "AppStateKit withOverrides + 1 read", group: "scoped") { n in
                for _ in 0..<n {
                    Application.withOverrides { $0.override(\.benchService, with: mock) } operation: {
                        blackHole(Application.dependency(\.benchService))
                    }
                }
            },
        ]
    }
}
