#if PostgreSQL
import AppStateKitCore

/// A gate that opens once and stays open: tasks wait until ``open()`` was called (or they are
/// cancelled, which ends their wait with `CancellationError`).
final class OneShotSignal: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
        var cancelled: Set<Int> = []
        var nextID = 0
    }

    private let state = LockedBox(State())

    /// Whether ``open()`` was called.
    var isOpen: Bool { state.withLock { $0.isOpen } }

    /// Opens the gate and resumes every waiter.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard !state.isOpen else { return [] }
            state.isOpen = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the gate is open; throws `CancellationError` when the task is cancelled first.
    func wait() async throws {
        let id = state.withLock { state -> Int? in
            if state.isOpen { return nil }
            defer { state.nextID += 1 }
            return state.nextID
        }
        guard let id else { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, any Error>? in
                    if state.isOpen { return .success(()) }
                    if state.cancelled.remove(id) != nil { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, any Error>? in
                if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
                if !state.isOpen { state.cancelled.insert(id) }
                return nil
            }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
#endif
