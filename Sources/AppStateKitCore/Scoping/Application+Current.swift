import Synchronization

extension Application {
    /// The application that serves the calling task: the isolated one of an enclosing
    /// isolation scope if there is one, otherwise the process-wide shared instance.
    @inlinable
    package static var current: Application {
        withCurrent { $0 }
    }

    /// Runs `body` with the application serving the calling task, without retaining the shared
    /// instance (a retain would make every reading thread write the same cache line).
    @inlinable @inline(__always)
    package static func withCurrent<Result>(_ body: (Application) -> Result) -> Result {
        if IsolatedApplication.isAnyLive, let isolated = TaskContext.currentIsolatedApplication {
            return body(isolated)
        }
        return SharedApplication.withShared(body)
    }
}

/// The application of an isolation scope; ``Application/promote(to:)`` inside the scope replaces
/// it here instead of replacing the process-wide instance.
@usableFromInline
package final class IsolatedApplication: Sendable {
    private let storedApplication: LockedBox<ApplicationReference>

    /// How many isolated applications exist; while none does, an access skips the task-local
    /// lookup. Counted per object, not per scope: unstructured tasks created inside a scope keep
    /// it bound after the scope returns.
    @usableFromInline static let liveCount = Atomic<Int>(0)

    @inlinable
    static var isAnyLive: Bool { liveCount.load(ordering: .relaxed) > 0 }

    package init(_ application: Application) {
        storedApplication = LockedBox(ApplicationReference(application: application))
        Self.liveCount.wrappingAdd(1, ordering: .relaxed)
    }

    deinit {
        Self.liveCount.wrappingSubtract(1, ordering: .relaxed)
    }

    var application: Application {
        get { storedApplication.withLock { $0.application } }
        set { storedApplication.withLock { $0 = ApplicationReference(application: newValue) } }
    }
}

/// How many live override nodes (``ScopedOverride``) override a key of each of 256 hash buckets,
/// and in all: one relaxed load tells a lookup that no scope anywhere overrides its key.
///
/// A node counts itself when made and uncounts itself in its `deinit`. Relaxed loads suffice:
/// a task reads its scopes' nodes only after they were made (by the task or by its parent before
/// the task was created), so "no overrides in this bucket" is never wrong for its own scopes.
@usableFromInline
package enum OverrideCensus {
    /// Live override nodes per bucket (`EntryKey.fastHash` modulo 256).
    private static let counts: InlineArray<256, Atomic<Int>> = InlineArray { _ in Atomic(0) }
    /// Live override nodes in all.
    @usableFromInline static let total = Atomic<Int>(0)

    /// Whether no override node exists anywhere: no task runs inside an override scope.
    @inlinable
    package static var isEmpty: Bool { total.load(ordering: .relaxed) == 0 }

    /// Whether some live scope may override the key whose ``EntryKey/fastHash`` is `fastHash`.
    @usableFromInline
    package static func mayOverride(fastHash: Int) -> Bool {
        counts[bucket(fastHash)].load(ordering: .relaxed) != 0
    }

    /// Counts an override node of the key whose ``EntryKey/fastHash`` is `fastHash`.
    static func count(fastHash: Int) {
        // Wrapping: one atomic add, not a checked compare-and-swap loop (counts stay far below `Int.max`).
        total.wrappingAdd(1, ordering: .relaxed)
        counts[bucket(fastHash)].wrappingAdd(1, ordering: .relaxed)
    }

    /// Uncounts an override node counted by ``count(fastHash:)``.
    static func uncount(fastHash: Int) {
        counts[bucket(fastHash)].wrappingSubtract(1, ordering: .relaxed)
        total.wrappingSubtract(1, ordering: .relaxed)
    }

    private static func bucket(_ fastHash: Int) -> Int {
        fastHash & 255
    }
}

extension Application {
    /// The process-wide instance. Replaced by ``promote(to:)``.
    @inlinable
    package static var shared: Application {
        get {
            SharedApplication.withShared { $0 }
        }
        set {
            SharedApplication.replace(with: newValue)
        }
    }
}

/// Storage for ``Application/shared``: a ``PublishedReference`` and the lock that serialises
/// publishing. The first instance is published on first use; after that readers never touch
/// the lazily initialised `initial`.
@usableFromInline
enum SharedApplication {
    // Safe: an immutable reference to an instance whose only stored property synchronises itself.
    nonisolated(unsafe) private static let initial = Application()
    @usableFromInline typealias Reference = PublishedReference<Application>
    /// The published instance (see ``PublishedReference``).
    @usableFromInline static let bits = Atomic<UInt>(0)
    /// Replaced instances, kept as the reference's policy requires; its lock serialises publishing.
    private static let retired = LockedBox<[ApplicationReference]>([])

    /// Runs `body` with the shared instance, publishing the first one if needed, without
    /// retaining it. Every handle's first step: `.ci/steps/45-instruction-guard.sh` fails if a
    /// toolchain brings back retains of the shared instance here.
    @inlinable @inline(__always)
    static func withShared<Result>(_ body: (Application) -> Result) -> Result {
        let word = Reference.word(in: bits)
        guard word != 0 else { return body(publishInitial()) }
        return Reference.withObject(at: word, body)
    }

    /// Publishes the first shared instance unless one already is, and returns the shared instance.
    @usableFromInline
    static func publishInitial() -> Application {
        let instance = initial
        instance.registry.readThroughViews()
        return retired.withLock { _ in Reference.publishIfAbsent(instance, in: bits) }
    }

    @usableFromInline
    static func replace(with application: Application) {
        application.registry.readThroughViews()
        retired.withLock { retired in
            if let old = Reference.replace(with: application, in: bits) { retired.append(ApplicationReference(application: old)) }
        }
    }
}
