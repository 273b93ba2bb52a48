extension Application {
    /// Tells every observer and change stream of this application's entries that their entry
    /// changed — for changes AppStateKit can't see, typically a stored or file state rewritten
    /// by another process: `withObservationTracking` observers fire, and every
    /// ``values(of:pollInterval:)`` stream reads its entry again now rather than at its next poll.
    ///
    /// ```swift
    /// final class Server: Application {
    ///     func configurationFilesChanged() { notifyChange() }
    /// }
    /// ```
    ///
    /// Callable from any thread. One pass over the application's entries; observers run on the
    /// calling thread, after the registry's lock is released.
    public func notifyChange() {
        for entry in registry.allEntries {
            entry.notifyingObservers {}
        }
    }

    /// ``notifyChange()-swift.method`` for the application serving the calling task (the
    /// isolated one inside an isolation scope, otherwise the shared one): code that holds no
    /// application instance, such as a signal handler or an admin endpoint, calls this one.
    ///
    /// ```swift
    /// Application.notifyChange()
    /// ```
    public static func notifyChange() {
        current.notifyChange()
    }

    /// The number of live change streams watching the state at `keyPath`, for leak checks in
    /// tests. A stream counts from the moment its loop starts (`makeAsyncIterator()`) until it
    /// ends or is dropped.
    package static func changeStreamCount<S: MutableApplicationState>(of keyPath: KeyPath<Application, S>) -> Int {
        guard let entry = (current[keyPath: keyPath] as? any EntryBacked)?.registryEntry else { return 0 }
        return ChangeSubscriptions.count(of: entry)
    }

    /// The number of live change streams watching the state at `keyPath` that were woken and
    /// haven't read the value since, for tests: a writer signals synchronously, so a test can
    /// check right after a write that it woke no stream, with no sleep.
    package static func changeStreamsWithPendingChange<S: MutableApplicationState>(of keyPath: KeyPath<Application, S>) -> Int {
        guard let entry = (current[keyPath: keyPath] as? any EntryBacked)?.registryEntry else { return 0 }
        return ChangeSubscriptions.pendingCount(of: entry)
    }
}
