import Synchronization

/// The registry entry behind an ``Application/Dependency``: the instance the factory created,
/// replaced by ``Application/promote(_:with:)``, with a stack of overrides on top.
///
/// The newest live override wins; cancelling any override, in any order, leaves the newest
/// remaining one or the original.
///
/// Reads are lock-free in the common case: the current instance lives in an immutable box that
/// is replaced (under the lock) on every change, and `version` is bumped afterwards. A thread
/// memoises the box it last read with its version and reuses it while the version is unchanged.
@usableFromInline
final class DependencyEntry<Value: Sendable>: RegistryEntry, @unchecked Sendable {
    // Safe: `original`, `overrides`, `nextToken` and `current` are only accessed while `lock` is
    // held; boxes are immutable; `version` is atomic.
    private let lock = Lock()
    private var original: Value
    private var overrides: [(token: UInt64, value: Value)] = []
    private var nextToken: UInt64 = 0
    private var current: ValueBox<Value>
    @usableFromInline let version = AtomicWord(0)

    @usableFromInline
    init(key: EntryKey, value: Value) {
        self.original = value
        self.current = ValueBox(value)
        super.init(key: key)
    }


    override var kindName: String { "Dependency" }
    override var valueTypeName: String { String(reflecting: Value.self) }
    override var valueDescription: String { String(describing: value) }

    /// The newest override, or the original instance.
    @usableFromInline
    var value: Value {
        trackAccess()
        return lock.withLock { current.value }
    }

    /// The current box and the version it was published at.
    @usableFromInline
    func snapshot() -> (ValueBox<Value>, UInt64) {
        lock.withLock { (current, version.loadRelaxed()) }
    }

    /// The current instance, served from the calling thread's memo `slot` when still valid.
    @inlinable
    func value(memoizedIn slot: ThreadLookupCache.Slot) -> Value {
        trackAccess()
        let latest = version.loadAcquiring()
        if let box = slot.memoizedSnapshot(at: latest, as: ValueBox<Value>.self) {
            return box.value
        }
        let (box, boxVersion) = snapshot()
        slot.memoize(box, at: boxVersion)
        return box.value
    }

    /// Puts `value` on top of the override stack and returns the token that removes it.
    func pushOverride(_ value: Value) -> UInt64 {
        notifyingObservers {
            lock.withLock {
                nextToken += 1
                overrides.append((nextToken, value))
                publish(value)
                return nextToken
            }
        }
    }

    /// Removes the override `token` added; does nothing if it is already gone.
    func removeOverride(_ token: UInt64) {
        notifyingObservers {
            lock.withLock {
                overrides.removeAll { $0.token == token }
                publish(overrides.last?.value ?? original)
            }
        }
    }

    /// Replaces the original instance for good (overrides, if any, stay on top).
    func promote(to value: Value) {
        notifyingObservers {
            lock.withLock {
                original = value
                if overrides.isEmpty { publish(value) }
            }
        }
    }

    /// Runs `body` on the current instance in place (for writable dependency slices of value types).
    func modifyCurrent(_ body: (inout Value) -> Void) {
        notifyingObservers {
            lock.withLock {
                if overrides.isEmpty {
                    body(&original)
                    publish(original)
                } else {
                    body(&overrides[overrides.count - 1].value)
                    publish(overrides[overrides.count - 1].value)
                }
            }
        }
    }

    /// Makes `value` the current instance. Called with `lock` held.
    private func publish(_ value: Value) {
        current = ValueBox(value)
        version.incrementReleasing()
    }
}
