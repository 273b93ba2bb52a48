/// What a ``FileStateEntry`` knows of its file, next to the value the file held
/// (``FileStateEntry/kept``).
struct FileReadCheck {
    /// Whether the value next to this is the file's as of ``knownStamp``.
    var hasKnown = false
    /// The stamp of the file when its value was last read or written; `nil`: no file.
    var knownStamp: FileStamp?
    /// The stamp of a file found undecodable: its bytes are moved aside before the next write.
    var corruptStamp: FileStamp?
    /// Whether the known value is still the file's without a `stat`.
    var freshness: FileFreshness
    /// The files (``LocalFiles/counterOwner``) `freshness` counts for; another file manager
    /// starts over.
    var counterOwner: ObjectIdentifier?
    /// The `\.fileManager` resolution the freshness check was recorded under; `nil`: reads
    /// check the file.
    var collaborator: CollaboratorCheck?

    /// Whether the known value is still what a read by `owner`'s entry returns for the calling
    /// task: the same file manager would be resolved and the freshness check holds.
    @inline(__always)
    func holds(for owner: EntryOwner) -> Bool {
        // Optional chaining rather than binding: binding would retain.
        hasKnown && freshness.isCurrent() && collaborator?.holds(for: owner) == true
    }
}
