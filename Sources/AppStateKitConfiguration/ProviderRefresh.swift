#if Configuration
import AppStateKitCore
import Synchronization

/// Who keeps a provider's values current: nobody yet (the initialiser starts nothing), a worker
/// that the provider's first read or watch started, or the provider's `run()`, which takes over
/// for good.
///
/// The worker is a detached task that holds the provider's mirror and store, never the
/// provider: it is cancelled when the provider is released or when `run()` takes over, and no
/// worker starts again after `run()` was called (once `run()` returns, the values stay as they
/// are). The read path's one check is ``isClaimed``, an atomic load.
final class ProviderRefresh: Sendable {
    private enum Runner: Sendable {
        case nobody
        /// A worker is being started (its loop is made outside the lock: it may call the store).
        case starting
        case worker(Task<Void, Never>)
        case run
    }

    private let runner = LockedBox(Runner.nobody)
    private let claimed = Atomic<Bool>(false)

    init() {}

    /// Whether a worker or `run()` keeps the values current (or did): nothing to start.
    var isClaimed: Bool { claimed.load(ordering: .acquiring) }

    /// Starts a worker running the loop `makeLoop` returns, registered as `name` of `owner`,
    /// unless a worker runs or `run()` took over. `makeLoop` runs on the caller's thread, outside
    /// every lock (a sync store subscribes to its feed there, before the caller reads).
    func startWorker(name: String, owner: some AnyObject & Sendable, _ makeLoop: () -> @Sendable () async -> Void) {
        let starts = runner.withLock { runner in
            guard case .nobody = runner else { return false }
            runner = .starting
            return true
        }
        guard starts else { return }
        claimed.store(true, ordering: .releasing)
        let loop = makeLoop()
        let activity = BackgroundActivities.begin(name, owner: owner)
        let task = Task.detached {
            defer { activity.end() }
            await loop()
        }
        let kept = runner.withLock { runner in
            guard case .starting = runner else { return false }
            runner = .worker(task)
            return true
        }
        // `run()` took over while the worker was being made.
        if !kept { task.cancel() }
    }

    /// Stops the worker, if one runs, and returns once it ended; no worker starts after this.
    func takeOver() async {
        let worker: Task<Void, Never>? = runner.withLock { runner in
            defer { runner = .run }
            if case let .worker(task) = runner { return task }
            return nil
        }
        claimed.store(true, ordering: .releasing)
        worker?.cancel()
        await worker?.value
    }

    deinit {
        if case let .worker(task) = runner.withLock({ $0 }) { task.cancel() }
    }
}
#endif
