// Why: every long-lived activity (watcher, feed consumer, write-behind worker, poller, refresh)
// registers here while it runs, so a test can show that releasing its owner ends all of them.

/// The long-lived activities running now, by owner: each registers with ``begin(_:owner:)``
/// when it starts and ends its ``Token`` (by `defer`) when it stops. Registering happens when
/// an activity starts, never per read: one lock, taken twice per activity.
///
/// An activity holds its owner weakly, with the owner's `ObjectIdentifier`. A freed owner's
/// identifier can be reused by a later object, so a query by identifier tells the two apart:
/// ``names(owner:)`` lists the activities of the live owner with that identifier, and
/// ``names(ofFreedOwners:)`` those whose owner with that identifier was freed while they ran —
/// what a test waits to see empty after releasing an owner.
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
        let ownerID: ObjectIdentifier
        weak var owner: (any AnyObject & Sendable)?
    }

    private struct State: Sendable {
        var live: [UInt64: Activity] = [:]
        var lastID: UInt64 = 0
    }

    private static let state = LockedBox(State())

    /// Registers activity `name` of `owner` as running; end the token when it stops.
    package static func begin(_ name: String, owner: some AnyObject & Sendable) -> Token {
        let activity = Activity(name: name, ownerID: ObjectIdentifier(owner), owner: owner)
        return state.withLock { state in
            state.lastID += 1
            state.live[state.lastID] = activity
            return Token(id: state.lastID)
        }
    }

    /// The names of the running activities of the live owner identified by `owner`, sorted.
    package static func names(owner: ObjectIdentifier) -> [String] {
        state.withLock { state in state.live.values.filter { $0.ownerID == owner && $0.owner != nil }.map(\.name) }.sorted()
    }

    /// The names of the running activities whose owner, identified by one of `owners`, was
    /// freed, sorted.
    package static func names(ofFreedOwners owners: [ObjectIdentifier]) -> [String] {
        let wanted = Set(owners)
        return state.withLock { state in state.live.values.filter { wanted.contains($0.ownerID) && $0.owner == nil }.map(\.name) }.sorted()
    }
}
