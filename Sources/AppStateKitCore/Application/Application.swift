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
/// Entries are created on first access and cached until removed (``remove(state:)``). One instance,
/// the shared application, serves the whole process; ``promote(to:)`` replaces it with an
/// instance of a subclass, carrying every existing entry over.
///
/// `Application` is deliberately not `Sendable`, so subclasses need no annotations; every
/// static entry point is nonetheless safe to call from any thread, because the instance's only
/// stored property, its registry, synchronises itself.
open class Application {
    /// The entries this application holds.
    @usableFromInline package let registry: Registry

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
    /// collaborators (see `EntryOwner`). Runs no setup.
    package init(resolvingIn registry: Registry) {
        self.registry = registry
    }
}
