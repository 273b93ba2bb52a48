/// What a ``FileStateEntry`` read keeps for the next read: the value the file held, the
/// generation-counter check that vouches for it (``FileStateFreshness/Check``), and the
/// resolution of `\.fileManager` it was read under.
///
/// Immutable and published whole (a ``ReadMostlyReference``), so the next read checks it with
/// atomic loads and no lock: it returns `value` while the resolution still serves the calling
/// task (no promotion, override, removal or scope changed the file manager) and the check holds
/// (nobody counted a write of the file since, and the check is less than
/// ``FileFreshness/revalidationInterval`` old).
final class KeptFileRead<Value: Sendable>: KeptRead, @unchecked Sendable {
    // Safe: immutable.
    let collaborator: DependencyMemo<ResolvedFiles>.Resolved
    let check: FileStateFreshness.Check
    /// Last, so that the fields before it have fixed offsets in the generic layout.
    let value: Value

    init(collaborator: DependencyMemo<ResolvedFiles>.Resolved, check: FileStateFreshness.Check, value: Value) {
        self.collaborator = collaborator
        self.check = check
        self.value = value
    }

    /// ``KeptRead/isCurrent(for:)``. (The check was made for the file manager the resolution
    /// holds, so its owner matches.)
    @inline(__always)
    func isCurrent(for owner: EntryOwner) -> Bool {
        collaborator.stillServes(owner) && check.freshness.isCurrent()
    }
}
