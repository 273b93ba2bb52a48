/// Keeps an object alive for as long as a value holds it, without ever handing it out: what a
/// persisted handle holds of its application (so an isolated application outlives its scope
/// while a handle of it exists).
@usableFromInline
struct KeepAlive: @unchecked Sendable {
    // @unchecked: the object is never read, only retained, so it is never shared between threads.
    @usableFromInline let object: AnyObject

    @inlinable
    init(_ object: AnyObject) {
        self.object = object
    }
}
