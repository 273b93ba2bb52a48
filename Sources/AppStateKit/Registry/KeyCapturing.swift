/// A lookup interceptor a thread can run the registry under: while one is set on the thread's
/// memo (``ThreadLookupCache/keyCapture``), each lookup asks it first whether it takes the key,
/// and a taken key gets a transient entry nobody else sees instead of the registry's.
///
/// Declared here so the registry needs no knowledge of who captures keys (`KeyCapture`, in
/// `Scoping/`, finds the key a dependency declaration stands for).
protocol KeyCapturing: AnyObject {
    /// Whether the lookup of `key` is the one the capture wants (rather than a lookup the
    /// declaration makes on the way, which resolves as usual).
    func takes(_ key: EntryKey) -> Bool
}
