import Dependencies
import Foundation
import Swinject

private enum BenchServiceKey: DependencyKey {
    static let liveValue = BenchService()
}

extension DependencyValues {
    var benchService: BenchService {
        get { self[BenchServiceKey.self] }
        set { self[BenchServiceKey.self] = newValue }
    }
}

private struct DependencyHolder {
    @Dependency(\.benchService) var service
}

enum PeerCases {
    static func makeContainer() -> Container {
        let container = Container()
        container.register(BenchService.self) { _ in BenchService() }.inObjectScope(.container)
        return container
    }

    static func resolve() -> [BenchmarkCase] {
        let container = makeContainer()
        let synchronized = makeContainer().synchronize()
        let holder = opaque(DependencyHolder())
        return [
            BenchmarkCase(name: "Swinject resolve", group: "resolve") { n in
                for _ in 0..<n { blackHole(container.resolve(BenchService.self)!) }
            },
            BenchmarkCase(name: "Swinject resolve (synchronized)", group: "resolve") { n in
                for _ in 0..<n { blackHole(synchronized.resolve(BenchService.self)!) }
            },
            BenchmarkCase(name: "swift-dependencies @Dependency", group: "resolve") { n in
                for _ in 0..<n { blackHole(holder.service) }
            },
            BenchmarkCase(name: "swift-dependencies _current", group: "resolve") { n in
                for _ in 0..<n { blackHole(DependencyValues._current.benchService) }
            },
        ]
    }

    static func resolveOnTwoThreads() -> [BenchmarkCase] {
        let synchronized = UncheckedSendable(makeContainer().synchronize())
        return [
            BenchmarkCase(name: "Swinject resolve (synchronized) ×2 threads", group: "resolve-2t") { n in
                onThreads(2, n) { count in for _ in 0..<count { blackHole(synchronized.value.resolve(BenchService.self)!) } }
            },
            BenchmarkCase(name: "swift-dependencies _current ×2 threads", group: "resolve-2t") { n in
                onThreads(2, n) { count in for _ in 0..<count { blackHole(DependencyValues._current.benchService) } }
            },
        ]
    }

    static func scopedOverride() -> [BenchmarkCase] {
        let mock = BenchService()
        return [
            BenchmarkCase(name: "swift-dependencies withDependencies + 1 read", group: "scoped") { n in
                for _ in 0..<n {
                    withDependencies { $0.benchService = mock } operation: {
                        blackHole(DependencyValues._current.benchService)
                    }
                }
            },
        ]
    }
}

/// Hands a thread-safe but un-annotated peer object to the benchmark threads.
struct UncheckedSendable<Value>: @unchecked Sendable {
    // Safe: only used for Swinject's synchronized resolver, which locks internally.
    let value: Value
    init(_ value: Value) { self.value = value }
}
