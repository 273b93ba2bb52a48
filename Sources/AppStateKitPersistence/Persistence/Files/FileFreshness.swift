import AppStateKitCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a value cached from a file is still the file's, known without a `stat` while the
/// file's ``SharedGeneration`` stands still.
///
/// A cache holding this beside its value uses the value while ``isCurrent()`` (the counter is
/// where it was at the last check, less than ``revalidationInterval`` ago). Otherwise it takes a
/// ``mark()`` *before* checking the file's stamp, then ``record(_:)``s it.
///
/// Every AppStateKit writer adds one to the counter after its rename, before the write returns,
/// so a read that starts after another process's acknowledged write checks the file. Writers
/// that don't count (an editor) are noticed within ``revalidationInterval``; without a counter
/// every read checks the stamp.
struct FileFreshness: Sendable {
    /// How long a check is trusted while the counter stands still.
    static let revalidationInterval: UInt64 = 1_000_000_000

    let clock: FreshnessClock
    private(set) var generation: SharedGeneration?
    /// Whether the file system can't share a counter for this file (never ask again).
    private(set) var isUnsupported = false
    private var checked: Mark?
    /// When the lock file was last found missing: looked for again at most once an interval.
    private var lastAbsent: UInt64?

    init(clock: FreshnessClock = FreshnessClock.current) {
        self.clock = clock
    }

    /// The counter's value and the time, taken before a check of the file.
    struct Mark: Sendable {
        fileprivate let generation: UInt64
        fileprivate let time: UInt64
    }

    /// Whether the cached value may be used without checking the file.
    @inline(__always)
    func isCurrent() -> Bool {
        guard let checked, generation?.load() == checked.generation else { return false }
        return clock.now() &- checked.time < Self.revalidationInterval
    }

    /// `nil` without a counter.
    func mark() -> Mark? {
        generation.map { Mark(generation: $0.load(), time: clock.now()) }
    }

    mutating func record(_ mark: Mark?) {
        checked = mark
    }

    /// Forgets the last check: the next read checks the file.
    mutating func invalidate() {
        checked = nil
    }

    /// Records this process's own write: when `previous` (what the write's increment returned)
    /// is `mark`'s, nobody else counted since and the written value is current at `previous + 1`.
    mutating func recordOwnWrite(after mark: Mark?, previous: UInt64?) {
        if let mark, let previous, previous == mark.generation {
            checked = Mark(generation: previous &+ 1, time: mark.time)
        } else {
            checked = nil
        }
    }

    /// Maps the counter of `lockPath` unless done or unsupported, before a check of the file's
    /// stamp; `create` creates a missing lock file (`creatingDirectory`: its directory too), so
    /// reads of a file nobody wrote need no `stat`. A missing one is looked for again at most
    /// once per ``revalidationInterval``.
    mutating func attach(lockPath: String, in fileSystem: some FileSystem, create: Bool, creatingDirectory: Bool = true) {
        guard generation == nil, !isUnsupported else { return }
        if let lastAbsent, clock.now() &- lastAbsent < Self.revalidationInterval { return }
        var lookup = fileSystem.sharedGeneration(forLockFile: lockPath, create: create)
        if case .absent = lookup, create, creatingDirectory, Self.makeDirectory(of: lockPath, in: fileSystem) {
            lookup = fileSystem.sharedGeneration(forLockFile: lockPath, create: true)
        }
        switch lookup {
        case let .shared(counter):
            generation = counter
            lastAbsent = nil
        case .absent: lastAbsent = clock.now()
        case .unsupported: isUnsupported = true
        }
    }

    /// Creates the directory of `lockPath`; whether it now exists. A failure is not an error
    /// here: reads then check with a `stat`, and the first write reports it.
    private static func makeDirectory(of lockPath: String, in fileSystem: some FileSystem) -> Bool {
        do {
            try AtomicFileWriter.createDirectory(AtomicFileWriter.directory(of: lockPath), in: fileSystem)
            return true
        } catch {
            return false
        }
    }

    /// Drops the mapped counter when the lock file was replaced, so the next check maps the new one.
    mutating func checkIdentity(lockPath: String, in fileSystem: some FileSystem) {
        guard let identity = generation?.identity else { return }
        let status: FileStatus?
        do {
            status = try fileSystem.status(of: lockPath)
        } catch {
            status = nil
        }
        if status?.stamp.device != identity.device || status?.stamp.inode != identity.inode {
            generation = nil
            checked = nil
        }
    }
}

/// The clock of ``FileFreshness/revalidationInterval``: a coarse monotonic clock, or the one a
/// test binds (`FreshnessClock.$current.withValue(.on(manualClock)) { … }`) while it creates
/// stores and file states, which keep it.
package struct FreshnessClock: Sendable {
    /// Nanoseconds since some fixed start; `nil` for the system's coarse monotonic clock.
    private let reading: (@Sendable () -> UInt64)?

    /// The clock of stores and file states created in this task (and the tasks it creates).
    @TaskLocal package static var current = FreshnessClock(reading: nil)

    /// `clock`, counted in nanoseconds from its time now.
    package static func on<C: Clock<Duration>>(_ clock: C) -> FreshnessClock {
        let start = clock.now
        return FreshnessClock {
            let elapsed = start.duration(to: clock.now).components
            return UInt64(max(elapsed.seconds, 0)) &* 1_000_000_000 &+ UInt64(max(elapsed.attoseconds, 0) / 1_000_000_000)
        }
    }

    private init(reading: (@Sendable () -> UInt64)?) {
        self.reading = reading
    }

    @inline(__always)
    func now() -> UInt64 {
        if let reading { return reading() }
        return Self.systemNow()
    }

    /// Monotonic nanoseconds without a system call (a resolution of milliseconds suffices).
    @inline(__always)
    private static func systemNow() -> UInt64 {
        var time = timespec()
        #if os(Linux)
        clock_gettime(CLOCK_MONOTONIC_COARSE, &time)
        #else
        clock_gettime(CLOCK_MONOTONIC_RAW_APPROX, &time)
        #endif
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}

/// A 64-bit counter every process using one file shares: writers add one after each change, so
/// a reader learns "nothing changed" from one atomic load instead of a `stat`. On disk it is the
/// first 8 bytes of the file's `.lock` sibling, mapped shared; in memory, a process-local word.
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

    @inline(__always)
    package func load() -> UInt64 {
        counter.pointee.load(ordering: .acquiring)
    }

    /// Adds one and returns the value before; `nil` for a read-only mapping (a process that can't
    /// write the lock file can't write the file either).
    @discardableResult
    package func increment() -> UInt64? {
        if case .mapped(_, false) = storage { return nil }
        return counter.pointee.wrappingAdd(1, ordering: .sequentiallyConsistent).oldValue
    }
}

/// What ``FileSystem/sharedGeneration(forLockFile:create:)`` found.
package enum SharedGenerationLookup: Sendable {
    case shared(SharedGeneration)
    /// The lock file does not exist (and was not to be created): nobody relies on a counter yet.
    case absent
    /// No counter can be shared for this file (a network file system, no permission, no
    /// shared mappings): readers check the file's stamp on every read.
    case unsupported
}
