/// The `\.fileManager` a ``FileStateEntry`` uses, resolved, with the files it can examine itself
/// found once (``FileManaging/localFiles``): a cast on every read would cost more than the rest
/// of a read that finds nothing changed. A class, so that handing it out is one retain.
final class ResolvedFiles: Sendable {
    let manager: any FileManaging
    /// `manager`'s files, or `nil` for a file manager of the user's.
    let local: LocalFiles?

    init(_ manager: any FileManaging) {
        self.manager = manager
        self.local = manager.localFiles
    }
}
