/// What a thread reports once it has waited unusually long for another thread to create an
/// entry: the registry can't see a cycle hidden behind a semaphore, lock or queue, but it can
/// say where everyone waits.
struct SlowCreationReport {
    /// How long the thread has waited.
    let waited: Duration
    /// The waiting thread.
    let thread: ThreadID
    /// The creations the waiting thread is running itself, outermost first.
    let creations: [EntryKey]
    /// The chain of waits: the key waited for, the thread creating it and that thread's
    /// creations; then what that thread waits for in turn, if anything.
    var hops: [(key: EntryKey, owner: ThreadID, ownerCreations: [EntryKey])] = []

    /// The error-level message delivered through the logger.
    var message: String {
        func describe(_ thread: ThreadID) -> String { "thread 0x\(String(thread.rawValue, radix: 16))" }
        func describe(_ keys: [EntryKey]) -> String { keys.map(\.readable).joined(separator: " → ") }
        var chain = describe(thread)
        if !creations.isEmpty { chain += " (creating \(describe(creations)))" }
        chain += hops.map { hop in
            " waits for \(hop.key.readable), which \(describe(hop.owner)) is creating (\(describe(hop.ownerCreations)))"
        }.joined(separator: "; that thread")
        let (seconds, attoseconds) = waited.components
        return """
            AppStateKit: still waiting after \(Double(seconds) + Double(attoseconds) / 1e18) s for another \
            thread to create an entry: \(chain). If this never ends, a factory or initial value is \
            blocked on something only a waiting thread can provide (a cycle hidden behind a semaphore, \
            lock, queue or `await`); see Concurrency.md.
            """
    }
}
