enum FloorCases {
    static let registry = FloorRegistry()

    static func resolve() -> [BenchmarkCase] {
        [
            BenchmarkCase(name: "floor: locked [Int: Any] lookup + cast", group: "resolve") { n in
                for index in 0..<n { blackHole(registry.service(index & 63)) }
            },
        ]
    }

    static func resolveOnTwoThreads() -> [BenchmarkCase] {
        [
            BenchmarkCase(name: "floor ×2 threads", group: "resolve-2t") { n in
                onThreads(2, n) { count in for index in 0..<count { blackHole(registry.service(index & 63)) } }
            },
        ]
    }

    /// The floor on two threads and a loop that shares nothing, on one thread and on two: what
    /// this machine's two cores give at all (a read that scales can't beat the control's ratio).
    static func scalingControls() -> [BenchmarkCase] {
        resolveOnTwoThreads() + [
            BenchmarkCase(name: "control: no shared state", group: "control") { n in
                for index in 0..<n { blackHole(index) }
            },
            BenchmarkCase(name: "control: no shared state ×2 threads", group: "control") { n in
                onThreads(2, n) { count in for index in 0..<count { blackHole(index) } }
            },
        ]
    }

    static func state() -> [BenchmarkCase] {
        [
            BenchmarkCase(name: "floor: locked write", group: "state") { n in
                for index in 0..<n { registry.setCounter(100, index) }
            },
        ]
    }
}
