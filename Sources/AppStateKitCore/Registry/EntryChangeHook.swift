/// How a change of an entry reaches the change streams of `Observation/` without the registry
/// naming them: that layer installs one function, once, before it first raises an entry's
/// ``EntryCore/streamCount``; ``RegistryEntry/didChange()`` calls ``notify(_:)`` only while
/// that count is non-zero.
@usableFromInline
enum EntryChangeHook {
    /// The installed listener; set once.
    private static let listener = LockedBox<(@Sendable (any RegistryEntry) -> Void)?>(nil)

    /// Installs `listener` unless one is installed already.
    static func install(_ listener: @escaping @Sendable (any RegistryEntry) -> Void) {
        self.listener.withLock { installed in
            if installed == nil { installed = listener }
        }
    }

    /// Tells the installed listener, if any, that `entry` changed. Called with no lock held;
    /// out of line, as the cold branch of every write.
    @usableFromInline @inline(never)
    static func notify(_ entry: any RegistryEntry) {
        listener.withLock { $0 }?(entry)
    }
}
