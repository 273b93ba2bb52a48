/// What tells a persisted entry that the collaborator it resolved through its ``EntryOwner``
/// (`\.userDefaults`, `\.fileManager`) is still what the owner resolves, without resolving it
/// again (building and hashing its key, looking it up): the dependency entry's `version` is
/// unchanged (it moves on every promotion, global override, cancelled override and in-place
/// change of that entry), the owning registry's `stamp` is unchanged (it moves whenever any
/// entry is removed, so a removed and re-created dependency is resolved again), and the calling
/// task's scopes don't override the dependency. A value a scope provides gets no check.
///
/// Made by ``EntryOwner/resolution(_:for:)``, checked with ``holds(for:)``.
struct CollaboratorCheck: Sendable {
    /// The dependency entry, which owns the counter `version` reads.
    let entry: RegistryEntry
    let version: AtomicWord.View
    /// The entry's version when the value was taken.
    let seenVersion: UInt64
    /// The owning registry's stamp before the entry was looked up.
    let registryStamp: UInt64

    /// Whether the resolution, made by `owner`, still holds for the calling task. Used outside
    /// the owner's application (a handle of an application that doesn't serve the calling
    /// task), it checks against the owner's registry, which is where the entry resolves then.
    @inline(__always)
    func holds(for owner: EntryOwner) -> Bool {
        guard let stamp = owner.currentRegistryStamp() else { return false }
        return holds(registryStamp: stamp)
    }

    /// Whether the resolution still holds, `registryStamp` being the owning registry's current
    /// stamp. Registers an observation-tracking access of the dependency entry when it holds, so
    /// observers of the reading entry see the collaborator's changes.
    @inline(__always)
    func holds(registryStamp: UInt64) -> Bool {
        guard self.registryStamp == registryStamp, version.loadRelaxed() == seenVersion else { return false }
        // Asks the calling task's scope only if some live scope may override the entry.
        if !OverrideCensus.isEmpty, OverrideCensus.mayOverride(fastHash: entry.key.fastHash),
            TaskContext.currentOverrides?.find(entry.key) != nil {
            return false
        }
        entry.trackAccess()
        return true
    }
}
