import Synchronization

extension Application {
    /// A global dependency override, returned by ``Application/override(_:with:)``.
    ///
    /// Cancel it to restore the previous instance, or let the last reference go. Several
    /// overrides of one key may be cancelled in any order: the newest remaining override, or the
    /// instance, is what everyone sees. If the dependency had no instance yet, the first read
    /// after the last override goes creates it with the factory.
    ///
    /// ```swift
    /// let override = Application.override(\.api, with: MockAPIClient())
    /// // … exercise code that uses \.api …
    /// override.cancel()      // `await override.cancel()` compiles too
    /// ```
    public final class DependencyOverride: Sendable {
        private let restore: @Sendable () -> Void
        private let isCancelled = Atomic<Bool>(false)
        /// The overridden entry, named in debug messages.
        private let entry: RegistryEntry

        /// The override `token` of `entry`.
        init<Value: Sendable>(entry: DependencyEntry<Value>, token: UInt64) {
            restore = { entry.removeOverride(token) }
            self.entry = entry
            Application.logDebug("installed an override of \(DependencyOverride.subject(entry))")
        }

        /// Removes the override. Calling it again does nothing.
        public func cancel() {
            guard !isCancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
            restore()
            Application.logDebug("cancelled an override of \(DependencyOverride.subject(entry))")
        }

        /// `Dependency<Type> Feature.id`, as ``Application/description`` names the entry.
        static func subject(_ entry: RegistryEntry) -> String {
            "\(entry.kindName)<\(entry.valueTypeName)> \(entry.key.readable)"
        }

        deinit {
            cancel()
        }
    }
}
