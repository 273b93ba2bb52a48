/// The subscribers of one change fan-out — the change streams of an entry, the feeds of a sync
/// store — by the token that removes each.
///
/// Not synchronised: keep it in the owner's `LockedBox`, and deliver to subscribers that run
/// code of their own after releasing the lock (copy ``all`` out). One that only buffers (an
/// `AsyncStream` continuation) may be sent to with the lock held, keeping the owner's order.
package struct Subscribers<Subscriber> {
    private var byToken: [UInt64: Subscriber] = [:]
    private var lastToken: UInt64 = 0

    package init() {}

    /// Every subscriber, in no particular order.
    package var all: Dictionary<UInt64, Subscriber>.Values { byToken.values }
    package var count: Int { byToken.count }
    package var isEmpty: Bool { byToken.isEmpty }

    /// Adds `subscriber`; returns the token that removes it.
    package mutating func add(_ subscriber: Subscriber) -> UInt64 {
        lastToken += 1
        byToken[lastToken] = subscriber
        return lastToken
    }

    /// Removes the subscriber of `token`; returns whether there was one.
    @discardableResult
    package mutating func remove(_ token: UInt64) -> Bool {
        byToken.removeValue(forKey: token) != nil
    }

    /// Removes every subscriber and returns them.
    package mutating func removeAll() -> [Subscriber] {
        defer { byToken = [:] }
        return Array(byToken.values)
    }
}

/// Sendable where its subscribers are, so a `LockedBox` of it is.
extension Subscribers: Sendable where Subscriber: Sendable {}
