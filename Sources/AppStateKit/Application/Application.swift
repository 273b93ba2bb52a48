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

    /// The registry the next `init(setup:)` on this task adopts (set by `promote(to:)`).
    @TaskLocal static var promotedRegistry: Registry?

    /// A plain instance over an existing registry, through which an entry resolves its
    /// collaborators in the application that owns it (see `EntryOwner`). Runs no setup.
    init(resolvingIn registry: Registry) {
        self.registry = registry
    }
}

extension Application {
    /// The process-wide instance. Replaced by ``promote(to:)``.
    @inlinable
    static var shared: Application {
        get {
            SharedApplication.withShared { $0 }
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
    /// Replaced instances, kept as the reference's policy requires; its lock also serialises
    /// publishing.
    private static let retired = LockedBox<[Application]>([])

    /// Runs `body` with the shared instance, publishing the first one if needed, without
    /// retaining it.
    ///
    /// Every handle's first step, so its shape is measured (instructions per operation,
    /// `Benchmarks/Baselines/instructions.txt`): the zero check and the first publication stay
    /// here, and ``PublishedReference/withObject(at:_:)`` takes a throwing `body`. The plain
    /// spelling — `body(word == 0 ? publishInitial() : object)` — measured 90 more instructions
    /// per State read (retains and releases of the shared instance around the handle's
    /// creation, which every thread would write). `.ci/steps/45-instruction-guard.sh` fails if
    /// a toolchain brings them back.
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
        return retired.withLock { _ in Reference.publishIfAbsent(instance, in: bits) }
    }

    @usableFromInline
    static func replace(with application: Application) {
        retired.withLock { retired in
            if let old = Reference.replace(with: application, in: bits) { retired.append(old) }
        }
    }
}
