import AppStateKitCore
import AppStateKitPersistence
/// What one consumer of a store's ``SyncStore/changeFeed()`` has not taken yet: at most
/// ``capacity`` changes, whatever the consumer's speed.
///
/// The store pushes each change as it commits or hears of it; the consumer pulls through the
/// stream of ``makeStream()``. When a change arrives and `capacity` are already waiting, the
/// waiting changes are dropped and the consumer's next element is one
/// ``SyncChange/replaced(_:)`` with everything the store holds at that moment (read through
/// `contents` then, outside any lock). It holds every change dropped (each was committed
/// before it was pushed), so a slow consumer loses nothing but the intermediate versions,
/// and the memory a feed holds stays bounded. A ``SyncChange/replaced(_:)`` the store pushes
/// replaces whatever is waiting too: it is authoritative.
///
/// The feed ends (the stream returns `nil`) after the waiting changes once the store calls
/// ``finish()``, and at once when the consuming task is cancelled or the stream is released;
/// then ``onEnd(_:)``'s handler runs once.
package final class SyncChangeBuffer: Sendable {
    /// The ``capacity`` of the feeds of the stores AppStateKit ships.
    package static let defaultCapacity = 1024

    /// The most changes waiting for the consumer before they collapse into one replacement.
    package let capacity: Int
    private let contents: @Sendable () -> [SyncRecord]
    private let state = LockedBox(State())

    private struct State {
        var waiting: [SyncChange] = []
        /// Where the next element of `waiting` is (elements before it were taken).
        var head = 0
        /// Changes were dropped: the next element is a replacement.
        var overflowed = false
        var overflows = 0
        var consumers: [CheckedContinuation<SyncChange?, Never>] = []
        /// The store finished the feed.
        var isFinished = false
        /// The consumer stopped (cancelled, or the stream released).
        var isEnded = false
        var onEnd: (@Sendable () -> Void)?

        var waitingCount: Int { waiting.count - head }

        mutating func take() -> SyncChange {
            let change = waiting[head]
            head += 1
            if head == waiting.count {
                waiting.removeAll(keepingCapacity: true)
                head = 0
            }
            return change
        }
    }

    /// A buffer of at most `capacity` changes (at least 1) whose overflow reads `contents`.
    package init(capacity: Int = SyncChangeBuffer.defaultCapacity, contents: @escaping @Sendable () -> [SyncRecord]) {
        precondition(capacity >= 1, "AppStateKit: a change feed's capacity must be at least 1, not \(capacity)")
        self.capacity = capacity
        self.contents = contents
    }

    /// The consumer's stream. Take it once per buffer.
    package func makeStream() -> AsyncStream<SyncChange> {
        let release = ConsumerRelease(buffer: self)
        return AsyncStream(unfolding: { await release.buffer.next() })
    }

    /// Queues `change` for the consumer (see the type for overflow); nothing once the feed ended.
    package func push(_ change: SyncChange) {
        let consumer: CheckedContinuation<SyncChange?, Never>? = state.withLock { state in
            guard !state.isFinished, !state.isEnded else { return nil }
            if !state.consumers.isEmpty {
                return state.consumers.removeFirst()
            }
            if case .replaced = change {
                state.waiting = [change]
                state.head = 0
                state.overflowed = false
            } else if state.overflowed {
                // The replacement the consumer gets next is read later and holds this change.
            } else if state.waitingCount < capacity {
                state.waiting.append(change)
            } else {
                state.waiting.removeAll()
                state.head = 0
                state.overflowed = true
                state.overflows += 1
            }
            return nil
        }
        consumer?.resume(returning: change)
    }

    /// Ends the feed after the changes already waiting.
    package func finish() {
        let consumers = state.withLock { state in
            state.isFinished = true
            defer { state.consumers.removeAll() }
            return state.consumers
        }
        for consumer in consumers { consumer.resume(returning: nil) }
    }

    /// Runs `handler` once when the consumer stops (at once if it has); not when the store
    /// finishes the feed.
    package func onEnd(_ handler: @escaping @Sendable () -> Void) {
        let endedAlready = state.withLock { state in
            if state.isEnded { return true }
            state.onEnd = handler
            return false
        }
        if endedAlready { handler() }
    }

    /// How many changes wait for the consumer now (a pending replacement counts as one).
    package var waitingCount: Int {
        state.withLock { $0.waitingCount + ($0.overflowed ? 1 : 0) }
    }

    /// How many times changes were dropped for a replacement.
    package var overflowCount: Int {
        state.withLock { $0.overflows }
    }

    /// The consumer's next change, or `nil` once the feed ended.
    private func next() async -> SyncChange? {
        enum Step {
            case change(SyncChange), replacement, end, wait
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<SyncChange?, Never>) in
                let step: Step = state.withLock { state in
                    if state.waitingCount > 0 { return .change(state.take()) }
                    if state.overflowed {
                        state.overflowed = false
                        return .replacement
                    }
                    if state.isFinished || state.isEnded { return .end }
                    state.consumers.append(continuation)
                    return .wait
                }
                switch step {
                case let .change(change): continuation.resume(returning: change)
                case .replacement: continuation.resume(returning: .replaced(contents()))
                case .end: continuation.resume(returning: nil)
                case .wait: break
                }
            }
        } onCancel: {
            consumerEnded()
        }
    }

    /// The consumer stopped: ends every wait and runs the end handler, once.
    fileprivate func consumerEnded() {
        let (consumers, handler) = state.withLock { state -> ([CheckedContinuation<SyncChange?, Never>], (@Sendable () -> Void)?) in
            guard !state.isEnded else { return ([], nil) }
            state.isEnded = true
            state.waiting.removeAll()
            state.head = 0
            state.overflowed = false
            defer {
                state.consumers.removeAll()
                state.onEnd = nil
            }
            return (state.consumers, state.onEnd)
        }
        for consumer in consumers { consumer.resume(returning: nil) }
        handler?()
    }
}

/// Held by a feed's stream: when the stream is released, its consumer has stopped.
private final class ConsumerRelease: Sendable {
    let buffer: SyncChangeBuffer

    init(buffer: SyncChangeBuffer) {
        self.buffer = buffer
    }

    deinit {
        buffer.consumerEnded()
    }
}
