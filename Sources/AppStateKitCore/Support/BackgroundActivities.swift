// Why: every long-lived activity (watcher, feed consumer, write-behind worker, poller, refresh)
// registers here while it runs, so a test can show that releasing its owner ends all of them.

/// The long-lived activities running now, by owner: each registers with ``begin(_:owner:)``
/// when it starts and ends its ``Token`` (by `defer`) when it stops. Registering happens when
/// an activity starts, never per read: one lock, taken twice per activity.
///
/// An owner is named by its `ObjectIdentifier`, taken while it is alive; an identifier can be
/// reused by a later object only after the owner is freed, so a query after the release counts
/// the released owner's activities plus any of a new object at the same address (none, when
/// they all ended, is what the tests wait for).
package enum BackgroundActivities {
    /// One running activity; ``end()`` unregisters it (again: nothing).
    package struct Token: Sendable {
        let id: UInt64

        /// Unregisters the activity.
        package func end() {
            BackgroundActivities.state.withLock { _ = $0.live.removeValue(forKey: id) }
        }
    }

    private struct Activity: Sendable {
        let name: String
        let owner: ObjectIdentifier
    }

    private struct State: Sendable {
        var live: [UInt64: Activity] = [:]
        var lastID: UInt64 = 0
    }

    private static let state = LockedBox(State())

    /// Registers activity `name` of `owner` as running; end the token when it stops.
    package static func begin(_ name: String, owner: ObjectIdentifier) -> Token {
        state.withLock { state in
            state.lastID += 1
            state.live[state.lastID] = Activity(name: name, owner: owner)
            return Token(id: state.lastID)
        }
    }

    /// Registers activity `name` of `owner` as running; end the token when it stops.
    package static func begin(_ name: String, owner: some AnyObject) -> Token {
        begin(name, owner: ObjectIdentifier(owner))
    }

    /// The names of `owner`'s running activities, sorted (one per running activity).
    package static func names(owner: ObjectIdentifier) -> [String] {
        state.withLock { state in state.live.values.filter { $0.owner == owner }.map(\.name) }.sorted()
    }

    /// The names of the running activities of every owner in `owners`, sorted.
    package static func names(owners: [ObjectIdentifier]) -> [String] {
        let wanted = Set(owners)
        return state.withLock { state in state.live.values.filter { wanted.contains($0.owner) }.map(\.name) }.sorted()
    }
}
