import AppStateKit
import Foundation

extension Application {
    var benchService: Dependency<BenchService> { dependency(BenchService()) }
    var benchCounter: State<Int> { state(initial: 0) }
}

struct WrapperHolder: Sendable {
    @AppDependency(\.benchService) var service
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
        ]
    }

    static func resolveOnTwoThreads() -> [BenchmarkCase] {
        [
            BenchmarkCase(name: "AppStateKit Application.dependency ×2 threads", group: "resolve-2t") { n in
                onThreads(2, n) { count in for _ in 0..<count { blackHole(Application.dependency(\.benchService)) } }
            },
        ]
    }

    static func state() -> [BenchmarkCase] {
        [
            BenchmarkCase(name: "AppStateKit State read", group: "state") { n in
                for _ in 0..<n { blackHole(Application.state(\.benchCounter).value) }
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
