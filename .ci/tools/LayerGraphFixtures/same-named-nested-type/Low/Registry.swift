// Low/ declares a `Storage` nested in `Registry`, and names the top-level `Storage` of High/
// outside it: a real edge Low -> High that closes a cycle with High -> Low. A check that
// compared bare names saw two `Storage`s, counted neither, and missed the cycle.
struct Registry {
    struct Storage {}
    var storage = Storage()
}

func archive() -> Storage {
    Storage(registry: Registry())
}
