/// One persisted entry's memo of a collaborator it resolves through its ``EntryOwner`` on every
/// access (`\.userDefaults`, `\.fileManager`), so a read that finds nothing changed skips the
/// dependency lookup (building and hashing its key, probing the thread's memo).
///
/// The memo is valid while nothing could make the owner resolve another value:
///
/// - the dependency entry's `version` is unchanged (it moves on every promotion, global
///   override, cancelled override and in-place change of that entry);
/// - the owning registry's `stamp` is unchanged (it moves whenever any entry is removed, so a
///   removed and re-created dependency is resolved again);
/// - the calling task's scopes don't override the dependency's key (a value a scope provides is
///   never memoised).
///
/// `Value` is what the entry keeps: the dependency's value or something derived from it once
/// (a file manager's atomic operations).
final class DependencyMemo<Value: Sendable>: Sendable {
    /// The last resolution, replaced whole and read without a lock: a read that finds nothing
    /// changed takes no lock (see ``ReadMostlyReference``).
    private let resolved = ReadMostlyReference<Resolved>()

    private final class Resolved: @unchecked Sendable {
        // Safe: immutable; `version` reads an atomic counter that `entry` keeps alive.
        /// The dependency entry, which owns the counter `version` reads.
        let entry: RegistryEntry
        let version: AtomicWord.View
        /// The entry's version when `value` was taken.
        let seenVersion: UInt64
        /// The owning registry's stamp before the entry was looked up.
        let registryStamp: UInt64
        let value: Value

        init(entry: RegistryEntry, version: AtomicWord.View, seenVersion: UInt64, registryStamp: UInt64, value: Value) {
            self.entry = entry
            self.version = version
            self.seenVersion = seenVersion
            self.registryStamp = registryStamp
            self.value = value
        }
    }

    init() {}

    /// The memoised value, if it is still what the owner resolves: `registryStamp` is the
    /// owning registry's current stamp, `context` the calling task's scope when it overrides
    /// any dependency.
    @inline(__always)
    func value(registryStamp: UInt64, context: TaskContext?) -> Value? {
        resolved.withObject(none: nil) { resolved in
            guard resolved.registryStamp == registryStamp,
                resolved.version.loadRelaxed() == resolved.seenVersion
            else { return nil }
            if let context, context.overriddenValue(for: resolved.entry.key) != nil { return nil }
            // Observers of the reading entry see the collaborator's changes, as without the memo.
            resolved.entry.trackAccess()
            return resolved.value
        }
    }

    /// Remembers `value`, derived from what `entry` published at `version`, looked up when the
    /// owning registry's stamp was `registryStamp`.
    func remember<Dependency: Sendable>(_ value: Value, of entry: DependencyEntry<Dependency>, version: UInt64, registryStamp: UInt64) {
        let fresh = Resolved(entry: entry, version: entry.version.view, seenVersion: version, registryStamp: registryStamp, value: value)
        // The previous resolution is released once no read uses it, after the reference's lock
        // (its value's deinit may run user code).
        resolved.replace(with: fresh)
    }
}
