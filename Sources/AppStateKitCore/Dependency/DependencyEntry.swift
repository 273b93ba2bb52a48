import Synchronization

/// The registry entry behind an ``Application/Dependency``: the instance the factory created,
/// replaced by ``Application/promote(_:with:)``, with a stack of overrides on top; the newest
/// live override wins, whatever order they are cancelled in.
///
/// A global override of a dependency that doesn't exist yet creates its entry without an
/// instance, so the factory doesn't run. While the entry has neither an instance nor an
/// override, the next read runs the factory it passes (``value(in:_:)``) once, through the
/// registry's single flight. The entry stays in the registry, so whoever keeps it follows it.
///
/// The current instance lives in an immutable box replaced on every change, and `version` is
/// bumped with it, so whoever remembers a resolution (`CollaboratorCheck`) can tell it is stale.
@usableFromInline
package final class DependencyEntry<Value: Sendable>: RegistryEntry {
    @usableFromInline package let core: EntryCore
    @usableFromInline let state: LockedBox<Storage>
    @usableFromInline package let version = AtomicWord(0)
    /// 1 while the entry has no value (an atomic: a fill reads it under the registry's lock).
    private let lacksValue = AtomicWord(0)

    /// What the entry's lock guards.
    @usableFromInline
    struct Storage: Sendable {
        /// The factory's or a promoted instance; `nil` until one of them provides it.
        var instance: Value?
        var overrides: [(token: UInt64, value: Value)] = []
        var nextToken: UInt64 = 0
        /// The newest override or the instance, boxed; `nil` while the entry has no value.
        @usableFromInline var current: ValueBox<Value>?
    }

    @usableFromInline
    package init(key: EntryKey, value: Value) {
        core = EntryCore(key: key)
        state = LockedBox(Storage(instance: value, current: ValueBox(value)))
    }

    /// An entry without an instance, overridden with `value` (token ``firstOverrideToken``).
    init(key: EntryKey, firstOverride value: Value) {
        core = EntryCore(key: key)
        state = LockedBox(Storage(instance: nil, overrides: [(Self.firstOverrideToken, value)], nextToken: Self.firstOverrideToken, current: ValueBox(value)))
    }

    /// The token of the override an entry is created with by ``init(key:firstOverride:)``.
    static var firstOverrideToken: UInt64 { 1 }

    @usableFromInline package var kindName: String { "Dependency" }
    @usableFromInline package var valueTypeName: String { reflectedTypeName(Value.self) }
    @usableFromInline package var valueDescription: String {
        state.withLock { $0.current }.map { String(describing: $0.value) } ?? "(not created yet)"
    }
    @usableFromInline package var awaitsValue: Bool { lacksValue.loadAcquiring() != 0 }

    /// The current instance and the version it was published at, after `fill` (a read of the
    /// declaration, which gives an entry without a value its instance) if needed: for holders
    /// of the entry who have no factory to pass.
    package func snapshot(filling fill: () -> Void) -> (value: Value, version: UInt64) {
        while true {
            let current = state.withLock { storage in storage.current.map { ($0.value, version.loadRelaxed()) } }
            if let current { return current }
            fill()
        }
    }

    /// The current instance: the newest override, else the created one; runs `object` through
    /// the registry's single flight when the entry has none yet (see ``awaitsValue``).
    @inlinable
    func value(in registry: Registry, _ object: () -> Value) -> Value {
        trackAccess()
        if let value = currentValue() { return value }
        return filledValue(in: registry, object)
    }

    /// The current instance, if the entry has one.
    @inlinable
    func currentValue() -> Value? {
        state.withLock { $0.current?.value }
    }

    @usableFromInline package func makeView(owner: UInt) -> EntryView {
        ValueView<Value>(entry: self, owner: owner, version: version.view)
    }

    /// The current instance through the calling thread's `view` of this entry (access reported
    /// to Observation): the view's copy while ``version`` is unchanged, else read under the
    /// entry's lock and kept. `nil` while the entry has no value.
    @inlinable
    static func value(through view: EntryView) -> (Value, EntryReference)? {
        view.core.trackAccess()
        let reference = EntryReference(fastHash: view.core.key.fastHash, object: ObjectIdentifier(view.entry))
        if let value = Registry.valueView(view, as: Value.self).current { return (value, reference) }
        return Registry.entry(of: view, as: DependencyEntry<Value>.self).refresh(Registry.valueView(view, as: Value.self)).map { ($0, reference) }
    }

    /// Reads the current instance and version under the lock into `view`; returns the instance.
    @usableFromInline
    func refresh(_ view: ValueView<Value>) -> Value? {
        let (value, version) = state.withLock { storage in (storage.current?.value, self.version.loadRelaxed()) }
        if view.owner == ThreadID.current.rawValue { view.keep(value, at: version) }
        return value
    }

    /// Runs the factory for an entry without a value; inside a scope, a factory that depends on
    /// the scope's overrides keeps its instance there.
    @usableFromInline
    func filledValue(in registry: Registry, _ object: () -> Value) -> Value {
        if let scoped = ScopedOverride.scopedDependency(
            for: key,
            in: registry,
            create: object,
            publish: { made, _, registry in filled(in: registry) { made } }
        ) {
            return scoped
        }
        return filled(in: registry, object)
    }

    /// The current value, after running `object` once through `registry`'s single flight and
    /// installing its result if the entry has no value.
    func filled(in registry: Registry, _ object: () -> Value) -> Value {
        while true {
            if let value = currentValue() { return value }
            registry.fill(key, isFilled: { lacksValue.loadAcquiring() == 0 }) {
                let made = object()
                notifyingObservers {
                    change { storage in
                        // A promotion while the factory ran gave the entry its instance already.
                        guard storage.instance == nil else { return storage.current?.value }
                        storage.instance = made
                        return storage.overrides.isEmpty ? made : storage.current?.value
                    }
                }
                Application.announceCreation(of: self)
            }
        }
    }

    /// Puts `value` on top of the override stack and returns the token that removes it.
    func pushOverride(_ value: Value) -> UInt64 {
        var token: UInt64 = 0
        notifyingObservers {
            change { storage in
                storage.nextToken += 1
                token = storage.nextToken
                storage.overrides.append((token, value))
                return value
            }
        }
        return token
    }

    /// Removes the override `token` added; does nothing if it is already gone. If the entry
    /// has no instance, removing its last override leaves it without a value.
    func removeOverride(_ token: UInt64) {
        notifyingObservers {
            change { storage in
                storage.overrides.removeAll { $0.token == token }
                return storage.overrides.last?.value ?? storage.instance
            }
        }
    }

    /// Replaces the instance for good (overrides, if any, stay on top).
    func promote(to value: Value) {
        notifyingObservers {
            change { storage in
                storage.instance = value
                return storage.overrides.isEmpty ? value : storage.current?.value
            }
        }
    }

    /// Runs `body` on the current instance (for writable dependency slices of value types). An
    /// entry without a value has nothing to change: the write raced the cancellation of the
    /// override it would have changed, and is dropped with it, reported with the entry's key.
    ///
    /// `body` — a slice's setter, which may run user code (a computed property reading another
    /// dependency) — runs on a copy with no lock held; the copy replaces the instance only if
    /// nothing changed the entry meanwhile, else `body` runs again on the newer value.
    func modifyCurrent(_ body: (inout Value) -> Void) {
        notifyingObservers {
            while true {
                let read = state.withLock { storage in
                    (storage.overrides.last?.value ?? storage.instance).map { ($0, version.loadRelaxed()) }
                }
                guard let (current, seen) = read else {
                    Diagnostics.report(error: """
                        AppStateKit: a write through a dependency slice of \(key.readable) was dropped: the override it \
                        would have changed was cancelled while it was written, and the dependency has no instance yet
                        """)
                    return
                }
                var changed = current
                body(&changed)
                let landed = change(ifVersion: seen) { storage in
                    if storage.overrides.isEmpty {
                        storage.instance = changed
                    } else {
                        storage.overrides[storage.overrides.count - 1].value = changed
                    }
                    return changed
                }
                if landed { return }
            }
        }
    }

    /// Unless the entry has moved past version `expected` (`nil`: any), applies `body` to the
    /// storage under the entry's lock and makes what it returns the current instance (`nil`:
    /// no value); returns whether it did. Every change bumps the version under the lock, so an
    /// unchanged version means an unchanged storage, and a thread's view whose copy was read at
    /// the current version holds the current instance.
    @discardableResult
    private func change(ifVersion expected: UInt64? = nil, _ body: (inout Storage) -> Value?) -> Bool {
        state.withLock { storage in
            if let expected, version.loadRelaxed() != expected { return false }
            let value = body(&storage)
            storage.current = value.map { ValueBox($0) }
            lacksValue.storeSequentiallyConsistent(value == nil ? 1 : 0)
            version.incrementReleasing()
            return true
        }
    }
}
