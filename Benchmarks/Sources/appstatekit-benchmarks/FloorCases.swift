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
                var sum = 0
                for index in 0..<n { sum &+= controlStep(index) }
                blackHole(sum)
            },
            BenchmarkCase(name: "control: no shared state ×2 threads", group: "control") { n in
                onThreads(2, n) { count in
                    var sum = 0
                    for index in 0..<count { sum &+= controlStep(index) }
                    blackHole(sum)
                }
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

/// One step of the control loop: a call the optimiser can neither inline nor drop.
@inline(never) @_optimize(none)
func controlStep(_ value: Int) -> Int {
    value &+ 1
}
