import Synchronization

/// The registry of an app's shared state and dependencies.
///
/// Declare entries as computed properties in extensions of `Application` and reach them through
/// key paths from anywhere — any thread, task or actor:
///
/// ```swift
/// extension Application {
///     var counter: State<Int> { state(initial: 0) }
///     var api: Dependency<APIClient> { dependency(LiveAPIClient()) }
/// }
///
/// Application.update(\.counter) { $0 += 1 }
/// let api = Application.dependency(\.api)
/// ```
///
/// Entries are created on first access and cached until removed (``remove(_:)``). One instance,
/// the shared application, serves the whole process; ``promote(to:)`` replaces it with an
/// instance of a subclass, carrying every existing entry over.
///
/// `Application` is deliberately not `Sendable`, so subclasses need no annotations; every
/// static entry point is nonetheless safe to call from any thread, because the instance's only
/// stored property, its registry, synchronises itself.
open class Application {

    /// The entries this application holds.
    @usableFromInline let registry: Registry

    /// Creates an application and runs `setup` on it.
    ///
    /// Subclasses inherit this initializer; `setup` is the place to preload dependencies.
    ///
    /// - Parameter setup: Called once with the new instance.
    public required init(setup: (Application) -> Void = { _ in }) {
        // `promote(to:)` hands its registry over, so both instances share every entry.
        registry = Application.promotedRegistry ?? Registry()
        setup(self)
    }

    /// A plain instance over an existing registry, through which an entry resolves its
    /// collaborators in the application that owns it (see `EntryOwner`). Runs no setup.
    init(resolvingIn registry: Registry) {
        self.registry = registry
    }
}

extension Application {
    /// The application that serves the calling task: the isolated one of an enclosing
    /// isolation scope if there is one, otherwise the process-wide shared instance.
    @inlinable
    static var current: Application {
        if TaskContext.isAnyIsolatedLive, let isolated = TaskContext.currentIsolatedApplication {
            return isolated
        }
        return shared
    }

    /// Runs `body` with the application serving the calling task, without retaining the shared
    /// instance: on the read path, a retain/release pair on the one shared object would make
    /// every thread write the same cache line.
    @inlinable @inline(__always)
    static func withCurrent<Result>(_ body: (Application) -> Result) -> Result {
        if TaskContext.isAnyIsolatedLive, let isolated = TaskContext.currentIsolatedApplication {
            return body(isolated)
        }
        let bits = SharedApplication.bits.load(ordering: .acquiring)
        guard bits != 0 else { return body(SharedApplication.publishInitial()) }
        // Safe: published instances are retained forever (see `PublishedReference`). Written out
        // here rather than as a generic `PublishedReference` function: through one, Swift 6.3.1
        // retains the instance around `body` (+46 instructions per read, measured).
        return Unmanaged<Application>.fromOpaque(UnsafeRawPointer(bitPattern: bits)!)._withUnsafeGuaranteedRef(body)
    }

    /// The process-wide instance. Replaced by ``promote(to:)``.
    @inlinable
    static var shared: Application {
        get {
            SharedApplication.Reference.published(in: SharedApplication.bits) ?? SharedApplication.publishInitial()
        }
        set {
            SharedApplication.replace(with: newValue)
        }
    }
}

/// Storage for ``Application/shared``: a ``PublishedReference`` (one acquiring load to read,
/// every published instance retained for the rest of the process) and the lock that serialises
/// publishing. The first instance is made and published on first use, after which readers never
/// touch the lazily initialised `initial`.
@usableFromInline
enum SharedApplication {
    // Safe: an immutable reference to an instance whose only stored property synchronises itself.
    nonisolated(unsafe) private static let initial = Application()
    @usableFromInline typealias Reference = PublishedReference<Application>
    /// The published instance (see ``PublishedReference``).
    @usableFromInline static let bits = Atomic<UInt>(0)
    private static let lock = Lock()
    // Safe: only touched while `lock` is held. Keeps replaced instances, as the reference's
    // policy requires.
    nonisolated(unsafe) private static var retired: [Application] = []

    /// Publishes the first shared instance unless one already is, and returns the shared instance.
    @usableFromInline
    static func publishInitial() -> Application {
        let instance = initial
        return lock.withLock { Reference.publishIfAbsent(instance, in: bits) }
    }

    @usableFromInline
    static func replace(with application: Application) {
        lock.withLock {
            if let old = Reference.replace(with: application, in: bits) { retired.append(old) }
        }
    }
}
