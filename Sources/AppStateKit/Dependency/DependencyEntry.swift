/// The registry entry behind an ``Application/Dependency``: the instance the factory created,
/// replaced by ``Application/promote(_:with:)``, with a stack of overrides on top.
///
/// The newest live override wins; cancelling any override, in any order, leaves the newest
/// remaining one or the original.
final class DependencyEntry<Value: Sendable>: RegistryEntry, @unchecked Sendable {
    // Safe: `original`, `overrides` and `nextToken` are only accessed while `lock` is held.
    private let lock = Lock()
    private var original: Value
    private var overrides: [(token: UInt64, value: Value)] = []
    private var nextToken: UInt64 = 0

    init(key: EntryKey, value: Value) {
        self.original = value
        super.init(key: key)
    }

    override var kindName: String { "Dependency" }
    override var valueTypeName: String { String(reflecting: Value.self) }
    override var valueDescription: String { String(describing: value) }

    /// The newest override, or the original instance.
    var value: Value {
        trackAccess()
        lock.lock()
        defer { lock.unlock() }
        return overrides.last?.value ?? original
    }

    /// Puts `value` on top of the override stack and returns the token that removes it.
    func pushOverride(_ value: Value) -> UInt64 {
        notifyingObservers {
            lock.withLock {
                nextToken += 1
                overrides.append((nextToken, value))
                return nextToken
            }
        }
    }

    /// Removes the override `token` added; does nothing if it is already gone.
    func removeOverride(_ token: UInt64) {
        notifyingObservers {
            lock.withLock {
                overrides.removeAll { $0.token == token }
            }
        }
    }

    /// Replaces the original instance for good (overrides, if any, stay on top).
    func promote(to value: Value) {
        notifyingObservers {
            lock.withLock { original = value }
        }
    }

    /// Runs `body` on the current instance in place (for writable dependency slices of value types).
    func modifyCurrent(_ body: (inout Value) -> Void) {
        notifyingObservers {
            lock.withLock {
                if overrides.isEmpty {
                    body(&original)
                } else {
                    body(&overrides[overrides.count - 1].value)
                }
            }
        }
    }
}
