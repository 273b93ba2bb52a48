#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A per-thread memo of registry lookups, so that reading an existing entry takes no lock and
/// touches no memory shared with other threads.
///
/// Entries are only ever added to a registry, never removed or replaced, so a remembered
/// lookup stays valid for the registry's life. The memo serves one registry at a time (by
/// serial number, which unlike an address is never reused); touching another registry starts
/// it afresh. Each slot can also memoise a dependency's current instance together with the
/// entry version it was read at (see `DependencyEntry`).
@usableFromInline
final class ThreadLookupCache {
    /// A remembered lookup.
    @usableFromInline
    final class Slot {
        @usableFromInline let entry: RegistryEntry
        /// A snapshot of the entry's value box, valid while the entry's version equals `version`.
        @exclusivity(unchecked) @usableFromInline var snapshot: AnyObject?
        @exclusivity(unchecked) @usableFromInline var version: UInt64 = .max

        @usableFromInline
        init(entry: RegistryEntry) {
            self.entry = entry
        }
    }

    @exclusivity(unchecked) @usableFromInline var registrySerial: UInt64 = 0
    @exclusivity(unchecked) @usableFromInline var slots: [EntryKey: Slot] = [:]

    @usableFromInline
    init() {}

    /// The calling thread's memo.
    @inlinable
    static var current: ThreadLookupCache {
        if let pointer = pthread_getspecific(threadKey) {
            return Unmanaged<ThreadLookupCache>.fromOpaque(pointer).takeUnretainedValue()
        }
        let cache = ThreadLookupCache()
        pthread_setspecific(threadKey, Unmanaged.passRetained(cache).toOpaque())
        return cache
    }

    @inlinable
    func slot(for key: EntryKey, registrySerial serial: UInt64) -> Slot? {
        guard registrySerial == serial else { return nil }
        return slots[key]
    }

    @usableFromInline
    func remember(_ entry: RegistryEntry, for key: EntryKey, registrySerial serial: UInt64) -> Slot {
        if registrySerial != serial {
            registrySerial = serial
            slots.removeAll()
        }
        let slot = Slot(entry: entry)
        slots[key] = slot
        return slot
    }

    /// The pthread key of the memo; its destructor releases a thread's memo when the thread exits.
    @usableFromInline
    static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            Unmanaged<ThreadLookupCache>.fromOpaque(pointer).release()
            #else
            if let pointer { Unmanaged<ThreadLookupCache>.fromOpaque(pointer).release() }
            #endif
        }
        precondition(result == 0, "AppStateKit: pthread_key_create failed with \(result)")
        return key
    }()
}
