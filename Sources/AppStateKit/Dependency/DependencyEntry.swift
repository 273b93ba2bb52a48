import Synchronization

/// The registry entry behind an ``Application/Dependency``: the instance the factory created,
/// replaced by ``Application/promote(_:with:)``, with a stack of overrides on top.
///
/// The newest live override wins; cancelling any override, in any order, leaves the newest
/// remaining one or the instance.
///
/// A global override of a dependency that doesn't exist yet creates its entry without an
/// instance (see `DependencyEntry+Replacement.swift`), so the factory doesn't run. While the entry
/// has neither an instance nor an override — its last override went before anything gave it an
/// instance — it has no value: the next read runs the factory it passes
/// (``value(memoizedIn:_:)``) and installs the result, once, through the registry's
/// single-flight creation (``Registry/fill(_:isFilled:fill:)``), exactly as a first use creates
/// an entry. The entry itself stays in the registry throughout, so whoever keeps it (a
/// SyncState coordinator keeps `\.syncStore`'s) keeps following it.
///
/// Reads are lock-free in the common case: the current instance lives in an immutable box that
/// is replaced (under the lock) on every change, and `version` is bumped afterwards. A thread
/// memoises the box it last read with its version and reuses it while the version is unchanged.
@usableFromInline
final class DependencyEntry<Value: Sendable>: RegistryEntry, @unchecked Sendable {
    // Safe: `instance`, `overrides`, `nextToken` and `current` are only accessed while `lock`
    // is held; boxes are immutable; `version` and `lacksValue` are atomic. A bare lock rather
    // than a `LockedBox<Storage>`: the box's type depends on `Value`, so unspecialised code (a
    // creation, a scoped override's key capture) looked its metadata up on every access
    // (`scoped-override` measured 17,219 instructions with the box, 15,394 without).
    private let lock = Lock()
    /// The factory's or a promoted instance; `nil` until one of them provides it.
    private var instance: Value?
    private var overrides: [(token: UInt64, value: Value)] = []
    private var nextToken: UInt64 = 0
    /// The newest override or the instance; `nil` while the entry has no value.
    private var current: ValueBox<Value>?
    @usableFromInline let version = AtomicWord(0)
    /// 1 while `current` is `nil`: read under the registry's lock by a fill
    /// (``Registry/fill(_:isFilled:fill:)``), which may only load atomics there.
    private let lacksValue = AtomicWord(0)

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
    override var valueDescription: String {
        lock.withLock { current }.map { String(describing: $0.value) } ?? "(not created yet)"
    }
    override var awaitsValue: Bool { lacksValue.loadAcquiring() != 0 }

    /// The current box and the version it was published at; `nil` while the entry has no value
    /// (see the type's comment).
    @usableFromInline
    func snapshot() -> (box: ValueBox<Value>, version: UInt64)? {
        lock.withLock { current.map { ($0, version.loadRelaxed()) } }
    }

    /// The current box and the version it was published at, after `fill` — a read of the
    /// dependency's declaration, which gives an entry without a value its instance — if needed:
    /// for holders of the entry who have no factory to pass.
    func snapshot(filling fill: () -> Void) -> (box: ValueBox<Value>, version: UInt64) {
        while true {
            if let snapshot = snapshot() { return snapshot }
            fill()
        }
    }

    /// The current instance, served from the calling thread's memo `slot` when still valid;
    /// created with `object` if the entry has no value.
    @inlinable
    func value(memoizedIn slot: ThreadLookupCache.Slot, _ object: () -> Value) -> Value {
        trackAccess()
        let latest = version.loadAcquiring()
        if let box = slot.memoizedSnapshot(at: latest, as: ValueBox<Value>.self) {
            return box.value
        }
        if let snapshot = snapshot() {
            slot.memoize(snapshot.box, at: snapshot.version)
            return snapshot.box.value
        }
        return filledValue(in: slot.registry, object)
    }

    /// The value of an entry that had none when read. Inside a scope that overrides something,
    /// the scope creates it as it creates a missing dependency
    /// (``ScopedOverride/scopedDependency(for:in:create:publish:)``: kept for the scope if the
    /// factory read an override); otherwise `object` runs through the registry's single flight
    /// and its result becomes the instance.
    @usableFromInline
    func filledValue(in registry: Registry?, _ object: () -> Value) -> Value {
        guard let registry else {
            // Only a key capture makes entries outside a registry, and those have a value.
            preconditionFailure("AppStateKit: internal error: \(key.readable) has no value and no registry")
        }
        if !OverrideCensus.isEmpty, let overrides = TaskContext.currentOverrides,
            let scoped = overrides.scopedDependency(
                for: key,
                in: registry,
                create: object,
                publish: { made, _, registry in filled(in: registry) { made } }
            ) {
            return scoped
        }
        return filled(in: registry, object)
    }

    /// The current instance, or `made` installed as the instance if the entry has no value (a
    /// dependency a scope created and found independent of its overrides).
    func published(_ made: Value, in registry: Registry) -> Value {
        filled(in: registry) { made }
    }

    /// The current value, after running `object` once through `registry`'s single flight and
    /// installing its result if the entry has no value.
    private func filled(in registry: Registry, _ object: () -> Value) -> Value {
        while true {
            if let snapshot = snapshot() { return snapshot.box.value }
            registry.fill(key, isFilled: { lacksValue.loadAcquiring() == 0 }) {
                let made = object()
                notifyingObservers {
                    lock.withLock {
                        // A promotion while the factory ran gave the entry its instance already.
                        guard instance == nil else { return }
                        instance = made
                        if overrides.isEmpty { publish(made) }
                    }
                }
                Application.announceCreation(of: self)
            }
        }
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

    /// Removes the override `token` added; does nothing if it is already gone. If the entry
    /// has no instance, removing its last override leaves it without a value.
    func removeOverride(_ token: UInt64) {
        notifyingObservers {
            lock.withLock {
                overrides.removeAll { $0.token == token }
                publish(overrides.last?.value ?? instance)
            }
        }
    }

    /// Replaces the instance for good (overrides, if any, stay on top).
    func promote(to value: Value) {
        notifyingObservers {
            lock.withLock {
                instance = value
                if overrides.isEmpty { publish(value) }
            }
        }
    }

    /// Runs `body` on the current instance in place (for writable dependency slices of value
    /// types). An entry without a value has nothing to change: the write raced the cancellation
    /// of the override it would have changed, and is dropped with it.
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

    /// Makes `value` the current instance, or leaves the entry without a value for `nil`.
    /// Called with `lock` held.
    private func publish(_ value: Value?) {
        current = value.map { ValueBox($0) }
        lacksValue.storeSequentiallyConsistent(value == nil ? 1 : 0)
        version.incrementReleasing()
    }
}
