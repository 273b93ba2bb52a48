/// An entry touched again from inside its own in-place mutation (`Application.update`, `modify`,
/// `handle.value += 1`, …): a programmer error that stops the process, since waiting for the
/// entry's lock would deadlock the thread that holds it.
package struct ModificationReentry {
    /// The entry's kind, as ``Application/description`` shows it: `State`, `StoredState`, …
    let kind: String
    /// The entry touched again.
    let key: EntryKey

    package init(kind: String, key: EntryKey) {
        self.kind = kind
        self.key = key
    }

    /// The diagnostic printed when the process stops.
    var message: String {
        """
        AppStateKit: \(kind) \(key.readable) was accessed from inside its own update. \
        An update closure, `modify`, or a compound assignment through `value` (`+=`, `append`, …) \
        holds the entry's lock while it runs: use its inout value instead of reading or writing \
        the same entry again.
        """
    }

    package func stop() -> Never {
        fatalError(message)
    }
}
