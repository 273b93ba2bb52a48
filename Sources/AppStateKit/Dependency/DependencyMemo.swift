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

    /// One resolution: the value and what it is valid for. Immutable, so a kept read (see
    /// `StoredStateEntry`) can hold the resolution it was made under and check it again later.
    final class Resolved: @unchecked Sendable {
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

        /// Whether `value` is still what the owner resolves: `registryStamp` is the owning
        /// registry's current stamp, and the calling task's scopes must not override the
        /// dependency. Registers an observation-tracking access of the dependency entry when it
        /// holds, so observers of the reading entry see the collaborator's changes.
        @inline(__always)
        func isCurrent(registryStamp: UInt64) -> Bool {
            guard self.registryStamp == registryStamp, version.loadRelaxed() == seenVersion else { return false }
            // Asks the calling task's scope only if some live scope may override the entry (the
            // key read only then: passing it on copies it).
            if !OverrideCensus.isEmpty, OverrideCensus.mayOverride(fastHash: entry.key.fastHash),
                TaskContext.currentOverrides?.find(entry.key) != nil {
                return false
            }
            entry.trackAccess()
            return true
        }
    }

    init() {}

    /// The memoised value, if it is still what the owner resolves: `registryStamp` is the
    /// owning registry's current stamp (see ``Resolved/isCurrent(registryStamp:)``).
    @inline(__always)
    func value(registryStamp: UInt64) -> Value? {
        resolved.withObject(none: nil) { resolved in
            resolved.isCurrent(registryStamp: registryStamp) ? resolved.value : nil
        }
    }

    /// The memoised resolution itself, retained, if it is still what the owner resolves (see
    /// ``value(registryStamp:)``): for a reader that keeps it next to what it read.
    func resolution(registryStamp: UInt64) -> Resolved? {
        resolved.withObject(none: nil) { resolved in
            resolved.isCurrent(registryStamp: registryStamp) ? resolved : nil
        }
    }

    /// Remembers `value`, derived from what `entry` published at `version`, looked up when the
    /// owning registry's stamp was `registryStamp`; returns the resolution it keeps.
    @discardableResult
    func remember<Dependency: Sendable>(_ value: Value, of entry: DependencyEntry<Dependency>, version: UInt64, registryStamp: UInt64) -> Resolved {
        let fresh = Resolved(entry: entry, version: entry.version.view, seenVersion: version, registryStamp: registryStamp, value: value)
        // The previous resolution is released once no read uses it, after the reference's lock
        // (its value's deinit may run user code).
        resolved.replace(with: fresh)
        return fresh
    }
}
