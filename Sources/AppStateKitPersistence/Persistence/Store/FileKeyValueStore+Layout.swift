import AppStateKitCore
extension FileKeyValueStore {
    /// How a store keeps its keys on disk: what a write costs, and who can read the file. Every
    /// layout reads either, so processes choosing different layouts for one store lose nothing.
    public enum Layout: Sendable, Equatable {
        /// One JSON file, replaced atomically by every write: a write costs encoding, writing and
        /// `fsync`ing the whole store. Earlier versions of AppStateKit and other programs read
        /// the file and see every write. The default. (A write to a store that has a log, which
        /// another process chose, appends to it, then folds it into the file and removes it.)
        case singleFile
        /// The JSON file plus an append-only log beside it (`<file>.log`): a write appends one
        /// record of its own changes and `fsync`s it, so it costs the same however large the
        /// store is; the log is folded into the file when it outgrows it.
        ///
        /// The trade-off: the file alone is no longer the store. Earlier versions of
        /// AppStateKit and other programs reading the file see writes only up to the last
        /// compaction, and a write by an earlier version can be overridden by an older value
        /// still in the log. Choose it only when every process writing the store uses this
        /// version or later.
        case appendOnlyLog
    }
}
