import Synchronization

/// How many live override nodes (``ScopedOverride``), in all scopes of the process, override a
/// key of each of 256 hash buckets, and in all: lets a lookup tell with one relaxed load that no
/// scope anywhere overrides its key (or anything), and skip the task-local lookup of the
/// calling task's scopes.
///
/// A node counts itself when it is made and uncounts itself in its `deinit`; the scopes that
/// bind it keep it, and so does every node made in front of it by a scope inside. A task reads
/// its scopes' nodes only after they were made — by the task itself, or by its parent before
/// the task was created — so a lookup in that task sees their counts even with relaxed loads:
/// "no overrides in this bucket" is never wrong for the calling task's own scopes. Keys sharing
/// a bucket with an overridden one merely take the full (task-local) check.
@usableFromInline
enum OverrideCensus {
    /// Live override nodes per bucket (`EntryKey.fastHash` modulo 256).
    private static let counts: InlineArray<256, Atomic<Int>> = InlineArray { _ in Atomic(0) }
    /// Live override nodes in all.
    @usableFromInline static let total = Atomic<Int>(0)

    /// Whether no override node exists anywhere: no task runs inside an override scope.
    @inlinable
    static var isEmpty: Bool { total.load(ordering: .relaxed) == 0 }

    /// Whether some live scope may override the key whose ``EntryKey/fastHash`` is `fastHash`.
    @usableFromInline
    static func mayOverride(fastHash: Int) -> Bool {
        counts[bucket(fastHash)].load(ordering: .relaxed) != 0
    }

    /// Counts an override node of the key whose ``EntryKey/fastHash`` is `fastHash`.
    static func count(fastHash: Int) {
        // Wrapping: one atomic add each, not an overflow-checked compare-and-swap loop that
        // retries while other threads open and close scopes (the counts stay far below `Int.max`).
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
