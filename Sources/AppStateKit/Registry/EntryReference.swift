/// Names a registry entry without holding it: its key's hash, to find the probe sequence in
/// the registry's table, and the entry object's identity, to pick it out there. Trivially
/// copyable, so a handle carrying one costs no retain and no key copy.
///
/// An identity is only compared with entries the table holds, which are alive, so an identity
/// of a released entry can only match an entry since created at the same address *and* filed
/// under the same hash — which ``Registry/existingEntry(for:)-(EntryReference)`` then returns,
/// and whose key callers check if it matters.
@usableFromInline
struct EntryReference: Sendable, Equatable {
    @usableFromInline let fastHash: Int
    @usableFromInline let object: ObjectIdentifier

    @inlinable
    init(fastHash: Int, object: ObjectIdentifier) {
        self.fastHash = fastHash
        self.object = object
    }

    init(_ entry: RegistryEntry) {
        self.init(fastHash: entry.key.fastHash, object: ObjectIdentifier(entry))
    }
}
