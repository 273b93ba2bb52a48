import Foundation

/// Keeping the cache in step with the file.
extension FileKeyValueStore {
    /// Checks the file's stamp and re-reads the file when it changed. Called with `lock` held; a
    /// failure leaves the cache as it was and throws. Debug messages are added to `notes`, to be
    /// logged after the lock is released.
    ///
    /// Maps the generation counter once the file exists, and records the counter's value taken
    /// *before* the `stat`, so a write counted after it is never mistaken for seen.
    func reloadIfChanged(_ notes: inout [Note]) throws {
        // Map the counter (creating the lock file if the directory exists: never a directory,
        // never the store file), or check the mapped one is still the lock file's.
        if cache.freshness.generation == nil {
            cache.freshness.attach(lockPath: lockPath, in: fileSystem, create: true)
        } else {
            cache.freshness.checkIdentity(lockPath: lockPath, in: fileSystem)
        }
        let mark = cache.freshness.mark()
        let stamp = isPOSIX
            ? try FileStamp.ofExistingFile(atPath: path, in: POSIXFileSystem())
            : try FileStamp.ofExistingFile(atPath: path, in: fileSystem)
        guard stamp != cache.stamp || (stamp == nil && !cache.entries.isEmpty) else {
            cache.freshness.record(mark)
            return
        }
        guard stamp != nil, let data = try AtomicFileWriter.read(path, in: fileSystem) else {
            cache = Cache(freshness: cache.freshness)
            cache.freshness.record(mark)
            return
        }
        var reloaded = Cache(stamp: stamp, freshness: cache.freshness)
        if data.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            reloaded.corruption = "the file is empty"
        } else {
            do {
                reloaded.entries = try JSONDecoder().decode([String: StoreEntry].self, from: data)
            } catch {
                reloaded.corruption = "the file is not a JSON object of entries (\(shortDescription(of: error)))"
            }
        }
        reloaded.freshness.record(mark)
        cache = reloaded
        let damaged = reloaded.entries.values.filter { if case .damaged = $0 { true } else { false } }.count
        let count = reloaded.entries.count
        let summary = reloaded.corruption == nil ? "\(count) \(count == 1 ? "key" : "keys"), \(damaged) unreadable" : "corrupt"
        notes.append(.debug("AppStateKit: reloaded the store \(path) (\(summary))"))
    }
}
