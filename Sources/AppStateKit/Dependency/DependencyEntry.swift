import Synchronization

/// The registry entry behind an ``Application/Dependency``: the instance the factory created,
/// replaced by ``Application/promote(_:with:)``, with a stack of overrides on top.
///
/// The newest live override wins; cancelling any override, in any order, leaves the newest
/// remaining one or the instance.
///
/// A global override or promotion of a dependency that doesn't exist yet creates its entry
/// without running the factory (see `DependencyEntry+Replacement.swift`). An entry made for an
/// override has no instance until a promotion gives it one; when its last override goes, it
/// *retires*: it takes no further override or promotion and leaves the registry, so the next
/// read creates the dependency with its factory, as a first use does. A read that raced the
/// cancellation and still reached the retired entry gets the last override.
///
/// Reads are lock-free in the common case: the current instance lives in an immutable box that
/// is replaced (under the lock) on every change, and `version` is bumped afterwards. A thread
/// memoises the box it last read with its version and reuses it while the version is unchanged.
@usableFromInline
final class DependencyEntry<Value: Sendable>: RegistryEntry, @unchecked Sendable {
    // Safe: `instance`, `overrides`, `nextToken`, `isRetired` and `current` are only accessed
    // while `lock` is held; boxes are immutable; `version` is atomic.
    private let lock = Lock()
    /// The factory's or a promoted instance; `nil` while only overrides have been set.
    private var instance: Value?
    private var overrides: [(token: UInt64, value: Value)] = []
    private var nextToken: UInt64 = 0
    /// Whether the last override of an entry without an instance went (see the type's comment).
    private var isRetired = false
    private var current: ValueBox<Value>
    @usableFromInline let version = AtomicWord(0)

    @usableFromInline
    init(key: EntryKey, value: Value) {
        self.instance = value
        self.current = ValueBox(value)
        super.init(key: key)
    }

    /// An entry without an instance, overridden with `value`; the override's token is
    /// ``firstOverrideToken``.
    init(key: EntryKey, firstOverride value: Value) {
        self.instance = nil
        self.overrides = [(Self.firstOverrideToken, value)]
        self.nextToken = Self.firstOverrideToken
        self.current = ValueBox(value)
        super.init(key: key)
    }

    /// The token of the override an entry is created with by ``init(key:firstOverride:)``.
    static var firstOverrideToken: UInt64 { 1 }

    override var kindName: String { "Dependency" }
    override var valueTypeName: String { String(reflecting: Value.self) }
    override var valueDescription: String { String(describing: value) }

    /// The newest override, or the instance.
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

    /// Puts `value` on top of the override stack and returns the token that removes it; `nil`
    /// if the entry is retired (it left, or is leaving, the registry: look the key up again).
    func pushOverride(_ value: Value) -> UInt64? {
        notifyingObservers {
            lock.withLock {
                guard !isRetired else { return nil }
                nextToken += 1
                overrides.append((nextToken, value))
                publish(value)
                return nextToken
            }
        }
    }

    /// Removes the override `token` added; does nothing if it is already gone.
    ///
    /// If that leaves an entry without an instance and without overrides, the entry retires and
    /// is removed from `registry` (when it is still that registry's entry), before observers
    /// hear of the change, so their next read creates the dependency with its factory.
    func removeOverride(_ token: UInt64, retiringFrom registry: Registry?) {
        notifyingObservers {
            let retires = lock.withLock {
                overrides.removeAll { $0.token == token }
                if let top = overrides.last?.value ?? instance {
                    publish(top)
                    return false
                }
                // Readers that raced this still see the last override (`current` stays).
                isRetired = true
                return true
            }
            // Outside the entry's lock: the registry's lock is never taken inside an entry's.
            if retires, let registry {
                registry.remove(self)
            }
        }
    }

    /// Replaces the instance for good (overrides, if any, stay on top); returns `false` if the
    /// entry is retired (look the key up again). An entry that has an instance never retires, so
    /// a caller that holds one may ignore the result.
    @discardableResult
    func promote(to value: Value) -> Bool {
        notifyingObservers {
            lock.withLock {
                guard !isRetired else { return false }
                instance = value
                if overrides.isEmpty { publish(value) }
                return true
            }
        }
    }

    /// Runs `body` on the current instance in place (for writable dependency slices of value
    /// types). A retired entry has no instance to change: the write raced the cancellation of
    /// the override it would have changed, and is dropped with it.
    func modifyCurrent(_ body: (inout Value) -> Void) {
        notifyingObservers {
            lock.withLock {
                if !overrides.isEmpty {
                    body(&overrides[overrides.count - 1].value)
                    publish(overrides[overrides.count - 1].value)
                } else if instance != nil {
                    body(&instance!)
                    publish(instance!)
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
