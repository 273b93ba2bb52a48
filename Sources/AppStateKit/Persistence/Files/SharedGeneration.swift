import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A 64-bit counter every process using one file shares: writers add one after each change they
/// make to the file, so a reader learns "nothing changed since I last looked" from one atomic
/// load instead of a `stat`.
///
/// On the real file system the counter is the first 8 bytes of the file's `.lock` sibling,
/// mapped shared into each process (see ``POSIXFileSystem/sharedGeneration(forLockFile:create:)``).
/// A file system that lives in memory hands out one counter in this process's memory.
package final class SharedGeneration: @unchecked Sendable {
    // Safe: `counter` is only accessed through atomic operations, and its memory stays valid
    // (mapped or allocated) until `deinit`.
    private let counter: UnsafeMutablePointer<Atomic<UInt64>>
    private let storage: Storage
    /// Device and inode of the mapped lock file, to notice it was replaced; `nil` in memory.
    package let identity: (device: UInt64, inode: UInt64)?

    private enum Storage {
        case allocated
        case mapped(length: Int, writable: Bool)
    }

    /// A counter in this process's memory, starting at zero.
    package init() {
        counter = .allocate(capacity: 1)
        counter.initialize(to: Atomic(0))
        storage = .allocated
        identity = nil
    }

    /// A counter in the shared mapping at `address` (at least 8 bytes, 8-byte aligned).
    init(mappedAt address: UnsafeMutableRawPointer, length: Int, writable: Bool, device: UInt64, inode: UInt64) {
        counter = address.assumingMemoryBound(to: Atomic<UInt64>.self)
        storage = .mapped(length: length, writable: writable)
        identity = (device, inode)
    }

    deinit {
        switch storage {
        case .allocated:
            counter.deinitialize(count: 1)
            counter.deallocate()
        case let .mapped(length, _):
            munmap(UnsafeMutableRawPointer(counter), length)
        }
    }

    /// The current value, with acquire ordering.
    @inline(__always)
    package func load() -> UInt64 {
        counter.pointee.load(ordering: .acquiring)
    }

    /// Adds one and returns the value before the addition; `nil` for a read-only mapping (a
    /// process that may read the file but not write its lock file can't write the file either).
    @discardableResult
    package func increment() -> UInt64? {
        if case .mapped(_, false) = storage { return nil }
        return counter.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
    }
}

/// What ``FileSystem/sharedGeneration(forLockFile:create:)`` found.
package enum SharedGenerationLookup: Sendable {
    /// The counter.
    case shared(SharedGeneration)
    /// The lock file does not exist (and was not to be created): nobody relies on a counter yet.
    case absent
    /// No counter can be shared for this file (a network file system, no permission, no
    /// shared mappings): readers check the file's stamp on every read.
    case unsupported
}
