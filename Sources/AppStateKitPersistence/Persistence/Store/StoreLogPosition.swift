import AppStateKitCore
/// How far a ``FileKeyValueStore``'s cache has read its log (see ``StoreLog``).
struct StoreLogPosition: Equatable {
    /// The log file's device and inode, to notice it was replaced.
    var device: UInt64
    var inode: UInt64
    /// The log's epoch, from its header; `nil` when the header is not a log header.
    var epoch: UInt64?
    /// The log's frame version, from its header (see ``StoreLog``); 2 for a log this version
    /// created.
    var version = 2
    /// Where the next record starts: the end of the last complete record applied.
    var consumed: Int
    /// Why the log can't be read past `consumed` although more follows (a bad header, a bad
    /// record in the middle); the next write moves the log aside.
    var corruption: String?

    /// Whether `stamp` is the stamp of this log file (possibly grown).
    func isSameFile(as stamp: FileStamp) -> Bool {
        stamp.device == device && stamp.inode == inode
    }
}
