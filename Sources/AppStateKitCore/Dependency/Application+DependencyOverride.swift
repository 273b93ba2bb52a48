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
    /// override.cancel()
    /// ```
    ///
    /// In an `async` function write `await override.cancel()`, as with AppState, whose `cancel()`
    /// is `async`; from synchronous code (including `defer` blocks) the call needs no `await`.
    public final class DependencyOverride: Sendable {
        private let restore: @Sendable () -> Void
        private let isCancelled = Atomic<Bool>(false)
        /// The overridden entry, named in debug messages.
        private let entry: any RegistryEntry

        /// The override `token` of `entry`.
        init<Value: Sendable>(entry: DependencyEntry<Value>, token: UInt64) {
            restore = { entry.removeOverride(token) }
            self.entry = entry
            Application.logDebug("installed an override of \(DependencyOverride.subject(entry))")
        }

        /// Removes the override. Calling it again does nothing.
        ///
        /// Inside an `async` function Swift picks the `async` form instead, so there the call is
        /// written `await override.cancel()`.
        public func cancel() {
            removeOverride()
        }

        /// Removes the override: the form an `async` function calls, written
        /// `await override.cancel()` as with AppState. Calling it again does nothing.
        ///
        /// It suspends nowhere; it exists so that AppState code, whose `cancel()` is `async`,
        /// compiles without a "no 'async' operations occur within 'await'" warning.
        public func cancel() async {
            removeOverride()
        }

        private func removeOverride() {
            guard !isCancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
            restore()
            Application.logDebug("cancelled an override of \(DependencyOverride.subject(entry))")
        }

        /// `Dependency<Type> Feature.id`, as ``Application/description`` names the entry.
        static func subject(_ entry: any RegistryEntry) -> String {
            "\(entry.kindName)<\(entry.valueTypeName)> \(entry.key.readable)"
        }

        deinit {
            removeOverride()
        }
    }
}
