/// The file operations a ``FileStateEntry`` uses, with the owner of the generation counters they
/// announce writes on (``FileStateFreshness/owner(of:)``) found once, when they are resolved:
/// finding it on every read costs more than the rest of a read that finds nothing changed.
/// A class, so that handing it out is one retain.
final class ResolvedFiles: Sendable {
    let files: any AtomicFileManaging
    let freshnessOwner: ObjectIdentifier?

    init(_ files: any AtomicFileManaging) {
        self.files = files
        self.freshnessOwner = FileStateFreshness.owner(of: files)
    }
}
